#pragma once
/// \file
/// \brief Scan rung 2: Brent-Kung in a block: B threads scan 2B elements with an up-sweep (a
/// reduction tree: after level s, element (k+1) 2s - 1 holds the fold of its 2s-element
/// block) and a down-sweep (each partial fold is pushed s places right into the element that
/// still lacks it). About 2 (2B) operations instead of Kogge-Stone's 2B log2(2B), but
/// 2 log2(2B) steps, each with a barrier, and more and more idle threads per step.
///
/// Every combination takes the lower index as its left operand: order preserved.

#include <cstddef>

#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>

namespace parprim::detail::cuda {

/// \brief The rung-2 tile: 2 * BlockSize elements, two per thread (t and t + BlockSize).
template <unsigned BlockSize, class Problem>
struct tile_brent_kung {
  using V = typename Problem::value_type;
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned tile_size = 2 * BlockSize;
  struct storage {
    shared_array<V, 2 * BlockSize> x;
  };
  static_assert(sizeof(storage) <= 48 * 1024,
                "parprim CUDA scan rungs 1-3 keep a tile in shared memory (at most 48 KiB): this "
                "value type is too large for this rung; use rung 4, 5 or 6 (the default)");

  V* scanned = nullptr;
  unsigned len = 0;
  bool own_head[2] = {false, false};

  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned n_valid,
                    storage& s) {
    constexpr unsigned size = 2 * BlockSize;
    const unsigned t = threadIdx.x;
    len = n_valid;
    V* x = s.x.get();
#pragma unroll
    for (unsigned k = 0; k < 2; ++k) {
      const unsigned j = t + k * BlockSize;
      const V v = p.load(first + (j < len ? j : 0));
      own_head[k] = j < len && Problem::is_head(v);
      x[j] = v;
    }
    // up-sweep
    for (unsigned stride = 1; stride < size; stride *= 2) {
      __syncthreads();
      const unsigned idx = (t + 1) * 2 * stride - 1;
      if (idx < size) x[idx] = static_cast<V>(op(x[idx - stride], x[idx]));
    }
    // down-sweep
    for (unsigned stride = size / 4; stride > 0; stride /= 2) {
      __syncthreads();
      const unsigned idx = (t + 1) * 2 * stride - 1;
      if (idx + stride < size) x[idx + stride] = static_cast<V>(op(x[idx], x[idx + stride]));
    }
    __syncthreads();
    scanned = x;
    return x[len - 1];
  }

  __device__ void emit(const Problem& p, const Op& op, std::size_t first, const maybe<V>& carry,
                       bool final, std::size_t tile) const {
#pragma unroll
    for (unsigned k = 0; k < 2; ++k) {
      const unsigned j = threadIdx.x + k * BlockSize;
      if (j >= len) continue;
      const maybe<V> e = combine(carry, maybe<V>{j > 0 ? scanned[j - 1] : scanned[0], j > 0}, op);
      const maybe<V> i = combine(carry, maybe<V>{scanned[j], true}, op);
      p.store(first + j, own_head[k], e.has, e.value, i.value, final, tile);
    }
  }
};

}  // namespace parprim::detail::cuda
