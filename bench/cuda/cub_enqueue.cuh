#pragma once
/// \file
/// \brief CUB's DeviceReduce::Sum and DeviceReduce::Reduce enqueued on the bench stream with the
/// result left in device memory, sharing one temporary-storage block grown on demand (outside
/// the timing: the warm-up grows it). The synchronous anchors (cub_thrust.cu) add the copy of
/// the result to the host; the device-time ones (device_time.cu) do not.

#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <cstddef>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {

/// \brief CUB's temporary storage, one block for every CUB anchor of the binary.
inline void* cub_temp_storage(std::size_t want) {
  static void* p = nullptr;
  static std::size_t bytes = 0;
  if (want > bytes) {
    cudaFree(p);
    p = nullptr;
    bytes = 0;
    if (cudaMalloc(&p, want) == cudaSuccess) bytes = want;
  }
  return p;
}

struct cub_plus {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

/// \brief `*out = sum of x[0, n)`: DeviceReduce::Sum (`Sum`) or DeviceReduce::Reduce with a
/// user plus, enqueued on bench_stream().
template <class T, bool Sum>
void cub_reduce_enqueue(const T* x, std::size_t n, T* out) {
  std::size_t bytes = 0;
  if constexpr (Sum) {
    cub::DeviceReduce::Sum(nullptr, bytes, x, out, n, bench_stream());
    cub::DeviceReduce::Sum(cub_temp_storage(bytes), bytes, x, out, n, bench_stream());
  } else {
    cub::DeviceReduce::Reduce(nullptr, bytes, x, out, n, cub_plus{}, T(0), bench_stream());
    cub::DeviceReduce::Reduce(cub_temp_storage(bytes), bytes, x, out, n, cub_plus{}, T(0),
                              bench_stream());
  }
}

}  // namespace parprim_bench::cuda
