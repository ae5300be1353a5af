/// \file
/// \brief The bandwidth roof: a device-to-device copy of the same n elements
/// (cudaMemcpyAsync on the stream), roof/cuda_copy_d2d/<type>/n:<N>/manual_time. Bytes
/// processed = the bytes read (as for the reductions); "traffic" counts read + write.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

template <class T>
void add_copy() {
  add(std::string("roof/cuda_copy_d2d/") + type_name<T>(), [](benchmark::State& state,
                                                              std::size_t n) {
    if (!have_gpu()) {
      state.SkipWithError("no GPU");
      return;
    }
    const auto& in = inputs_for<T>(n);
    void* out = nullptr;
    if (cudaMalloc(&out, n * sizeof(T)) != cudaSuccess) {
      state.SkipWithError("cudaMalloc failed");
      return;
    }
    const cudaStream_t stream = bench_stream();
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::size_t next = 0;
    for (int w = 0; w < 3; ++w)
      cudaMemcpyAsync(out, in.buffers[next++ % in.buffers.size()], n * sizeof(T),
                      cudaMemcpyDeviceToDevice, stream);
    for (auto _ : state) {
      const T* x = in.buffers[next++ % in.buffers.size()];
      cudaEventRecord(start, stream);
      cudaMemcpyAsync(out, x, n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
      cudaEventRecord(stop, stream);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      state.SetIterationTime(static_cast<double>(ms) * 1e-3);
    }
    const auto it = static_cast<std::int64_t>(state.iterations());
    state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
    state.SetBytesProcessed(it * static_cast<std::int64_t>(n * sizeof(T)));
    state.counters["traffic"] = benchmark::Counter(2.0 * static_cast<double>(n * sizeof(T)),
                                                   benchmark::Counter::kIsIterationInvariantRate);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(out);
  });
}

const bool registered = register_benchmarks([] {
  add_copy<std::int32_t>();
  add_copy<float>();
  add_copy<double>();
});

}  // namespace
}  // namespace parprim_bench::cuda
