/// \file
/// \brief The anchors, measured the same way as the ladder (result on the host inside the
/// timed interval): CUB DeviceReduce::Sum and DeviceReduce::Reduce (temporary storage
/// allocated once, outside the timing, as CUB users do; result copied to pinned memory on the
/// stream), and thrust::reduce (which returns the result to the host and synchronises).

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <string>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief CUB's temporary storage, output and pinned result slot, grown on demand.
struct cub_scratch {
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  void* out = nullptr;
  void* host = nullptr;
  void reserve(std::size_t bytes) {
    if (!out) {
      cudaMalloc(&out, 64);
      cudaMallocHost(&host, 64);
    }
    if (bytes > temp_bytes) {
      cudaFree(temp);
      cudaMalloc(&temp, bytes);
      temp_bytes = bytes;
    }
  }
};

cub_scratch& scratch() {
  static cub_scratch s;
  return s;
}

struct plus_op {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

template <class T, bool Sum>
T cub_reduce(const T* x, std::size_t n) {
  cub_scratch& s = scratch();
  const cudaStream_t stream = bench_stream();
  std::size_t bytes = 0;
  if constexpr (Sum) {
    cub::DeviceReduce::Sum(nullptr, bytes, x, static_cast<T*>(s.out), n, stream);
    s.reserve(bytes);
    cub::DeviceReduce::Sum(s.temp, bytes, x, static_cast<T*>(s.out), n, stream);
  } else {
    cub::DeviceReduce::Reduce(nullptr, bytes, x, static_cast<T*>(s.out), n, plus_op{}, T(0),
                              stream);
    s.reserve(bytes);
    cub::DeviceReduce::Reduce(s.temp, bytes, x, static_cast<T*>(s.out), n, plus_op{}, T(0), stream);
  }
  cudaMemcpyAsync(s.host, s.out, sizeof(T), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  return *static_cast<const T*>(s.host);
}

template <class T>
void add_anchors() {
  const std::string t = type_name<T>();
  add("reduce/cub_device_reduce_sum/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce<T>(state, n, [n](const T* x) { return cub_reduce<T, true>(x, n); });
  });
  add("reduce/cub_device_reduce/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce<T>(state, n, [n](const T* x) { return cub_reduce<T, false>(x, n); });
  });
  add("reduce/thrust_reduce/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce<T>(state, n, [n](const T* x) {
      return thrust::reduce(thrust::cuda::par.on(bench_stream()), x, x + n, T(0),
                            thrust::plus<T>());
    });
  });
}

const bool registered = register_benchmarks([] {
  add_anchors<std::int32_t>();
  add_anchors<float>();
  add_anchors<double>();
});

}  // namespace
}  // namespace parprim_bench::cuda
