#pragma once
/// \file
/// \brief Inclusive warp scan with shuffles (Kogge-Stone in registers): after the step with
/// offset `o`, lane `l` holds the fold of lanes [l - 2o + 1, l]. Lane `l` only ever combines
/// values of lower lanes, in order, so any associative operator works, and when the lanes
/// holding values are a prefix of the warp the others need no identity: whatever they hold,
/// no lane of the prefix reads it.

#include <parprim/backends/cuda/warp/shuffle.cuh>

namespace parprim::detail::cuda {

/// \brief Lane `l` gets `v_0 op v_1 op ... op v_l`. Every lane of the warp must call it.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, unsigned lane, const Op& op) {
#pragma unroll
  for (unsigned offset = 1; offset < warp_threads; offset *= 2) {
    const T lower = shuffle_up(v, offset);
    if (lane >= offset) v = static_cast<T>(op(lower, v));
  }
  return v;
}

}  // namespace parprim::detail::cuda
