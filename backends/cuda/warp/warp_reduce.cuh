#pragma once
/// \file
/// \brief Warp reductions with shuffles: no shared memory, no `volatile` (the lecture's
/// implicitly synchronous last warp is a data race since Volta's independent scheduling).
///
/// Both take the number of lanes holding a value, `valid` (lanes [0, valid), 1 <= valid <=
/// 32), so partial warps need no identity element; the result is in lane 0.

#include <parprim/backends/cuda/warp/shuffle.cuh>

namespace parprim::detail::cuda {

/// \brief Order-preserving: lane 0 gets `v_0 op v_1 op ... op v_{valid-1}`. Neighbours are
/// paired first (offsets 1, 2, 4, 8, 16), the interleaved tree: after the step with offset
/// `o`, lane `l` holds the fold of lanes [l, l + 2o), so any associative operator works.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_ordered(T v, unsigned lane, unsigned valid, Op op) {
#pragma unroll
  for (unsigned offset = 1; offset < warp_threads; offset *= 2) {
    const T other = shuffle_down(v, offset);
    if (lane + offset < valid) v = static_cast<T>(op(v, other));
  }
  return v;
}

/// \brief Halving (offsets 16, 8, ..., 1), the sequential-addressing tree in registers:
/// lane `l` combines lanes `l, l + 16, ...`; needs a commutative operator.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_halving(T v, unsigned lane, unsigned valid, Op op) {
#pragma unroll
  for (unsigned offset = warp_threads / 2; offset > 0; offset /= 2) {
    const T other = shuffle_down(v, offset);
    if (lane + offset < valid) v = static_cast<T>(op(v, other));
  }
  return v;
}

}  // namespace parprim::detail::cuda
