#pragma once
/// \file
/// \brief CUB's call of each matrix cell (names and method: matrix_bench.hpp), enqueued on the
/// bench stream with CUB's shared temporary storage (cub_enqueue.cuh, grown in the warm-up,
/// outside the timing); reduce copies its result to pinned host memory, and every call
/// synchronises the stream before it returns. Plus goes to the Sum entry points (DeviceReduce::
/// Sum, DeviceScan::InclusiveSum / ExclusiveSum / InclusiveSumByKey), minimum and maximum of the
/// built-in types to DeviceReduce::Min / Max and the Scan entry points with ::cuda::minimum<> /
/// ::cuda::maximum<>, the user operators to DeviceReduce::Reduce and the Scan entry points. The
/// item count is `int` (n <= 2^28). Included by matrix_cub_*.cu, one group of types each (their
/// compile times add up; the groups build in parallel).

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cstdint>
#include <type_traits>

#include "cub_enqueue.cuh"
#include "matrix_bench.hpp"

namespace parprim_bench::cuda {
namespace matrix_cub {

/// \brief The CUB operator of a parprim (or user) operator.
template <class Op>
auto op() {
  if constexpr (std::is_same_v<Op, parprim::minimum>)
    return ::cuda::minimum<>{};
  else if constexpr (std::is_same_v<Op, parprim::maximum>)
    return ::cuda::maximum<>{};
  else
    return Op{};
}

/// \brief The pinned host slot CUB's reduce result is copied to (64 bytes; its device result
/// is `matrix_args::result`).
inline void* pinned_result() {
  static void* pinned = [] {
    void* p = nullptr;
    return cudaMallocHost(&p, 64) == cudaSuccess ? p : nullptr;
  }();
  return pinned;
}

/// \brief Runs a CUB entry point twice: the size query and the call (`f(temp, bytes)`).
template <class F>
void twice(F f) {
  std::size_t bytes = 0;
  f(static_cast<void*>(nullptr), bytes);
  f(cub_temp_storage(bytes), bytes);
}

}  // namespace matrix_cub

template <class In, class Out, class Op, matrix_primitive P>
Out cub_call(const matrix_args<In, Out>& a) {
  namespace m = matrix_cub;
  const cudaStream_t s = bench_stream();
  const int n = static_cast<int>(a.n);
  constexpr bool plus = std::is_same_v<Op, parprim::plus>;
  Out result{};
  if constexpr (P == matrix_primitive::reduce) {
    Out* d = a.result;
    m::twice([&](void* t, std::size_t& b) {
      if constexpr (plus)
        cub::DeviceReduce::Sum(t, b, a.x, d, n, s);
      else if constexpr (std::is_same_v<Op, parprim::minimum>)
        cub::DeviceReduce::Min(t, b, a.x, d, n, s);
      else if constexpr (std::is_same_v<Op, parprim::maximum>)
        cub::DeviceReduce::Max(t, b, a.x, d, n, s);
      else
        cub::DeviceReduce::Reduce(t, b, a.x, d, n, Op{}, a.init, s);
    });
    if (a.device_only) return result;
    cudaMemcpyAsync(m::pinned_result(), d, sizeof(Out), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    result = *static_cast<const Out*>(m::pinned_result());
  } else {
    m::twice([&](void* t, std::size_t& b) {
      if constexpr (P == matrix_primitive::inclusive) {
        if constexpr (plus)
          cub::DeviceScan::InclusiveSum(t, b, a.x, a.out, n, s);
        else
          cub::DeviceScan::InclusiveScan(t, b, a.x, a.out, m::op<Op>(), n, s);
      } else if constexpr (P == matrix_primitive::exclusive) {
        if constexpr (plus)
          cub::DeviceScan::ExclusiveSum(t, b, a.x, a.out, n, s);
        else
          cub::DeviceScan::ExclusiveScan(t, b, a.x, a.out, m::op<Op>(), a.init, n, s);
      } else {
        if constexpr (plus)
          cub::DeviceScan::InclusiveSumByKey(t, b, a.keys, a.x, a.out, n, ::cuda::std::equal_to<>{},
                                             s);
        else
          cub::DeviceScan::InclusiveScanByKey(t, b, a.keys, a.x, a.out, m::op<Op>(), n,
                                              ::cuda::std::equal_to<>{}, s);
      }
    });
    if (!a.device_only) cudaStreamSynchronize(s);
  }
  return result;
}

}  // namespace parprim_bench::cuda
