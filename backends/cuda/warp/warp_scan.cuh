#pragma once
/// \file
/// \brief Inclusive warp scan with shuffles (Kogge-Stone in registers): after the step with
/// offset `o`, lane `l` holds the fold of lanes [l - 2o + 1, l]. Lane `l` only ever combines
/// values of lower lanes, in order, so any associative operator works, and when the lanes
/// holding values are a prefix of the warp the others need no identity: whatever they hold,
/// no lane of the prefix reads it.

#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/detail/segmented.hpp>

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

/// \brief The segmented warp scan with heads by one ballot: lane `l` gets the fold of lanes
/// [s, l], where s is the last lane <= l holding a head (0 if none; `start` receives it), and
/// the result says whether any lane <= l holds one. Each step shuffles the value only, and lane
/// `l` takes lane `l - o`'s value when that lane is in its segment: `l - o >= s`. (After the step
/// with offset `o`, lane `l` holds the fold of lanes [max(s, l - 2o + 1), l]; a lane `l - o >= s`
/// has the same `s`.) Every lane of the warp must call it.
template <class T, class Op>
__device__ __forceinline__ bool warp_segmented_inclusive_scan(T& x, bool head, unsigned lane,
                                                              const Op& op, unsigned& start) {
  const unsigned heads = __ballot_sync(full_warp_mask, head);
  const unsigned upto = heads & (0xffffffffu >> (warp_threads - 1 - lane));  // lanes <= lane
  start = upto != 0 ? warp_threads - 1 - __clz(upto) : 0;
#pragma unroll
  for (unsigned offset = 1; offset < warp_threads; offset *= 2) {
    const T lower = shuffle_up(x, offset);
    if (lane >= start + offset) x = static_cast<T>(op(lower, x));
  }
  return upto != 0;
}

/// \brief The flag operator's warp scan (warp_segmented_inclusive_scan): the same result as the
/// generic scan with `flag_op`, the heads travelling by one ballot.
template <class T, class Op>
__device__ __forceinline__ flagged<T> warp_inclusive_scan(flagged<T> v, unsigned lane,
                                                          const flag_op<Op>& f) {
  unsigned start = 0;
  const bool head = warp_segmented_inclusive_scan(v.value, v.head, lane, f.op, start);
  return {v.value, head};
}

}  // namespace parprim::detail::cuda
