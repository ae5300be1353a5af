#pragma once
/// \file
/// \brief Scan rung 3: the thread-coarsened three-phase block scan (PMPP, "thread
/// coarsening"). The block loads B * C elements into shared memory with coalesced loads
/// (thread t reads t, t + B, ...); phase 1: each thread scans its own section of C consecutive
/// elements sequentially (work-efficient, no barrier); phase 2: Kogge-Stone over the B section
/// totals (rung 1, on B values instead of B * C); phase 3: each element gets the fold of the
/// sections before its own. O(B C + B log B) work for B C elements, few barriers.
///
/// Phase 1 has thread t walk addresses t*C, t*C + 1, ...: without care 32 threads of a warp hit
/// the same few shared-memory banks (C-way conflicts). One padding slot after every 32 values
/// spreads the sections over all banks (`padded`).

#include <cstddef>

#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/block/tile_kogge_stone.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>

namespace parprim::detail::cuda {

/// \brief The rung-3 tile: BlockSize threads, `Coarsening` consecutive elements per section.
template <unsigned BlockSize, unsigned Coarsening, class Problem>
struct tile_coarsened_three_phase {
  using V = typename Problem::value_type;
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned coarsening = Coarsening;
  static constexpr unsigned tile_size = BlockSize * Coarsening;
  /// Index j with one padding slot after every 32 values (conflict-free phase 1).
  __device__ static constexpr unsigned padded(unsigned j) { return j + j / 32; }
  struct storage {
    shared_array<V, tile_size + tile_size / 32> x;
    shared_array<V, BlockSize> sections_a;
    shared_array<V, BlockSize> sections_b;
  };
  static_assert(sizeof(storage) <= 48 * 1024,
                "parprim CUDA scan rungs 1-3 keep a tile in shared memory (at most 48 KiB): this "
                "value type is too large for this rung; use rung 4, 5 or 6 (the default)");

  V* x = nullptr;
  V* sections = nullptr;  // inclusive scan of the section totals
  unsigned len = 0;
  unsigned heads = 0;  // bit k: element t + k * BlockSize starts a segment

  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned n_valid,
                    storage& s) {
    static_assert(Coarsening <= 32, "heads are a 32-bit mask");
    const unsigned t = threadIdx.x;
    len = n_valid;
    x = s.x.get();
    heads = 0;
#pragma unroll
    for (unsigned k = 0; k < Coarsening; ++k) {  // coalesced: consecutive threads, consecutive j
      const unsigned j = t + k * BlockSize;
      const V v = p.load(first + (j < len ? j : 0));
      if (j < len && Problem::is_head(v)) heads |= 1u << k;
      x[padded(j)] = v;
    }
    __syncthreads();
    // phase 1: my section, sequentially
    const unsigned begin = t * Coarsening;
    V acc = x[padded(begin)];
#pragma unroll
    for (unsigned k = 1; k < Coarsening; ++k) {
      acc = static_cast<V>(op(acc, x[padded(begin + k)]));
      x[padded(begin + k)] = acc;
    }
    s.sections_a[t] = acc;
    // phase 2: Kogge-Stone over the section totals (barriers inside)
    sections = kogge_stone_shared(s.sections_a.get(), s.sections_b.get(), BlockSize, op);
    return at(len - 1, op);
  }

  /// \brief The in-tile inclusive scan at j (phase 3, done on demand).
  __device__ V at(unsigned j, const Op& op) const {
    const unsigned section = j / Coarsening;
    return section == 0 ? x[padded(j)] : static_cast<V>(op(sections[section - 1], x[padded(j)]));
  }

  __device__ void emit(const Problem& p, const Op& op, std::size_t first, const maybe<V>& carry,
                       bool final, std::size_t tile) const {
#pragma unroll
    for (unsigned k = 0; k < Coarsening; ++k) {
      const unsigned j = threadIdx.x + k * BlockSize;
      if (j >= len) continue;
      const maybe<V> e = combine(carry, maybe<V>{at(j > 0 ? j - 1 : 0, op), j > 0}, op);
      const maybe<V> i = combine(carry, maybe<V>{at(j, op), true}, op);
      p.store(first + j, ((heads >> k) & 1u) != 0, e.has, e.value, i.value, final, tile);
    }
  }
};

}  // namespace parprim::detail::cuda
