/// \file
/// \brief transform_reduce on the GPU against the plain reduce of the same input bytes and CUB's
/// DeviceReduce::TransformReduce, measured like the ladder (synchronous call, result on the
/// host, rotated inputs, median of 5):
///
///   reduce/cuda_transform_reduce/<type>   parprim::transform_reduce(cuda, x, 0, plus, 2x)
///   reduce/cub_transform_reduce/<type>    cub::DeviceReduce::TransformReduce, same f
///
/// (the plain reduce is reduce/cuda_k7_vectorized_single_pass/<type>). The transform doubles
/// each element; the call halves the result, so run_reduce's exact check applies unchanged.
///
/// Also the call behind scan/inclusive/cuda_transform_identity/<type> (registered with the scan
/// ladder, scan_ladder.cpp): transform_inclusive_scan with f(x) = x, beside the plain scan.

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <string>

#include <parprim/parprim.hpp>

#include "cub_enqueue.cuh"
#include "cuda_bench.hpp"
#include "scan_bench.hpp"

namespace parprim_bench::cuda {

/// \brief f(x) = x, as a transform (its own type: the call takes the transforms' path).
struct same_value {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    return x;
  }
};

template <class T>
void cuda_transform_inclusive_scan(const scan_args<T>& a) {
  parprim::transform_inclusive_scan(
      parprim::cuda.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
      parprim::device_span<T>(a.out, a.n), parprim::plus{}, same_value{});
}
template void cuda_transform_inclusive_scan<std::int32_t>(const scan_args<std::int32_t>&);
template void cuda_transform_inclusive_scan<float>(const scan_args<float>&);
template void cuda_transform_inclusive_scan<double>(const scan_args<double>&);

namespace {

struct twice {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    return x + x;
  }
};

template <class T>
T cub_transform_reduce(const T* x, std::size_t n) {
  static void* out = nullptr;
  static void* host = nullptr;
  if (out == nullptr) {
    cudaMalloc(&out, 64);
    cudaMallocHost(&host, 64);
  }
  const cudaStream_t stream = bench_stream();
  std::size_t bytes = 0;
  cub::DeviceReduce::TransformReduce(nullptr, bytes, x, static_cast<T*>(out), n, cub_plus{},
                                     twice{}, T(0), stream);
  cub::DeviceReduce::TransformReduce(cub_temp_storage(bytes), bytes, x, static_cast<T*>(out), n,
                                     cub_plus{}, twice{}, T(0), stream);
  cudaMemcpyAsync(host, out, sizeof(T), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  return *static_cast<const T*>(host);
}

template <class T>
void add_transform() {
  const std::string t = type_name<T>();
  add("reduce/cuda_transform_reduce/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce<T>(state, n, [n](const T* x) {
      return static_cast<T>(parprim::transform_reduce(parprim::cuda.on(bench_stream()),
                                                      parprim::device_span<const T>(x, n), T(0),
                                                      parprim::plus{}, twice{}) /
                            2);
    });
  });
  add("reduce/cub_transform_reduce/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce<T>(state, n,
                  [n](const T* x) { return static_cast<T>(cub_transform_reduce(x, n) / 2); });
  });
}

const bool registered = register_benchmarks([] {
  add_transform<std::int32_t>();
  add_transform<float>();
  add_transform<double>();
});

}  // namespace
}  // namespace parprim_bench::cuda
