#pragma once
/// \file
/// \brief The register-blocked tile of scan rungs 4 and 5: `BlockSize` threads, `Items`
/// elements per thread, held in registers from load to store.
///
/// Layout. A warp owns 32 * Items consecutive elements, in `rows` of 32 * Vec: in each row,
/// lane l holds the Vec consecutive elements l*Vec .. l*Vec + Vec - 1, where Vec elements are 16
/// bytes of input. So every load and store instruction of the warp moves 512 consecutive
/// bytes (fully coalesced, one 16-byte access per lane), and the scan works row by row:
/// 1. each thread scans its Vec elements of each row sequentially;
/// 2. per row, the warp scans the thread totals with shuffles (warp/warp_scan.cuh); the row
///    totals are folded in row order, giving each row its prefix within the warp;
/// 3. warp totals meet in shared memory and warp 0 scans them with shuffles;
/// 4. (`emit`) each element gets carry op (warps before) op (rows before) op (lanes before) op
///    (its run so far): one application of the operator per element.
/// Segmented problems keep each element's value in registers and its head flag in a bitmask
/// (one register per thread, not one per element): step 1 restarts a run at a head, the warp
/// scan carries (value, head) pairs per thread, and step 4 folds the prefix only into the
/// elements before the run's first head.
/// Two barriers per tile. (A thread holding Items *consecutive* elements would need a shuffle
/// scan per 64 bytes instead of per 16, but its 16-byte accesses would leave half of every
/// sector to the next instruction: measured 3x slower on the H200.) The elements of a partial
/// tile are a prefix in this order, and every scan only reads lower lanes, so no identity
/// element is needed.

#include <cstddef>
#include <type_traits>

#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/warp/warp_scan.cuh>

namespace parprim::detail::cuda {

/// \brief Elements of `In` in one 16-byte access: 16 / sizeof(In) for types that move as raw
/// words (contiguous_io.cuh: user structs of 4 or 8 bytes too, fewer warp scans per element),
/// else 1.
template <class In>
inline constexpr unsigned vector_items_v = raw_words_v<In> && 16 % sizeof(In) == 0
                                               ? static_cast<unsigned>(16 / sizeof(In))
                                               : 1u;

/// \brief Elements per thread: 16 for values of 4 bytes or less, 8 up to 16 bytes, 4 above
/// (register pressure: 16 flagged pairs took 123 registers, two blocks per SM), and at least
/// one 16-byte vector of input.
template <class In, class V>
inline constexpr unsigned register_items_v =
    (sizeof(V) <= 4 ? 16u : (sizeof(V) <= 16 ? 8u : 4u)) < vector_items_v<In>
        ? vector_items_v<In>
        : (sizeof(V) <= 4 ? 16u : (sizeof(V) <= 16 ? 8u : 4u));

template <unsigned BlockSize, unsigned Items, unsigned Vec, class Problem>
struct tile_registers {
  using V = typename Problem::value_type;
  using E = typename Problem::element_type;
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned items = Items;
  static constexpr unsigned vec = Vec;
  static constexpr unsigned rows = Items / Vec;
  static constexpr unsigned row_size = warp_threads * Vec;
  static constexpr unsigned warp_size = warp_threads * Items;
  static constexpr unsigned tile_size = BlockSize * Items;
  static constexpr unsigned warps = BlockSize / warp_threads;
  /// Blocks per SM its kernels ask the compiler to fit (`__launch_bounds__`): a register cap of
  /// 64 for 256 threads of 4-byte elements, 0 (no cap) otherwise. A block idles through its
  /// look-back (rung 5) or its carry (rung 4); the other blocks of the SM must keep the memory
  /// busy. Measured on the H200 (dev/segmented_sweep.cu, 2^28 int32): plain 256 x 28 676 us
  /// capped (64 registers, no spill) against 699 us with 74 registers, 3 blocks per SM;
  /// segmented 256 x 24 1,044 against 1,127 us (75 registers).
  static constexpr unsigned min_blocks_per_sm = BlockSize == 256 && sizeof(E) <= 4 ? 4u : 0u;
  static_assert(BlockSize % warp_threads == 0 && warps <= warp_threads && Items <= 32 &&
                    Items % Vec == 0,
                "tile_registers: block size a multiple of 32, at most 1024; at most 32 items, "
                "a multiple of the vector width");
  struct storage {
    shared_array<V, warps> warp_scan;  // inclusive scan of the warp totals
  };

