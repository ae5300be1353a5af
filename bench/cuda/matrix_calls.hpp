#pragma once
/// \file
/// \brief parprim's call of each matrix cell (names and method: matrix_bench.hpp): the public
/// API with the default cuda policy on the bench stream. Included by matrix_parprim_builtin.cpp
/// (the built-in combinations, precompiled in libparprim_cuda: g++) and matrix_parprim_user.cu
/// (int8 into int32 and the user structs: nvcc instantiates the kernels), each instantiating its
/// own cells with PARPRIM_MATRIX_CELLS.

#include <cstdint>

#include <parprim/parprim.hpp>

#include "matrix_bench.hpp"

namespace parprim_bench::cuda {

/// \brief The scans of one cell with `policy` (synchronous or `nosync()`).
template <class In, class Out, class Op, matrix_primitive P, class Policy>
void parprim_scan(const Policy& policy, const matrix_args<In, Out>& a) {
  const parprim::device_span<const In> x(a.x, a.n);
  const parprim::device_span<Out> out(a.out, a.n);
  if constexpr (P == matrix_primitive::inclusive)
    parprim::inclusive_scan(policy, x, out, Op{});
  else if constexpr (P == matrix_primitive::exclusive)
    parprim::exclusive_scan(policy, x, out, a.init, Op{});
  else
    parprim::segmented_inclusive_scan(
        policy, x, parprim::device_span<const std::uint8_t>(a.flags, a.n), out, Op{});
}

template <class In, class Out, class Op, matrix_primitive P>
Out parprim_call(const matrix_args<In, Out>& a) {
  const auto policy = parprim::cuda.on(bench_stream());
  const parprim::device_span<const In> x(a.x, a.n);
  if constexpr (P == matrix_primitive::reduce) {
    if (!a.device_only) return parprim::reduce(policy, x, a.init, Op{});
    parprim::reduce_into(policy.nosync(), x, parprim::device_span<Out>(a.result, 1), a.init, Op{});
  } else if (a.device_only) {
    parprim_scan<In, Out, Op, P>(policy.nosync(), a);
  } else {
    parprim_scan<In, Out, Op, P>(policy, a);
  }
  return Out{};
}

}  // namespace parprim_bench::cuda
