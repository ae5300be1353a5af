#pragma once
/// \file
/// \brief Cached temporary storage for the CUDA primitives, one entry per (device, stream).
///
/// An entry holds device scratch (grown on demand, never shrunk), a zeroed ticket counter for
/// single-pass kernels and a small pinned host slot for results. A lease locks its entry while
/// a call uses it, so concurrent calls on the same stream take turns and calls on different
/// streams run side by side. A synchronous call holds the lease until its work is done (its
/// stream synchronised, or its kernel's completion signal seen: detail/completion_signal.cuh); an
/// enqueue-only call (`nosync`, `reduce_into`) releases it as soon as its kernels are enqueued,
/// because every later user of the entry works on the same stream and so runs after them (the
/// argument, and its exceptions, are written out at run_into in detail/launch.cuh). Growing the
/// scratch frees the old block with cudaFree, which waits for all work on the device. Entries are
/// freed at exit, ignoring errors (the CUDA runtime may already be gone then); nothing here throws
/// from a destructor.

#include <cstddef>
#include <mutex>
#include <optional>

#include <parprim/cuda_memory.hpp>

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
                     std::size_t host_bytes, std::size_t status_words, unsigned status_layout = 0);
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

/// \brief The temporary memory of one call: the cache's lease for (device, stream), or a block
/// from the caller's memory resource (`parprim::cuda.memory(...)`), with what a call needs from
/// either: device scratch, a ticket that is zero when the call's first kernel runs (the kernels
/// that take tickets leave it zero), status words that hold no epoch equal to `epoch()`, and a
/// slot for a reduction's result.
///
/// A call made while its stream is captured into a CUDA graph gets its status words zeroed by
/// a memset enqueued in front of its kernels (a node of the graph), so a replay does not depend
/// on the host-side epoch baked into the graph. A resource's block is fresh memory: its ticket
/// and status words are always zeroed so; it is given back to the resource on the stream when
/// the call_scratch is destroyed, after the call enqueued its work.
class call_scratch {
 public:
  /// \throws parprim::cuda_error, or what the resource throws
  call_scratch(int device, CUstream_st* stream, cuda_memory_resource* memory,
               std::size_t device_bytes, std::size_t status_words, unsigned status_layout,
               bool host_result);
  ~call_scratch();
  call_scratch(const call_scratch&) = delete;
  call_scratch& operator=(const call_scratch&) = delete;

  void* device_scratch() const noexcept { return scratch_; }
  unsigned* ticket() const noexcept { return ticket_; }
  unsigned* status() const noexcept { return status_; }
  unsigned epoch() const noexcept { return epoch_; }
  /// \return the mapped pinned host slot for a result (cache and `host_result` only), or null
  void* host_slot() const noexcept { return host_; }
  /// Bytes of the host slot's result, before the signal's word.
  static constexpr std::size_t result_slot_bytes = 256;
  /// \return where a kernel writes a result: the host slot's device address, or device memory
  void* result_slot() const noexcept { return result_; }
  /// \return the mapped host word after the result slot (cache and `host_result` only), where a
  /// synchronous call's kernel signals that it is done (detail/completion_signal.cuh), or null;
  /// `signal_word_device`: its device address
  unsigned* signal_word() const noexcept {
    return host_
               ? reinterpret_cast<unsigned*>(static_cast<unsigned char*>(host_) + result_slot_bytes)
               : nullptr;
  }
  unsigned* signal_word_device() const noexcept {
    return result_ && host_ ? reinterpret_cast<unsigned*>(static_cast<unsigned char*>(result_) +
                                                          result_slot_bytes)
                            : nullptr;
  }
  /// \return a device counter beside the ticket, zero when the call's first kernel runs, as the
  /// ticket (the kernels that count their finished blocks leave it zero)
  unsigned* done_counter() const noexcept { return ticket_ + 1; }
  /// \brief As temp_storage_lease::finished_cleanly (no effect with a resource).
  void finished_cleanly() noexcept;

 private:
  std::optional<temp_storage_lease> lease_;
  cuda_memory_resource* memory_ = nullptr;
  CUstream_st* stream_ = nullptr;
  void* block_ = nullptr;
  std::size_t block_bytes_ = 0;
  void* scratch_ = nullptr;
  unsigned* ticket_ = nullptr;
  unsigned* status_ = nullptr;
  unsigned epoch_ = 1;
  void* host_ = nullptr;
  void* result_ = nullptr;
};

/// \brief Device memory a call holds beside the cache, for the length of the call (stream
/// order): temporaries that stay alive while the call runs another primitive, which leases the
/// cache entry of the stream itself. From the policy's memory resource, or else from the
/// library's stream-ordered pool of the device, which keeps what it allocated between calls
/// (cuda_release_cached_memory trims it). Given back on the stream when destroyed.
class temp_block {
 public:
  /// \param device  where the pool is (-1: the current device)
  /// \throws parprim::cuda_error, or what the resource throws
  temp_block(int device, CUstream_st* stream, cuda_memory_resource* memory, std::size_t bytes);
  ~temp_block();
  temp_block(const temp_block&) = delete;
  temp_block& operator=(const temp_block&) = delete;
  void* get() const noexcept { return p_; }

 private:
  cuda_memory_resource* memory_;
  CUstream_st* stream_;
  std::size_t bytes_;
  void* p_ = nullptr;
};

/// \brief parprim::cuda_release_cached_memory: frees every entry's memory (the entries stay).
void release_cache();
/// \brief parprim::cuda_cached_memory_bytes.
std::size_t cached_bytes();

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
