#pragma once
/// \file
/// \brief Cached temporary storage for the CUDA primitives, one entry per (device, stream).
///
/// An entry holds device scratch (grown on demand, never shrunk), a zeroed ticket counter for
/// single-pass kernels and a small pinned host slot for results. A lease locks its entry while
/// a call uses it, so concurrent calls on the same stream take turns and calls on different
/// streams run side by side. A synchronous call holds the lease until its stream was
/// synchronised; an enqueue-only call (`reduce_enqueue`) releases it as soon as its kernels are
/// enqueued, because every later user of the entry works on the same stream and so runs after
/// them (the argument, and its exceptions, are written out at run_enqueue in
/// detail/launch.cuh). Growing the scratch frees the old block with cudaFree, which waits for
/// all work on the device. Entries are freed at exit, ignoring errors (the CUDA runtime may
/// already be gone then); nothing here throws from a destructor.

#include <cstddef>
#include <mutex>

struct CUstream_st;

namespace parprim::detail::cuda {

struct temp_storage_entry;

/// \brief Exclusive use of the temporary storage of one (device, stream) for one call.
class temp_storage_lease {
 public:
  /// \brief Locks the entry of (`device`, `stream`) and makes it at least `device_bytes` of
  /// device scratch (256-byte aligned) and `host_bytes` of pinned host memory. Enqueues a reset
  /// of the ticket on `stream` if an earlier call did not finish cleanly.
  /// \throws parprim::cuda_error when an allocation fails
  temp_storage_lease(int device, CUstream_st* stream, std::size_t device_bytes,
                     std::size_t host_bytes);
  /// \brief As above, plus at least `status_words` words of *status* memory for single-pass
  /// scans (see `status()`). `status_layout` names how the caller lays out its words (e.g. the
  /// bytes per tile); when it differs from the previous call's on this entry, the words are
  /// zeroed first, so a call never reads as a status what another layout wrote as data.
  temp_storage_lease(int device, CUstream_st* stream, std::size_t device_bytes,
                     std::size_t host_bytes, std::size_t status_words,
                     unsigned status_layout = 0);
  ~temp_storage_lease();
  temp_storage_lease(const temp_storage_lease&) = delete;
  temp_storage_lease& operator=(const temp_storage_lease&) = delete;

  /// \return the device scratch
  void* device_scratch() const noexcept;
  /// \return a device counter that is zero when the first kernel of this call runs; a kernel
  /// that uses it must leave it zero
  unsigned* ticket() const noexcept;
  /// \return the pinned host slot (mapped: kernels can write it directly)
  void* host_slot() const noexcept;
  /// \return the device's address of the pinned host slot
  void* host_slot_device() const noexcept;
  /// \return the status words: device memory used only by single-pass scans, whose words
  /// each hold the epoch of the call that last set them. No word holds the epoch that
  /// `epoch()` returns until this call sets it, so a call needs no reset of its flags.
  unsigned* status() const noexcept;
  /// \return this call's epoch: in [1, 2^30), different from every earlier call's on this entry
  /// (when the counter wraps the status words are zeroed again)
  unsigned epoch() const noexcept { return epoch_; }
  /// \brief Call once the ticket is known to be zero for the next kernel on this stream:
  /// after the stream was synchronised without error, or once a kernel that leaves it zero
  /// (rung 7) or does not touch it was enqueued successfully (stream order).
  void finished_cleanly() noexcept { clean_ = true; }

 private:
  temp_storage_entry* entry_;
  std::unique_lock<std::mutex> lock_;
  bool clean_ = false;
  unsigned epoch_ = 0;
};

/// \brief The number of multiprocessors of `device` (cached).
int multiprocessor_count(int device);

/// \brief Throws parprim::invalid_argument if `p` is host memory the GPU cannot read (a
/// `device_span` made from a host pointer). `what` names the argument in the message.
void check_device_pointer(const void* p, const char* fn, const char* what);

/// \brief Throws parprim::invalid_argument if `stream` (other than the default and
/// per-thread handles) belongs to a device other than `device`, and parprim::cuda_error if the
/// runtime does not know it.
void check_stream(CUstream_st* stream, int device, const char* fn);

}  // namespace parprim::detail::cuda
