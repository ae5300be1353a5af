/// \file
/// \brief The anchors, measured the same way as the ladder (result on the host inside the
/// timed interval): CUB DeviceReduce::Sum and DeviceReduce::Reduce (temporary storage
/// allocated once, outside the timing, as CUB users do; result copied to pinned memory on the
/// stream), and thrust::reduce (which returns the result to the host and synchronises).

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cstdint>
#include <string>

#include "cub_enqueue.cuh"
#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief CUB's device output and the pinned host slot its result is copied to.
struct cub_result_slot {
  void* out = nullptr;
  void* host = nullptr;
  cub_result_slot() {
    cudaMalloc(&out, 64);
    cudaMallocHost(&host, 64);
  }
};

template <class T, bool Sum>
T cub_reduce(const T* x, std::size_t n) {
  static cub_result_slot s;
  const cudaStream_t stream = bench_stream();
  cub_reduce_enqueue<T, Sum>(x, n, static_cast<T*>(s.out));
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
