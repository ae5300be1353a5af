/// \file
/// \brief The per-segment anchors (registered and timed by segments.cpp; names and method:
/// segments_bench.hpp): CUB DeviceSegmentedReduce::Sum on the CSR offsets (begins `offsets`,
/// ends `offsets + 1`) and DeviceReduce::ReduceByKey with cuda::std::plus<> (the number of runs
/// written to a device counter and copied to pinned host memory, as a caller that needs the
/// count gets it). Each enqueues on the bench stream and synchronises it before returning, so it
/// is timed as the synchronous parprim calls are. CUB's temporary storage is the block shared by
/// every CUB anchor (cub_enqueue.cuh), grown during the warm-up, outside the timing; the item
/// count of ReduceByKey is passed as `int` (32-bit offsets, as the scan anchors do).

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>

#include <cstdint>

#include "cub_enqueue.cuh"
#include "segments_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief ReduceByKey's device counter of runs and the pinned host slot it is copied to.
struct run_count_slot {
  int* device = nullptr;
  int* host = nullptr;
  run_count_slot() {
    cudaMalloc(&device, sizeof(int));
    cudaMallocHost(&host, sizeof(int));
  }
};

}  // namespace

template <class T>
std::size_t cub_segmented_reduce_sum(const segment_args<T>& a) {
  const auto k = static_cast<std::int64_t>(a.segments);
  std::size_t bytes = 0;
  cub::DeviceSegmentedReduce::Sum(nullptr, bytes, a.x, a.out, k, a.offsets, a.offsets + 1,
                                  bench_stream());
  cub::DeviceSegmentedReduce::Sum(cub_temp_storage(bytes), bytes, a.x, a.out, k, a.offsets,
                                  a.offsets + 1, bench_stream());
  cudaStreamSynchronize(bench_stream());
  return a.segments;
}

template <class T>
std::size_t cub_reduce_by_key(const segment_args<T>& a) {
  static run_count_slot runs;
  const int n = static_cast<int>(a.n);
  std::size_t bytes = 0;
  cub::DeviceReduce::ReduceByKey(nullptr, bytes, a.keys, a.keys_out, a.x, a.out, runs.device,
                                 ::cuda::std::plus<>{}, n, bench_stream());
  cub::DeviceReduce::ReduceByKey(cub_temp_storage(bytes), bytes, a.keys, a.keys_out, a.x, a.out,
                                 runs.device, ::cuda::std::plus<>{}, n, bench_stream());
  cudaMemcpyAsync(runs.host, runs.device, sizeof(int), cudaMemcpyDeviceToHost, bench_stream());
  cudaStreamSynchronize(bench_stream());
  return static_cast<std::size_t>(*runs.host);
}

template std::size_t cub_segmented_reduce_sum<std::int32_t>(const segment_args<std::int32_t>&);
template std::size_t cub_reduce_by_key<std::int32_t>(const segment_args<std::int32_t>&);

}  // namespace parprim_bench::cuda
