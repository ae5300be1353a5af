/// \file
/// \brief The scan anchors (registered by scan_ladder.cpp, timed by run_scan in
/// scan_bench.hpp): CUB DeviceScan::InclusiveSum, ExclusiveSum, InclusiveScan (with
/// cuda::std::plus<T>), InclusiveSumByKey, and Thrust inclusive_scan, inclusive_scan_by_key.
/// Each enqueues on the bench stream and synchronises it before returning, so it is timed as
/// the synchronous parprim calls are. CUB's temporary storage is one block shared by every CUB
/// anchor (cub_enqueue.cuh), grown during the warm-up, outside the timing; the item count is
/// passed as `int` (32-bit offsets: CUB's fastest path and what its examples do). Thrust
/// allocates its own temporary storage on every call, as a Thrust user gets it.
///
/// CCCL 3.0 (CUDA 13.0) has no segmented scan by offsets (no cub::DeviceSegmentedScan; checked
/// with grep over /usr/local/cuda/include), so there is no anchor of that kind.

#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <cstdint>

#include "cub_enqueue.cuh"
#include "scan_bench.hpp"

namespace parprim_bench::cuda {

template <class T>
void cub_inclusive_sum(const scan_args<T>& a) {
  const int n = static_cast<int>(a.n);
  std::size_t bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, bytes, a.x, a.out, n, bench_stream());
  cub::DeviceScan::InclusiveSum(cub_temp_storage(bytes), bytes, a.x, a.out, n, bench_stream());
  cudaStreamSynchronize(bench_stream());
}

template <class T>
void cub_exclusive_sum(const scan_args<T>& a) {
  const int n = static_cast<int>(a.n);
  std::size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, a.x, a.out, n, bench_stream());
  cub::DeviceScan::ExclusiveSum(cub_temp_storage(bytes), bytes, a.x, a.out, n, bench_stream());
  cudaStreamSynchronize(bench_stream());
}

template <class T>
void cub_inclusive_scan(const scan_args<T>& a) {
  const int n = static_cast<int>(a.n);
  std::size_t bytes = 0;
  cub::DeviceScan::InclusiveScan(nullptr, bytes, a.x, a.out, ::cuda::std::plus<T>{}, n,
                                 bench_stream());
  cub::DeviceScan::InclusiveScan(cub_temp_storage(bytes), bytes, a.x, a.out, ::cuda::std::plus<T>{},
                                 n, bench_stream());
  cudaStreamSynchronize(bench_stream());
}

template <class T>
void thrust_inclusive_scan(const scan_args<T>& a) {
  thrust::inclusive_scan(thrust::cuda::par.on(bench_stream()), a.x, a.x + a.n, a.out);
  cudaStreamSynchronize(bench_stream());
}

template <class T>
void cub_inclusive_sum_by_key(const scan_args<T>& a) {
  const int n = static_cast<int>(a.n);
  std::size_t bytes = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, a.keys, a.x, a.out, n,
                                     ::cuda::std::equal_to<>{}, bench_stream());
  cub::DeviceScan::InclusiveSumByKey(cub_temp_storage(bytes), bytes, a.keys, a.x, a.out, n,
                                     ::cuda::std::equal_to<>{}, bench_stream());
  cudaStreamSynchronize(bench_stream());
}

template <class T>
void thrust_inclusive_scan_by_key(const scan_args<T>& a) {
  thrust::inclusive_scan_by_key(thrust::cuda::par.on(bench_stream()), a.keys, a.keys + a.n, a.x,
                                a.out);
  cudaStreamSynchronize(bench_stream());
}

#define PARPRIM_BENCH_SCAN_ANCHORS(T)                             \
  template void cub_inclusive_sum<T>(const scan_args<T>&);        \
  template void cub_exclusive_sum<T>(const scan_args<T>&);        \
  template void cub_inclusive_scan<T>(const scan_args<T>&);       \
  template void thrust_inclusive_scan<T>(const scan_args<T>&);    \
  template void cub_inclusive_sum_by_key<T>(const scan_args<T>&); \
  template void thrust_inclusive_scan_by_key<T>(const scan_args<T>&);
PARPRIM_BENCH_SCAN_ANCHORS(std::int32_t)
PARPRIM_BENCH_SCAN_ANCHORS(float)
PARPRIM_BENCH_SCAN_ANCHORS(double)
#undef PARPRIM_BENCH_SCAN_ANCHORS

}  // namespace parprim_bench::cuda