  E v[rows][Vec];        // after scan(): each row's run, scanned (restarting at heads)
  unsigned heads = 0;    // bit r * Vec + j: that element starts a segment
  unsigned count[rows];  // elements of each row's run (0 past the end of the tile)
  // The fold of the tile's elements before each row's run: its value, and bit r of `before_has`
  // (the fold is not empty) and of `before_head` (it holds a head): bits, not a bool per row, to
  // keep the registers the tile holds through the look-back few.
  E before_value[rows];
  unsigned before_has = 0;
  unsigned before_head = 0;

  /// \brief Loads elements [first, first + len) and scans them; returns their fold (every
  /// thread). 1 <= len <= tile_size. Ends with a barrier; call `sync_for_reuse` before the
  /// block reuses `s`.
  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned len, storage& s) {
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    const unsigned warp_first = warp * warp_size;
    const unsigned warp_len =
        warp_first < len ? (len - warp_first < warp_size ? len - warp_first : warp_size) : 0;
    const std::size_t base = first + warp_first + lane * Vec;
    load(p, first, base, warp_len, lane);
    const auto eop = p.element_op();

    // 1-2: runs, then per row a warp scan; rows folded in order
    maybe<V> rows_before{Problem::make(v[0][0], false), false};
    V warp_total = rows_before.value;
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
#pragma unroll
      for (unsigned j = 1; j < Vec; ++j)
        if (j < count[r] && !head_at(r, j)) v[r][j] = static_cast<E>(eop(v[r][j - 1], v[r][j]));
      E run_total = v[r][0];
#pragma unroll
      for (unsigned j = 1; j < Vec; ++j)
        if (j < count[r]) run_total = v[r][j];
      const V run = Problem::make(run_total, Problem::segmented && run_heads(r) != 0);
      const unsigned row_first = r * row_size;
      const unsigned row_len =
          row_first < warp_len ? (warp_len - row_first < row_size ? warp_len - row_first : row_size)
                               : 0;
      const V scanned = warp_inclusive_scan(run, lane, op);
      const V lanes_before = shuffle_up(scanned, 1);
      const unsigned lanes_valid = (row_len + Vec - 1) / Vec;
      const V row_total = shuffle_from(scanned, lanes_valid > 0 ? lanes_valid - 1 : 0);
      set_before(r, combine(rows_before, maybe<V>{lanes_before, lane > 0}, op));
      if (row_len > 0) {
        rows_before = combine(rows_before, maybe<V>{row_total, true}, op);
        warp_total = rows_before.value;
      }
    }

