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

/// \brief Elements of `In` in one 16-byte access (1 for types that are not arithmetic).
template <class In>
inline constexpr unsigned vector_items_v = std::is_arithmetic_v<In> && 16 % sizeof(In) == 0
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
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned items = Items;
  static constexpr unsigned vec = Vec;
  static constexpr unsigned rows = Items / Vec;
  static constexpr unsigned row_size = warp_threads * Vec;
  static constexpr unsigned warp_size = warp_threads * Items;
  static constexpr unsigned tile_size = BlockSize * Items;
  static constexpr unsigned warps = BlockSize / warp_threads;
  static_assert(BlockSize % warp_threads == 0 && warps <= warp_threads && Items <= 32 &&
                    Items % Vec == 0,
                "tile_registers: block size a multiple of 32, at most 1024; at most 32 items, "
                "a multiple of the vector width");
  struct storage {
    shared_array<V, warps> warp_scan;  // inclusive scan of the warp totals
  };

  V v[rows][Vec];         // after scan(): each row's run, scanned
  unsigned heads = 0;     // bit r * Vec + j: that element starts a segment
  unsigned count[rows];   // elements of each row's run (0 past the end of the tile)
  maybe<V> before[rows];  // fold of the tile's elements before each row's run

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

    heads = 0;
#pragma unroll
    for (unsigned r = 0; r < rows; ++r)
#pragma unroll
      for (unsigned j = 0; j < Vec; ++j)
        if (j < count[r] && Problem::is_head(v[r][j])) heads |= 1u << (r * Vec + j);

    // 1-2: runs, then per row a warp scan; rows folded in order
    maybe<V> rows_before{v[0][0], false};
    V warp_total = v[0][0];
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
#pragma unroll
      for (unsigned j = 1; j < Vec; ++j)
        if (j < count[r]) v[r][j] = static_cast<V>(op(v[r][j - 1], v[r][j]));
      V run_total = v[r][0];
#pragma unroll
      for (unsigned j = 1; j < Vec; ++j)
        if (j < count[r]) run_total = v[r][j];
      const unsigned row_first = r * row_size;
      const unsigned row_len =
          row_first < warp_len ? (warp_len - row_first < row_size ? warp_len - row_first : row_size)
                               : 0;
      const V scanned = warp_inclusive_scan(run_total, lane, op);
      const V lanes_before = shuffle_up(scanned, 1);
      const unsigned lanes_valid = (row_len + Vec - 1) / Vec;
      const V row_total = shuffle_from(scanned, lanes_valid > 0 ? lanes_valid - 1 : 0);
      before[r] = combine(rows_before, maybe<V>{lanes_before, lane > 0}, op);
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
      for (unsigned r = 0; r < rows; ++r) before[r] = combine(warps_before, before[r], op);
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

  /// \brief Stores the tile: each element gets `carry op before[r] op v[r][j]`.
  __device__ void emit(const Problem& p, const Op& op, std::size_t first,
                       const maybe<V>& carry) const {
    using T = decltype(p.output(false, false, v[0][0], v[0][0]));
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    const std::size_t base = first + warp * warp_size + lane * Vec;
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
      if (count[r] == 0) continue;
      const maybe<V> pre = combine(carry, before[r], op);
      T o[Vec];
      V prev = pre.value;
      bool has_prev = pre.has;
#pragma unroll
      for (unsigned j = 0; j < Vec; ++j) {
        const V incl = pre.has ? static_cast<V>(op(pre.value, v[r][j])) : v[r][j];
        o[j] = p.output(((heads >> (r * Vec + j)) & 1u) != 0, has_prev, prev, incl);
        prev = incl;
        has_prev = true;
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

 private:
  __device__ void load(const Problem& p, std::size_t first, std::size_t base, unsigned warp_len,
                       unsigned lane) {
#pragma unroll
    for (unsigned r = 0; r < rows; ++r) {
      const unsigned mine = r * row_size + lane * Vec;
      count[r] = mine < warp_len ? (warp_len - mine < Vec ? warp_len - mine : Vec) : 0;
      const std::size_t i = base + r * row_size;
      if (count[r] == Vec) {
        p.load_run(i, v[r]);
      } else {
        v[r][0] = p.load(count[r] > 0 ? i : first);  // past the end: a copy, never read
#pragma unroll
        for (unsigned j = 1; j < Vec; ++j) v[r][j] = j < count[r] ? p.load(i + j) : v[r][0];
      }
    }
  }
};

}  // namespace parprim::detail::cuda
