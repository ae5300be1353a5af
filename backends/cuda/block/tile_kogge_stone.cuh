#pragma once
/// \file
/// \brief Scan rung 1: Kogge-Stone in a block, one element per thread, double-buffered.
///
/// Step `o` (1, 2, 4, ...): every thread t >= o combines the element o places to its left with
/// its own, reading one buffer and writing the other (so no thread overwrites a value another
/// still has to read: no second barrier per step). log2(B) steps of B operations each:
/// O(B log B) work for B elements, against O(B) sequentially; the steps are few and every
/// thread is busy in each, which is why it is fast for short arrays and wasteful for long ones.

#include <cstddef>

#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>

namespace parprim::detail::cuda {

/// \brief Kogge-Stone over `count` values in `a` (count <= blockDim.x; one per thread, thread t
/// owns index t), using `b` as the second buffer. Returns the buffer holding the inclusive
/// scan. Every thread of the block calls it; begins and ends with a barrier.
template <class V, class Op>
__device__ V* kogge_stone_shared(V* a, V* b, unsigned count, const Op& op) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  for (unsigned offset = 1; offset < count; offset *= 2) {
    if (t < count) b[t] = t >= offset ? static_cast<V>(op(a[t - offset], a[t])) : a[t];
    __syncthreads();
    V* swap = a;
    a = b;
    b = swap;
  }
  return a;
}

/// \brief The rung-1 tile: `BlockSize` elements, one per thread.
template <unsigned BlockSize, class Problem>
struct tile_kogge_stone {
  using V = typename Problem::value_type;
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned tile_size = BlockSize;
  struct storage {
    shared_array<V, BlockSize> a;
    shared_array<V, BlockSize> b;
  };
  static_assert(sizeof(storage) <= 48 * 1024,
                "parprim CUDA scan rungs 1-3 keep a tile in shared memory (at most 48 KiB): this "
                "value type is too large for this rung; use rung 4, 5 or 6 (the default)");

  V* scanned = nullptr;
  unsigned len = 0;
  bool own_head = false;

  /// \brief Loads elements [first, first + len) and scans them; returns their fold (every
  /// thread). 1 <= len <= tile_size.
  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned n_valid,
                    storage& s) {
    const unsigned t = threadIdx.x;
    len = n_valid;
    const V x = p.load(first + (t < len ? t : 0));  // past the end: a copy, never read
    own_head = t < len && Problem::is_head(x);
    s.a[t] = x;
    scanned = kogge_stone_shared(s.a.get(), s.b.get(), BlockSize, op);
    return scanned[len - 1];
  }

  /// \brief Hands element t's results to the problem, `carry` folded in front.
  __device__ void emit(const Problem& p, const Op& op, std::size_t first, const maybe<V>& carry,
                       bool final, std::size_t tile) const {
    const unsigned t = threadIdx.x;
    if (t >= len) return;
    const maybe<V> e = combine(carry, maybe<V>{t > 0 ? scanned[t - 1] : scanned[0], t > 0}, op);
    const maybe<V> i = combine(carry, maybe<V>{scanned[t], true}, op);
    p.store(first + t, own_head, e.has, e.value, i.value, final, tile);
  }
};

}  // namespace parprim::detail::cuda
