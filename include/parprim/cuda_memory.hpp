#pragma once
/// \file
/// \brief The temporary memory of the CUDA primitives: a memory resource the caller supplies
/// (`parprim::cuda.memory(resource)`), the adapter for the stream-ordered allocator that ships
/// with the library, and the release of the library's own cache.
///
/// \code
///   parprim::cuda_async_memory_resource pool;                   // cudaMallocAsync, default pool
///   auto p = parprim::cuda.on(stream).nosync().memory(pool);
///   parprim::inclusive_scan(p, in, out);                        // scratch from `pool`
/// \endcode
///
/// Without a resource, each (device, stream) has a cached block that grows to the largest call
/// made on it and is kept until `cuda_release_cached_memory()` or exit. With a resource, every
/// call allocates what it needs from it on the call's stream and gives it back on that stream
/// once its work is enqueued (so a stream-ordered resource reuses it only after that work).
/// This header names no CUDA type (a stream is `CUstream_st*`, a pool `CUmemPoolHandle_st*`).

#include <cstddef>

struct CUstream_st;
struct CUmemPoolHandle_st;

namespace parprim {

/// \brief Device memory for the temporaries of CUDA calls, allocated and freed in stream order.
///
/// `allocate(bytes, stream)` returns device memory of at least `bytes` bytes, 256-byte
/// aligned, usable by work enqueued on `stream` after the call (e.g. `cudaMallocAsync`); it
/// throws (any exception; it reaches the caller of the primitive) when it cannot.
/// `deallocate(p, bytes, stream)` gives a block back; work already enqueued on `stream` may
/// still use it, so it may be reused only by work ordered after that (e.g. `cudaFreeAsync`).
/// Both are called from the thread that calls the primitive; a resource shared between threads
/// must be thread-safe. Allocations made while a stream is being captured into a CUDA graph must
/// be capturable (`cudaMallocAsync` is: it becomes a memory node of the graph).
class cuda_memory_resource {
 public:
  virtual ~cuda_memory_resource() = default;
  /// \return device memory of at least `bytes` bytes, 256-byte aligned, usable by work
  /// enqueued on `stream` from now on \throws anything when it cannot
  virtual void* allocate(std::size_t bytes, CUstream_st* stream) = 0;
  /// \brief Gives back a block of `allocate(bytes, stream)`; work already enqueued on `stream`
  /// may still use it
  virtual void deallocate(void* p, std::size_t bytes, CUstream_st* stream) noexcept = 0;
};

/// \brief The stream-ordered allocator: `cudaMallocFromPoolAsync` / `cudaFreeAsync` on a memory
/// pool (default: the current device's default pool, `cudaDeviceGetDefaultMemPool`, looked up
/// when the adapter is made). Capturable into CUDA graphs. Thread-safe.
class cuda_async_memory_resource final : public cuda_memory_resource {
 public:
  /// \brief The default pool of the current device. \throws parprim::cuda_error
  cuda_async_memory_resource();
  /// \brief A pool the caller owns (it must outlive the adapter).
  explicit cuda_async_memory_resource(CUmemPoolHandle_st* pool) noexcept : pool_(pool) {}
  /// \return `bytes` from the pool, in stream order on `stream`
  /// \throws parprim::cuda_error when the pool cannot provide `bytes`
  void* allocate(std::size_t bytes, CUstream_st* stream) override;
  /// \brief `cudaFreeAsync(p, stream)`
  void deallocate(void* p, std::size_t bytes, CUstream_st* stream) noexcept override;
  /// \return the pool
  CUmemPoolHandle_st* pool() const noexcept { return pool_; }

 private:
  CUmemPoolHandle_st* pool_ = nullptr;
};

/// \brief Frees the temporary memory the CUDA primitives cache (every device and stream); later
/// calls allocate again. Call it when no CUDA primitive is running or enqueued work of one may
/// still run on a stream whose cache it frees: it waits for each device (`cudaFree`), so it is
/// safe after a `nosync` call too, but not while another thread is inside a parprim call.
/// A CUDA graph captured with the cache (no memory resource) must not be launched after it.
/// \throws parprim::cuda_error
void cuda_release_cached_memory();

/// \return the bytes of device memory the cache holds now (every device and stream)
std::size_t cuda_cached_memory_bytes();

}  // namespace parprim
