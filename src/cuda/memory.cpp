/// \file
/// \brief The non-template memory functions behind parprim::device_buffer.

#include <parprim/backends/cuda/device_buffer.hpp>

#include <cuda_runtime_api.h>

#include <parprim/backends/cuda/detail/error.hpp>

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
}

}  // namespace parprim::detail::cuda