    // 3: warp totals
    const unsigned warps_valid = (len + warp_size - 1) / warp_size;
    if (lane == 0 && warp < warps_valid) s.warp_scan[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
      const V w = s.warp_scan[lane < warps_valid ? lane : 0];
      const V ws = warp_inclusive_scan(w, lane, op);
      __syncwarp();  // every lane has read its slot (lanes past the end read slot 0) first
      if (lane < warps_valid) s.warp_scan[lane] = ws;
    }
    __syncthreads();
    if (warp > 0) {
      const maybe<V> warps_before{s.warp_scan[warp - 1], true};
#pragma unroll
      for (unsigned r = 0; r < rows; ++r) set_before(r, combine(warps_before, before(r), op));
    }
    return s.warp_scan[warps_valid - 1];
  }

  /// \brief The fold of elements [first, first + len) (rung 4's first pass).
  __device__ V reduce(const Problem& p, const Op& op, std::size_t first, unsigned len, storage& s) {
    return scan(p, op, first, len, s);
  }

  /// \brief The barrier to pass before `s` is used for the next tile.
  __device__ static void sync_for_reuse() {
    __syncthreads();
  }

  /// \brief Stores the tile: each element gets `carry op before[r] op v[r][j]` (for a
  /// segmented problem the prefix reaches only the elements before the run's first head).
  __device__ void emit(const Problem& p, const Op& op, std::size_t first,
                       const maybe<V>& carry) const {
    // Inclusive or exclusive is the same for every element: one branch, not one per element.
    if (p.exclusive)
      emit_rows(p, op, first, carry, [&](bool own_head, bool has_e, const E& e, const E& incl) {
        return p.template output_as<true>(own_head, has_e, e, incl);
      });
    else
      emit_rows(p, op, first, carry, [&](bool own_head, bool has_e, const E& e, const E& incl) {
        return p.template output_as<false>(own_head, has_e, e, incl);
      });
  }

 private:
  template <class Output>
  __device__ void emit_rows(const Problem& p, const Op& op, std::size_t first,
                            const maybe<V>& carry, const Output& output) const {
    using T = decltype(p.template output_as<false>(false, false, v[0][0], v[0][0]));
    const auto eop = p.element_op();
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    const std::size_t base = first + warp * warp_size + lane * Vec;
    constexpr unsigned all = (1u << Vec) - 1u;
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
      if (count[r] == 0) continue;
      const maybe<V> pre = combine(carry, before(r), op);
      const E pre_value = Problem::element_of(pre.value);
      // bit j: element j takes the prefix (every element, or those before the run's first head)
      unsigned takes = pre.has ? all : 0u;
      if constexpr (Problem::segmented) {
        const unsigned h = run_heads(r);
        takes &= h != 0 ? (h & (0u - h)) - 1u : all;
      }
      T o[Vec];
#pragma unroll
      for (unsigned j = 0; j < Vec; ++j) {
        const E incl = (takes >> j) & 1u ? static_cast<E>(eop(pre_value, v[r][j])) : v[r][j];
        const E e = j == 0                    ? pre_value
                    : (takes >> (j - 1)) & 1u ? static_cast<E>(eop(pre_value, v[r][j - 1]))
                                              : v[r][j - 1];
        o[j] = output(head_at(r, j), j > 0 || pre.has, e, incl);
      }
      const std::size_t i = base + r * row_size;
      if (count[r] == Vec) {
        p.store_run(i, o);
      } else {
#pragma unroll
        for (unsigned j = 0; j < Vec; ++j)
          if (j < count[r]) p.store_one(i + j, o[j]);
      }
    }
  }

  __device__ maybe<V> before(unsigned r) const {
    return {Problem::make(before_value[r], ((before_head >> r) & 1u) != 0),
            ((before_has >> r) & 1u) != 0};
  }
  __device__ void set_before(unsigned r, const maybe<V>& b) {
    before_value[r] = Problem::element_of(b.value);
    before_has = (before_has & ~(1u << r)) | (b.has ? 1u << r : 0u);
    if constexpr (Problem::segmented)
      before_head = (before_head & ~(1u << r)) | (Problem::is_head(b.value) ? 1u << r : 0u);
  }

  /// \brief Whether element j of row r starts a segment (never, for plain problems).
  __device__ bool head_at(unsigned r, unsigned j) const {
    if constexpr (Problem::segmented)
      return ((heads >> (r * Vec + j)) & 1u) != 0;
    else
      return false;
  }
  /// \brief The head bits of row r's run.
  __device__ unsigned run_heads(unsigned r) const {
    return (heads >> (r * Vec)) & ((1u << Vec) - 1u);
  }

  __device__ void load(const Problem& p, std::size_t first, std::size_t base, unsigned warp_len,
                       unsigned lane) {
    heads = 0;
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
      const unsigned mine = r * row_size + lane * Vec;
      count[r] = mine < warp_len ? (warp_len - mine < Vec ? warp_len - mine : Vec) : 0;
      const std::size_t i = base + r * row_size;
      if (count[r] == Vec) {
        unsigned h = 0;
        p.load_run(i, v[r], h);
        heads |= h << (r * Vec);
      } else {
        bool h = false;
        v[r][0] = p.load_element(count[r] > 0 ? i : first, h);  // past the end: never read
        if (count[r] > 0 && h) heads |= 1u << (r * Vec);
#pragma unroll
        for (unsigned j = 1; j < Vec; ++j) {
          h = false;
          v[r][j] = j < count[r] ? p.load_element(i + j, h) : v[r][0];
          if (h) heads |= 1u << (r * Vec + j);
        }
      }
    }
  }
};

}  // namespace parprim::detail::cuda
