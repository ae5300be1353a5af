/// \file
/// \brief The non-template memory functions behind parprim::device_buffer.

#include <parprim/backends/cuda/device_buffer.hpp>

#include <cuda_runtime_api.h>

#include <parprim/backends/cuda/detail/error.hpp>
#include <parprim/cuda_memory.hpp>

namespace parprim::detail::cuda {

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  PARPRIM_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* p) noexcept {
  if (p) (void)cudaFree(p);
}

void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  PARPRIM_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  // From pageable host memory cudaMemcpy may return before the DMA has reached the device;
  // wait for it, so that work on any stream (non-blocking ones included) sees the data.
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

}  // namespace parprim::detail::cuda

namespace parprim {

cuda_async_memory_resource::cuda_async_memory_resource() {
  int device = 0;
  PARPRIM_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  PARPRIM_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  pool_ = pool;
}

void* cuda_async_memory_resource::allocate(std::size_t bytes, CUstream_st* stream) {
  void* p = nullptr;
  PARPRIM_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool_, stream));
  return p;
}

void cuda_async_memory_resource::deallocate(void* p, std::size_t /*bytes*/,
                                            CUstream_st* stream) noexcept {
  (void)cudaFreeAsync(p, stream);
}

}  // namespace parprim
