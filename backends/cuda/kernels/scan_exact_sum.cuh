#pragma once
/// \file
/// \brief parprim::exact_plus scans on the GPU: every output is the exact prefix sum of its
/// operands rounded once, the host scans' bits (detail/exact_scan.hpp, docs/reproducible.md).
///
/// Two launches over one wave of blocks; warp w of the grid owns a contiguous run of whole
/// warp tiles (32 lanes x 128 bytes: 1024 floats, 512 doubles, as the exact sum):
/// 1. `scan_exact_partials_kernel`: each warp's exact sum, as kernels/reduce_exact_sum.cuh
///    computes it, into a superaccumulator per warp, and the block's as digit words. A warp
///    reads its tiles last first, so what L2 still holds when the launch ends is the start of
///    every warp's run, which launch 2 reads first.
/// 2. `scan_exact_sum_kernel`: block b adds the digit words of the blocks before it as the exact
///    sum's last block does (sum_digit_words), and `start` (an exclusive scan's init, a carry);
///    thread 0 adds the block's warps before each warp. So every warp starts from the exact
///    sum `A` of everything before its run (a superaccumulator in shared memory), and scans its
///    tiles in order, each from shared memory: a warp keeps `exact_scan_tuning::stages` tiles
///    there, the next ones arriving by bulk copies (the TMA) while it scans one (an aligned
///    array on sm_90; other inputs are loaded by the lanes and written there), so a lane holds
///    one row of its tile at a time and writes its outputs row by row:
///    - the tile is surveyed and sliced as the exact sum does (`exact::plan_levels`); lane 0
///      reads `A` once as `a_hi = RN(A)`, `a_lo = RN(A - a_hi)` and picks the host's prefix
///      mode (`exact::choose_mode`);
///    - lane l reads 128-byte rows of the tile as 16-byte vectors (vector k*32 + l), so the
///      running slice sums are a lane's own sums within its vector plus an inclusive scan
///      across the lanes (shuffles) plus the rows before: all sums of slices of the tile,
///      exact in any grouping (a tile of one slice scans its eight rows' sums side by side);
///    - every output is `exact::prefix_value` of `a_hi`, `a_lo` and those exact doubles, the
///      host's code, or for float results in checked mode `float_tile_proof` (the host's
///      proof against the tile's bound, in integer operations) and, where that fails, the tile
///      again with each output's own bound: proved correctly rounded, or the tile fails. A
///      float tile that fails (a prefix too close to a rounding boundary, subnormal, zero) is
///      scanned again with each output its bounds do not prove rounded from the exact prefix
///      (the warp's superaccumulator plus the output's slice sums); a tile that fails that too
///      (a zero of unknown sign), a double tile that fails, or a tile the slices do not cover
///      goes element by element (exact, only slower): float results on all lanes, 32
///      consecutive elements each after a scan of the lanes' superaccumulators; double results
///      on lane 0, which adds each element to `A` and rounds it. Then `A` takes the tile's slice
///      sums; it is carried from tile to tile in doubles (see warp_prefix) and read from the
///      superaccumulator only now and then.
/// Every output is the exact prefix rounded once, so the bits do not depend on the grid, the
/// tile, the GPU or the stream, and equal the host backends'.

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/block/shared_tree.cuh>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/kernels/reduce_exact_sum.cuh>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_chunk.hpp>
#include <parprim/detail/exact_scan.hpp>

/// A development hook: the scan kernel names the paths it takes here (0: a read of the
/// superaccumulator, 1: the exact-output pass, 2: a float tile's bound failed, 3: a carried
/// prefix failed, 4: a tile element by element, 5 + the prefix mode, 8 / 9: a warp's run begins
/// / ends, 10 + the tile's slices). dev/exact_scan_paths.cu counts them; here it is nothing.
#ifndef PARPRIM_EXACT_SCAN_EVENT
#define PARPRIM_EXACT_SCAN_EVENT(kind) ((void)0)
#endif

namespace parprim::detail::cuda {

/// \brief Launch shape of the exact scans: 256 threads; the scan kernel's registers (the running
/// slice sums of a row, the proofs' bounds) allow two blocks per multiprocessor; each warp
/// stages up to `stages` tiles in shared memory (the one it scans and the next one in flight;
/// one where a block may not hold two a warp: 72 KiB with floats, more than sm_75 allows).
/// `waves`: the launches' grid in waves of blocks (more waves, shorter warp runs: 2-8 were never
/// faster on the H100, doubles up to 2x slower; docs/results/h100/exact-scan-waves/).
struct exact_scan_tuning {
  static constexpr unsigned block_size = 256;
  static constexpr unsigned scan_blocks_per_sm = 2;
  static constexpr unsigned stages = 2;
  static constexpr unsigned waves = 1;
};

/// \brief A warp's stages in dynamic shared memory: the barriers their bulk loads complete on,
/// then `stages` tiles in sequence order (stage s holds the warp's tiles s, s + stages, ...).
template <class F>
struct exact_scan_stages {
  static constexpr std::size_t tile_bytes = exact_warp_tile_v<F> * sizeof(F);
  static constexpr std::size_t barrier_bytes = 16;  // (the tiles 16-byte aligned)
  static_assert(exact_scan_tuning::stages * sizeof(std::uint64_t) <= barrier_bytes);

  /// \brief Bytes of a warp's stages.
  __host__ __device__ static constexpr std::size_t warp_bytes(unsigned stages) {
    return barrier_bytes + stages * tile_bytes;
  }

  std::uint64_t* barrier;
  unsigned char* tiles;

  /// \brief The stages at `base` (16-byte aligned).
  __device__ explicit exact_scan_stages(unsigned char* base)
      : barrier(reinterpret_cast<std::uint64_t*>(base)), tiles(base + barrier_bytes) {}
  __device__ F* tile(unsigned s) const { return reinterpret_cast<F*>(tiles + s * tile_bytes); }
};

/// \brief Elements of `F` in a 16-byte vector: lane l's row k of a tile is vector k*32 + l.
template <class F>
inline constexpr unsigned exact_vector_v = 16 / sizeof(F);

/// \brief body(j, i) for each of a lane's `Items` elements of the warp tile at `t`: register
/// j = k*V + e holds element i = t + (k*32 + lane)*V + e.
template <class F, unsigned Items, class Body>
__device__ void for_each_tile_element(std::size_t t, unsigned lane, Body body) {
  constexpr unsigned v = exact_vector_v<F>;
#pragma unroll
  for (unsigned k = 0; k < Items / v; ++k)
#pragma unroll
    for (unsigned e = 0; e < v; ++e) body(k * v + e, t + (k * warp_threads + lane) * v + e);
}

/// \brief Loads the warp tile at `t` (elements past `end` are -0): x[k*V + e] is element
/// t + (k*32 + lane)*V + e, with 16-byte loads where the input is an aligned array and the tile
/// whole.
template <class F, class Load, unsigned Items>
__device__ void load_scan_tile(const Load& load, std::size_t t, std::size_t end, unsigned lane,
                               bool aligned, F (&x)[Items]) {
  if constexpr (direct_load_v<Load, F>) {
    if (aligned && end - t >= exact_warp_tile_v<F>) {
      load_tile_vectors(load.in + t, lane, x);
      return;
    }
  }
  for_each_tile_element<F, Items>(
      t, lane, [&](unsigned j, std::size_t i) { x[j] = i < end ? load(i) : -F(0); });
}

/// \brief Loads the warp tile at `t` (elements past `end` are -0) by the lanes and writes it to
/// `stage` (shared memory) in the tile's order (every lane calls; the tile is there on return).
template <class F, class Load>
__device__ void stage_tile_by_lanes(const Load& load, std::size_t t, std::size_t end, unsigned lane,
                                    bool aligned, F* stage) {
  constexpr unsigned v = exact_vector_v<F>;
  F x[exact_items_v<F>];
  load_scan_tile(load, t, end, lane, aligned, x);
#pragma unroll
  for (unsigned k = 0; k < exact_items_v<F> / v; ++k) {
    vector16<F> w;
#pragma unroll
    for (unsigned e = 0; e < v; ++e) w.v[e] = x[k * v + e];
    reinterpret_cast<vector16<F>*>(stage)[k * warp_threads + lane] = w;
  }
  __syncwarp();
}

/// \brief Where a tile's outputs go: element t + j to out[t + j] for t + j < end, by 16-byte
/// stores where the tile is whole and `out` aligned.
template <class F>
struct tile_output {
  F* out;
  std::size_t t;
  std::size_t end;
  bool aligned;

  /// \brief Row k of lane `lane` (elements t + (k*32 + lane)*V + e).
  __device__ void store_row(unsigned k, unsigned lane, const vector16<F>& y) const {
    constexpr unsigned v = exact_vector_v<F>;
    const std::size_t first = t + std::size_t(k * warp_threads + lane) * v;
    if (aligned && end - t >= exact_warp_tile_v<F>) {
      reinterpret_cast<vector16<F>*>(out + t)[k * warp_threads + lane] = y;
      return;
    }
#pragma unroll
    for (unsigned e = 0; e < v; ++e)
      if (first + e < end) out[first + e] = y.v[e];
  }
};

/// \brief Row k of lane `lane` of a tile in shared memory (elements (k*32 + lane)*V + e).
template <class F>
__device__ __forceinline__ vector16<F> tile_row(const F* tile, unsigned k, unsigned lane) {
  return reinterpret_cast<const vector16<F>*>(tile)[k * warp_threads + lane];
}

/// \brief exact::round_prefix_in_chunk's proof in integer operations on the bits of the double
/// approximation u of a float prefix: u's distance to the float midpoint next to it, in units
/// of u's last place, is |low 29 bits - 2^28|, and the tile's bound in those units is `margin`
/// (the bound in units of the last place of a double of the smallest binade `lowest`, rounded
/// up) halved for each binade u lies above it. Fails where round_prefix_in_chunk fails, and
/// where the rounded-up margin is one unit too wide.
struct float_tile_proof {
  unsigned lowest_field;  ///< the double exponent field of `lowest`
  unsigned max_shift;     ///< binades a prefix may lie above `lowest` (up to 2^126)
  unsigned margin;        ///< below 2^26: the bound is below a quarter of the float's last place

  __device__ explicit float_tile_proof(const exact::chunk_bound& b)
      : lowest_field(unsigned(__builtin_bit_cast(std::uint64_t, b.lowest) >> 52)),
        max_shift(0),
        // (the quotient of a power of two is exact; truncated, plus one: at least its ceiling)
        margin(unsigned(b.bound / b.lowest * 0x1p52) + 1u) {
    constexpr unsigned top_field = 1023u + 126u;  // 2^126, as round_prefix_in_chunk
    if (lowest_field <= top_field)
      max_shift = top_field - lowest_field;
    else
      lowest_field = 2048u;  // no binade allowed: every shift wraps above max_shift
  }

  /// \brief 0 if the float nearest to u is the exact prefix's (see exact::round_prefix).
  __device__ unsigned fails(double u) const {
    const auto bits = __builtin_bit_cast(std::uint64_t, u);
    const unsigned shift = (unsigned(bits >> 52) & 0x7ffu) - lowest_field;  // (wraps below)
    const int low = int(unsigned(bits) & 0x1fffffffu) - (1 << 28);
    const unsigned distance = unsigned(low < 0 ? -low : low);
    return (shift > max_shift) | (distance <= __funnelshift_rc(margin, 0u, shift));
  }
};

/// \brief The prefix `sum + s[0] + ... + s[Levels - 1]` (the warp's superaccumulator and the
/// exact slice sums of the tile up to an output) rounded once into `out`: an output no bound
/// could prove. 1 where that prefix is zero and `zero_unknown` (its sign then depends on
/// operands this does not see), else 0. Out of line: its copy of the superaccumulator and the
/// rounding would crowd the registers of the pass that calls it, for the few outputs that
/// take it.
template <int Levels, class F>
__device__ __noinline__ std::uint64_t exact_output(const exact_accumulator<F>& sum, const double* s,
                                                   std::uint64_t zero_unknown, F& out) {
  exact_accumulator<F> prefix = sum;
  for (int l = 0; l < Levels; ++l) prefix.add_exact_double(s[l]);
  if (prefix.holds_zero()) {
    out = F(0);  // +0: an operand other than -0 came before (zero_unknown is 0)
    return zero_unknown;
  }
  out = prefix.template round<F>();
  return 0;
}

/// \brief sum = RN(a + b); returns the exact error a + b - sum (TwoSum).
__device__ __forceinline__ double two_sum(double a, double b, double& sum) {
  const double s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  const double e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
  sum = s;
  return e;
}

/// \brief The fast path of a tile (see the file comment): `to` receives every output (row by
/// row, also when a later row fails: the caller then writes them all again) and `sums` the
/// tile's `Levels` slice sums; false (on every lane) if an output could not be
/// proved. `zero_unknown`: as exact::prefix_value. Float results in checked mode are proved
/// against the tile's bound (float_tile_proof), and with `PrefixBounds` an output that bound
/// cannot prove against its own (exact::round_prefix), which the caller tries only when the
/// tile's bound alone fails: its branch in every output's path costs more than the retry.
/// With `ExactOutputs` (checked mode, `exact_sum` the superaccumulator of everything before
/// the tile) an output that no bound proves is rounded from the exact prefix (exact_output),
/// so only a zero prefix of unknown sign fails.
template <int Levels, exact::prefix_mode Mode, bool Exclusive, bool PrefixBounds = false,
          bool ExactOutputs = false, class F>
__device__ bool scan_tile_slices(const F* tile, int top, double a_hi, double a_lo, double a_err,
                                 std::uint64_t zero_unknown, unsigned lane,
                                 const tile_output<F>& to, double (&sums)[exact::max_levels],
                                 const exact_accumulator<F>* exact_sum = nullptr) {
  constexpr unsigned all = 0xffffffffu;
  constexpr unsigned v = exact_vector_v<F>;
  constexpr unsigned rows = exact_items_v<F> / v;
  const tile_slicer<Levels> slicer(top);
  double carry[Levels];  // the rows before, the same on every lane
#pragma unroll
  for (int l = 0; l < Levels; ++l) carry[l] = 0.0;
  // float results proved against one bound for the tile, computed once (as the host's chunks)
  constexpr bool tile_bounded = Mode == exact::prefix_mode::checked && sizeof(F) == 4;
  exact::chunk_bound bound{};
  if constexpr (tile_bounded) bound = exact::float_chunk_bound<Levels>(a_hi, a_lo, top);
  [[maybe_unused]] const float_tile_proof proof(bound);
  std::uint64_t failed = 0;
  // the slices of lane `lane`'s elements in row k and their running sums within its vector
  const auto slice_row = [&](unsigned k, double(&q)[v][Levels], double(&run)[v][Levels]) {
    const vector16<F> x = tile_row(tile, k, lane);
#pragma unroll
    for (unsigned e = 0; e < v; ++e) {
      slicer.slice(static_cast<double>(x.v[e]), q[e]);
#pragma unroll
      for (int l = 0; l < Levels; ++l)
        run[e][l] = e == 0 ? q[e][l] : __dadd_rn(run[e - 1][l], q[e][l]);
    }
  };
  // row k's outputs, `before` the sums of the row's lanes before this one and the rows before
  const auto finish_row = [&](unsigned k, const double(&before)[Levels],
                              const double(&q)[v][Levels], const double(&run)[v][Levels]) {
    vector16<F> y;
#pragma unroll
    for (unsigned e = 0; e < v; ++e) {
      double s[Levels];
#pragma unroll
      for (int l = 0; l < Levels; ++l)
        s[l] = Exclusive ? __dadd_rn(before[l], __dsub_rn(run[e][l], q[e][l]))
                         : __dadd_rn(before[l], run[e][l]);
      if constexpr (tile_bounded && PrefixBounds) {
        // where the tile's bound cannot prove it (it is loosest near zero), the prefix's own
        std::uint64_t f = exact::round_prefix_in_chunk<Levels>(a_hi, s, bound, y.v[e]);
        if (f != 0) f = exact::round_prefix<Levels>(a_hi, a_lo, s, y.v[e]);
        if constexpr (ExactOutputs)
          if (f != 0) f = exact_output<Levels>(*exact_sum, s, zero_unknown, y.v[e]);
        failed |= f;
      } else if constexpr (tile_bounded) {
        double u = __dadd_rn(a_hi, s[0]);
#pragma unroll
        for (int l = 1; l < Levels; ++l) u = __dadd_rn(u, s[l]);
        y.v[e] = __double2float_rn(u);
        failed |= proof.fails(u);
      } else
        failed |= exact::prefix_value<Levels, Mode>(a_hi, a_lo, s, y.v[e], zero_unknown, a_err);
    }
    // (a tile whose proof fails is written again, element by element)
    to.store_row(k, lane, y);
  };
  if constexpr (Levels == 1) {
    // one slice: every row's sums first, their scans across the lanes side by side (independent
    // chains of shuffles), then each row again from shared memory for its outputs
    double before[rows][1];
    {
      double total[rows], inclusive[rows];
#pragma unroll
      for (unsigned k = 0; k < rows; ++k) {
        double q[v][1], run[v][1];
        slice_row(k, q, run);
        total[k] = inclusive[k] = run[v - 1][0];
      }
#pragma unroll
      for (unsigned offset = 1; offset < warp_threads; offset *= 2)
#pragma unroll
        for (unsigned k = 0; k < rows; ++k) {
          const double o = __shfl_up_sync(all, inclusive[k], offset);
          if (lane >= offset) inclusive[k] = __dadd_rn(inclusive[k], o);
        }
#pragma unroll
      for (unsigned k = 0; k < rows; ++k) {
        before[k][0] = __dadd_rn(carry[0], __dsub_rn(inclusive[k], total[k]));
        carry[0] = __dadd_rn(carry[0], __shfl_sync(all, inclusive[k], warp_threads - 1));
      }
    }
#pragma unroll
    for (unsigned k = 0; k < rows; ++k) {
      double q[v][1], run[v][1];
      slice_row(k, q, run);
      finish_row(k, before[k], q, run);
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < rows; ++k) {
      double q[v][Levels], run[v][Levels];
      slice_row(k, q, run);
      double before[Levels];
#pragma unroll
      for (int l = 0; l < Levels; ++l) {
        double inclusive = run[v - 1][l];
#pragma unroll
        for (unsigned offset = 1; offset < warp_threads; offset *= 2) {
          const double o = __shfl_up_sync(all, inclusive, offset);
          if (lane >= offset) inclusive = __dadd_rn(inclusive, o);
        }
        before[l] = __dadd_rn(carry[l], __dsub_rn(inclusive, run[v - 1][l]));
        carry[l] = __dadd_rn(carry[l], __shfl_sync(all, inclusive, warp_threads - 1));
      }
      finish_row(k, before, q, run);
    }
  }
#pragma unroll
  for (int l = 0; l < Levels; ++l) sums[l] = carry[l];
  return __any_sync(all, failed != 0) == 0;
}

/// \brief scan_tile_slices out of line, for float results in checked mode with the prefixes'
/// own bounds: taken only where a tile's bound fails; inlined, its code and registers would
/// crowd the path every other tile takes. (Tiles of two or three slices stay inline: out of
/// line, the call cost 11 % on float inputs with exponents over -20..20 and 5 % on doubles.)
template <int Levels, bool Exclusive, class F>
__device__ __noinline__ bool scan_tile_prefix_bounds(const F* tile, int top, double a_hi,
                                                     double a_lo, unsigned lane,
                                                     const tile_output<F>& to,
                                                     double (&sums)[exact::max_levels]) {
  return scan_tile_slices<Levels, exact::prefix_mode::checked, Exclusive, true>(
      tile, top, a_hi, a_lo, 0.0, 0, lane, to, sums);
}

/// \brief A tile again after its fast path failed, in checked mode, every output that no
/// bound proves rounded from the exact prefix (`exact_sum`, everything before the tile: the
/// warp's superaccumulator, flushed). Fails only on a zero prefix of unknown sign. Float
/// results, `levels` 1 to 3; out of line, as scan_tile_prefix_bounds.
template <bool Exclusive, class F>
__device__ __noinline__ bool scan_tile_exact_outputs(int levels, const F* tile, int top,
                                                     double a_hi, double a_lo,
                                                     std::uint64_t zero_unknown, unsigned lane,
                                                     const tile_output<F>& to,
                                                     double (&sums)[exact::max_levels],
                                                     const exact_accumulator<F>& exact_sum) {
  const auto slices = [&](auto levels_constant) {
    constexpr int L = decltype(levels_constant)::value;
    return scan_tile_slices<L, exact::prefix_mode::checked, Exclusive, true, true>(
        tile, top, a_hi, a_lo, 0.0, zero_unknown, lane, to, sums, &exact_sum);
  };
  if (levels == 1) return slices(std::integral_constant<int, 1>{});
  if (levels == 2) return slices(std::integral_constant<int, 2>{});
  return slices(std::integral_constant<int, 3>{});
}

/// \brief scan_tile_slices for the run-time number of slices and mode; float results in
/// checked mode are tried against the tile's bound alone first, then with the prefixes' own.
template <bool Exclusive, class F>
__device__ bool scan_tile_fast(int levels, exact::prefix_mode mode, const F* tile, int top,
                               double a_hi, double a_lo, double a_err, std::uint64_t zero_unknown,
                               unsigned lane, const tile_output<F>& to,
                               double (&sums)[exact::max_levels]) {
  using exact::prefix_mode;
  const auto with_levels = [&](auto m) {
    constexpr prefix_mode M = decltype(m)::value;
    constexpr bool retry = M == prefix_mode::checked && sizeof(F) == 4;
    const auto slices = [&](auto levels_constant) {
      constexpr int L = decltype(levels_constant)::value;
      bool proved = scan_tile_slices<L, M, Exclusive>(tile, top, a_hi, a_lo, a_err, zero_unknown,
                                                      lane, to, sums);
      if constexpr (retry)
        if (!proved) {
          PARPRIM_EXACT_SCAN_EVENT(2);
          proved = scan_tile_prefix_bounds<L, Exclusive>(tile, top, a_hi, a_lo, lane, to, sums);
        }
      return proved;
    };
    if (levels == 1) return slices(std::integral_constant<int, 1>{});
    if (levels == 2) return slices(std::integral_constant<int, 2>{});
    return slices(std::integral_constant<int, 3>{});
  };
  if (mode == prefix_mode::exact_double)
    return with_levels(std::integral_constant<prefix_mode, prefix_mode::exact_double>{});
  if constexpr (sizeof(F) == 8)
    if (mode == prefix_mode::exact_pair)
      return with_levels(std::integral_constant<prefix_mode, prefix_mode::exact_pair>{});
  return with_levels(std::integral_constant<prefix_mode, prefix_mode::checked>{});
}

/// \brief The exact sum before a warp's next tile: the superaccumulator `acc` (shared memory,
/// lane 0's) plus `pending`, the slice sums of the fast tiles not yet added to it; and, while
/// `known`, that sum read as `a_hi + a_lo` (exactly if `exact`; for float results after a
/// checked tile, `a_hi` within 2 |a_lo| of it; for double results within `a_err` more than a
/// read leaves). After a fast tile whose prefix mode was exact (exact_double, exact_pair) the
/// new sum is known exactly without reading the superaccumulator: `a_hi + S_0 + S_1 + S_2`
/// (exact_double), or `r + e` from the TwoSums of exact_pair; after a checked tile,
/// approximately with its error bound (add_tile: float results in doubles, double results as a
/// double-double). Only a tile after an element-by-element one or one whose bound grew too
/// wide reads it (rounding 6 or 34 limbs on lane 0), and a tile whose carried prefix fails a
/// proof. Warp-uniform (every lane holds the same).
template <class F>
struct warp_prefix {
  warp_digits<F> pending;
  unsigned pending_tiles;
  bool pending_nonzero;  ///< a fast tile held an operand other than -0
  bool known;
  bool exact;
  bool nonzero;  ///< an operand other than -0 came before (a zero prefix is then +0)
  double a_hi;
  double a_lo;
  double a_err;  ///< double results: |A - a_hi - a_lo| <= a_err + what a read leaves

  __device__ void clear() {
    pending.clear();
    pending_tiles = 0;
    pending_nonzero = false;
    known = false;
  }

  /// \brief Adds `pending` to `acc` (every lane calls).
  __device__ void flush(exact_accumulator<F>& acc, unsigned lane) {
    if (pending_tiles == 0 && !pending_nonzero) return;
    pending.add_to(acc, lane);
    if (lane == 0 && pending_nonzero) acc.state |= exact_accumulator<F>::not_only_negative_zeros;
    pending.clear();
    pending_tiles = 0;
    pending_nonzero = false;
    __syncwarp();
  }

  /// \brief Reads the sum from `acc` (after flush); `known` stays false where it is an
  /// infinity, a NaN or beyond the doubles.
  __device__ void read(exact_accumulator<F>& acc, unsigned lane) {
    constexpr unsigned all = 0xffffffffu;
    PARPRIM_EXACT_SCAN_EVENT(0);
    flush(acc, lane);
    int ok = 0, is_exact = 0, is_nonzero = 0;
    bool read_exact = false;
    if (lane == 0 && !acc.special() && exact::read_prefix(acc, a_hi, a_lo, read_exact)) {
      ok = 1;
      is_exact = read_exact ? 1 : 0;
      is_nonzero = (acc.state & exact_accumulator<F>::not_only_negative_zeros) != 0 ? 1 : 0;
    }
    known = __shfl_sync(all, ok, 0) != 0;
    exact = __shfl_sync(all, is_exact, 0) != 0;
    nonzero = __shfl_sync(all, is_nonzero, 0) != 0;
    a_hi = __shfl_sync(all, a_hi, 0);
    a_lo = __shfl_sync(all, a_lo, 0);
    a_err = 0;
  }

  /// \brief After a fast tile with slice sums `sums` computed in `mode`.
  __device__ void add_tile(const double (&sums)[exact::max_levels], int levels,
                           exact::prefix_mode mode, bool tile_nonzero, unsigned lane) {
    for (int l = 0; l < levels; ++l) pending.add(sums[l], lane);
    pending_nonzero |= tile_nonzero;
    nonzero |= tile_nonzero;
    if (++pending_tiles == (1u << 28)) known = false;  // (3 additions a tile: flush before 2^30)
    if (mode != exact::prefix_mode::checked) {
      exact::advance_exact_prefix(a_hi, a_lo, sums, levels, mode);
    } else if constexpr (sizeof(F) == 4) {
      // checked, float results: the prefixes' proof only needs |A - a_hi| <= 2 |a_lo|
      // (round_prefix), which a read leaves true (a_lo = RN(A - a_hi)). Adding the exact slice
      // sums in double errs by at most 2^-53 of each partial sum, so a_hi + S_0 + ... with
      // a_lo grown by half that keeps it true (the factor covers this sum's own roundings). The
      // sum is read again when a_lo nears the proofs' margin: a prefix within 2 |a_lo| of a
      // float midpoint cannot be proved (2^-48 |a_hi|: about one tile in 4096 would fail).
      double u = a_hi, size = 0;
      for (int l = 0; l < levels; ++l) {
        u += sums[l];
        size += fabs(u);
      }
      a_lo = (fabs(a_lo) + 0x1p-54 * size) * (1.0 + 0x1p-50);
      a_hi = u;
      exact = false;
      known = a_lo <= 0x1p-48 * fabs(a_hi);  // (false for a zero, an infinity or a NaN)
    } else {
      // checked, double results: A carried as a double-double, each slice sum added to a_hi by
      // TwoSum, whose exact error goes into a_lo by TwoSum, whose error goes into the bound
      // a_err; then a_hi, a_lo renormalized (exactly). A read that was not exact left A within
      // 2^-53 |a_lo| of a_hi + a_lo, which goes into a_err too. round_prefix takes a_err into
      // its bound. The sum is read again when a_err passes 2^-90 |a_hi| (each tile adds about
      // 2^-106 |a_hi| a slice; a prefix near a_hi in magnitude then fails its proof about once
      // in 2^36, and a tile that fails is tried again from an exact read).
      double u = a_hi, c = a_lo, err = a_err + (exact ? 0.0 : 0x1p-53 * fabs(a_lo));
      bool sums_exact = exact;
      for (int l = 0; l < levels; ++l) {
        const double e = two_sum(u, sums[l], u);
        const double rest = two_sum(c, e, c);
        err += fabs(rest);
        sums_exact &= rest == 0;
      }
      a_lo = two_sum(u, c, a_hi);
      a_err = err * (1.0 + 0x1p-50);
      exact = sums_exact;
      known = a_err <= 0x1p-90 * fabs(a_hi) && fabs(a_hi) <= 0x1p1000;  // (false for a NaN)
    }
  }
};

/// \brief A lane's elements of a warp tile in shared memory, row by row (x[k*V + e] is element
/// (k*32 + lane)*V + e).
template <class F, unsigned Items>
__device__ void read_tile_rows(const F* tile, unsigned lane, F (&x)[Items]) {
  constexpr unsigned v = exact_vector_v<F>;
#pragma unroll
  for (unsigned k = 0; k < Items / v; ++k) {
    const vector16<F> w = tile_row(tile, k, lane);
#pragma unroll
    for (unsigned e = 0; e < v; ++e) x[k * v + e] = w.v[e];
  }
}

/// \brief `a` of lane `lane - offset` (every lane calls; lanes below `offset` get their own).
template <class F>
__device__ exact_accumulator<F> shuffle_accumulator_up(const exact_accumulator<F>& a,
                                                       unsigned offset) {
  constexpr unsigned all = 0xffffffffu;
  exact_accumulator<F> o;
#pragma unroll
  for (int k = 0; k < exact_accumulator<F>::limb_count; ++k)
    o.limb[k] = __shfl_up_sync(all, a.limb[k], offset);
  o.state = __shfl_up_sync(all, a.state, offset);
  return o;
}

/// \brief `count` elements of the tile from `first`, in order, onto `run`: each output the
/// rounded running sum before (exclusive) or after (inclusive) its element.
template <bool Exclusive, class F>
__device__ __forceinline__ void scan_tile_elements(exact_accumulator<F>& run, const F* tile,
                                                   const tile_output<F>& to, std::size_t first,
                                                   std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) {
    const F element = tile[first + j];
    if (Exclusive) to.out[to.t + first + j] = run.template round<F>();
    run.add(element);
    if (!Exclusive) to.out[to.t + first + j] = run.template round<F>();
  }
}

/// \brief The number of the warp tile's elements `to` writes (the last tile may be short).
template <class F>
__device__ __forceinline__ std::size_t tile_count(const tile_output<F>& to) {
  return to.end - to.t < exact_warp_tile_v<F> ? to.end - to.t : exact_warp_tile_v<F>;
}

/// \brief A tile element by element, exactly (the fallback of scan_surveyed_tile): lane l
/// takes the tile's elements [l * m, (l + 1) * m), m = tile / 32; the lanes' superaccumulators
/// of their elements are scanned across the warp (shuffles, merges), each lane adds `acc` (the
/// warp's superaccumulator in shared memory, everything before the tile) and the lanes before
/// it, then adds its elements one by one and rounds each prefix; the last lane leaves
/// `acc` + the tile in `acc`. The same bits as adding the tile's elements to `acc` in order on
/// one lane (the value and the flags are sums and unions: their grouping does not matter), 3-6
/// times faster on the H200 (float results). Out of line: its superaccumulators stay out of
/// the registers of the path every other tile takes.
template <bool Exclusive, class F>
__device__ __noinline__ void scan_tile_by_lanes(const F* tile, const tile_output<F>& to,
                                                unsigned lane, exact_accumulator<F>& acc) {
  constexpr unsigned per_lane = unsigned(exact_warp_tile_v<F>) / warp_threads;
  const std::size_t count = tile_count(to);
  const unsigned first = lane * per_lane;
  // the lane's elements (-0 past the end, which adds nothing and leaves the flags alone)
  exact_accumulator<F> run{};
  for (unsigned j = 0; j < per_lane; ++j) run.add(tile[first + j]);
  // inclusive scan across the lanes, then the lanes before this one and `acc`
  for (unsigned offset = 1; offset < warp_threads; offset *= 2) {
    const exact_accumulator<F> lower = shuffle_accumulator_up(run, offset);
    if (lane >= offset) run.merge(lower);
  }
  exact_accumulator<F> before = shuffle_accumulator_up(run, 1);
  if (lane == 0) before = exact_accumulator<F>{};
  run = acc;
  run.merge(before);
  scan_tile_elements<Exclusive>(
      run, tile, to, first,
      count <= first ? 0 : (count - first < per_lane ? count - first : per_lane));
  // (past the end, -0s: the last lane's sum is `acc` + the tile's elements without them)
  __syncwarp();  // (every lane has read `acc`)
  if (lane == warp_threads - 1) acc = run;
  __syncwarp();
}

/// \brief exact::prefix_value's `zero_unknown` for a tile's prefixes: a zero prefix is +0 when an
/// operand other than -0 came before it: before the tile (`nonzero_before`), or (inclusive) the
/// tile's first element, which every prefix of the tile holds; else its sign is unknown (1).
template <bool Exclusive, class F>
__device__ __forceinline__ std::uint64_t zero_sign_unknown(const F* tile, bool nonzero_before) {
  using bits = typename ieee_format<F>::bits_type;
  constexpr bits negative_zero = bits{1} << (8 * sizeof(F) - 1);
  const bool first_nonzero = __builtin_bit_cast(bits, tile[0]) != negative_zero;
  return nonzero_before || (!Exclusive && first_nonzero) ? 0 : 1;
}

/// \brief Scans the warp tile at `t` (elements before `end`; `tile` its elements in shared
/// memory, -0 past `end`; `survey` its tile_survey) after the sum `prefix` (with `acc`, the
/// warp's superaccumulator in shared memory): fast path, or element by element.
template <bool Exclusive, class F>
__device__ void scan_surveyed_tile(const exact::chunk_survey& survey, const F* tile,
                                   const tile_output<F>& to, unsigned lane,
                                   exact_accumulator<F>& acc, warp_prefix<F>& prefix) {
  int top = 0;
  const int levels = exact::plan_levels<F>(survey, top);
  PARPRIM_EXACT_SCAN_EVENT(10 + levels);
  // (a prefix carried from the tiles before that fails a proof is read exactly and tried again)
  for (int attempt = 0; levels > 0 && attempt < 2; ++attempt) {
    const bool carried = prefix.known;
    if (!carried) prefix.read(acc, lane);
    if (!prefix.known) break;
    const exact::prefix_mode mode =
        exact::choose_mode<F>(survey, levels, top, prefix.a_hi, prefix.a_lo, prefix.exact);
    PARPRIM_EXACT_SCAN_EVENT(5 + int(mode));
    const std::uint64_t zero_unknown = zero_sign_unknown<Exclusive>(tile, prefix.nonzero);
    double sums[exact::max_levels];
    // (double results carry an error bound in checked mode; float results none)
    const double a_err = sizeof(F) == 8 ? prefix.a_err : 0.0;
    if (scan_tile_fast<Exclusive>(levels, mode, tile, top, prefix.a_hi, prefix.a_lo, a_err,
                                  zero_unknown, lane, to, sums)) {
      prefix.add_tile(sums, levels, mode, survey.not_only_negative_zeros, lane);
      return;
    }
    if (carried) {
      PARPRIM_EXACT_SCAN_EVENT(3);
      prefix.known = false;
      continue;
    }
    // float results: an output no bound proves from the exact read (a prefix very near a
    // rounding boundary, as a few of 2^28 random ones are) is rounded from the exact prefix, in
    // a pass over the tile again. (Double results carry about 50 bits beyond the result's, and
    // fail where a float's 29 would not; their call site alone spills the kernel's registers.)
    if constexpr (sizeof(F) == 4) {
      PARPRIM_EXACT_SCAN_EVENT(1);
      prefix.flush(acc, lane);
      if (scan_tile_exact_outputs<Exclusive>(levels, tile, top, prefix.a_hi, prefix.a_lo,
                                             zero_unknown, lane, to, sums, acc)) {
        prefix.add_tile(sums, levels, exact::prefix_mode::checked, survey.not_only_negative_zeros,
                        lane);
        return;
      }
    }
    break;
  }
  PARPRIM_EXACT_SCAN_EVENT(4);
  // element by element (every output written again)
  prefix.flush(acc, lane);
  prefix.known = false;
  __syncwarp();  // (the other lanes' stores of a failed fast path come first)
  if constexpr (sizeof(F) == 4) {
    scan_tile_by_lanes<Exclusive>(tile, to, lane, acc);
  } else {
    // double results on lane 0, in sequence order: scan_tile_by_lanes' call site spills the
    // kernel's registers for doubles (7-11 % slower on tiles that never take it, H200)
    if (lane == 0) scan_tile_elements<Exclusive>(acc, tile, to, 0, tile_count(to));
    __syncwarp();
  }
}

/// \brief scan_surveyed_tile with the tile's survey taken here.
template <bool Exclusive, class F>
__device__ void scan_warp_tile(const F* tile, const tile_output<F>& to, unsigned lane,
                               exact_accumulator<F>& acc, warp_prefix<F>& prefix) {
  exact::chunk_survey survey;
  {
    F x[exact_items_v<F>];
    read_tile_rows(tile, lane, x);
    survey = tile_survey(x);
  }
  scan_surveyed_tile<Exclusive>(survey, tile, to, lane, acc, prefix);
}

/// \brief Warp w of the grid owns elements [w * per_warp, (w + 1) * per_warp) (whole warp
/// tiles; the last run ends at n).
inline __device__ void warp_run(std::size_t n, std::size_t per_warp, unsigned warps,
                                std::size_t& first, std::size_t& last) {
  const std::size_t w = std::size_t(blockIdx.x) * warps + threadIdx.x / warp_threads;
  first = w * per_warp;
  last = first >= n ? first : (n - first < per_warp ? n : first + per_warp);
}

/// \brief Launch 1 (see the file comment): the exact sum of every warp's run into
/// `warp_sums`, and of every block's into `block_words` (its digit words: word_count a block).
template <unsigned BlockSize, class Load, class F>
__global__ void __launch_bounds__(BlockSize, exact_sum_tuning::blocks_per_sm<F>)
    scan_exact_partials_kernel(Load load, std::size_t n, std::size_t per_warp,
                               exact_accumulator<F>* warp_sums, std::int64_t* block_words) {
  constexpr unsigned warps = BlockSize / warp_threads;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  std::size_t first = 0, last = 0;
  warp_run(n, per_warp, warps, first, last);
  constexpr unsigned words = warp_digits<F>::word_count;
  warp_digits<F> digits;
  const std::uint64_t state =
      fold_warp_tiles<F, true>(load, first, last, exact_warp_tile_v<F>, lane, digits);
  __shared__ std::int64_t warp_words[warps][words];
  __shared__ std::int64_t total[words];
  __shared__ std::int64_t scratch[BlockSize];
  // (as store_block_digit_words, with each warp's superaccumulator resolved by its lane 0
  // between the warp's store and the block's sum)
  digits.store(warp_words[warp], state, lane);
  __syncwarp();
  if (lane == 0)
    warp_sums[std::size_t(blockIdx.x) * warps + warp] =
        accumulator_of_digit_words<F>(warp_words[warp]);
  __syncthreads();
  sum_digit_words<BlockSize, F>(
      warps, [&](unsigned b, unsigned k) { return warp_words[b][k]; }, total, scratch);
  for (unsigned k = threadIdx.x; k < words; k += BlockSize)
    block_words[std::size_t(blockIdx.x) * words + k] = total[k];
}

/// \brief Launch 2 (see the file comment): every warp's run scanned from the exact sum of
/// `start` and everything before it, through `stages` (1 or 2) tiles a warp in dynamic shared
/// memory (`exact_scan_stages<F>::warp_bytes(stages)` a warp).
/// `MinBlocks`: the blocks per multiprocessor the registers are capped for.
template <unsigned BlockSize, bool Exclusive, class Load, class F,
          unsigned MinBlocks = exact_scan_tuning::scan_blocks_per_sm>
__global__ void __launch_bounds__(BlockSize, MinBlocks)
    scan_exact_sum_kernel(Load load, F* out, std::size_t n, std::size_t per_warp,
                          const exact_accumulator<F>* warp_sums, const std::int64_t* block_words,
                          exact_accumulator<F> start, unsigned stages) {
  constexpr unsigned warps = BlockSize / warp_threads;
  constexpr unsigned words = warp_digits<F>::word_count;
  constexpr std::size_t tile = exact_warp_tile_v<F>;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  __shared__ exact_accumulator<F> before[warps];
  __shared__ std::int64_t total[words];
  __shared__ std::int64_t scratch[BlockSize];
  sum_digit_words<BlockSize, F>(
      blockIdx.x, [&](unsigned b, unsigned k) { return block_words[std::size_t(b) * words + k]; },
      total, scratch);
  if (threadIdx.x == 0) {
    exact_accumulator<F> acc = accumulator_of_digit_words<F>(total);
    acc.merge(start);
    before[0] = acc;
    for (unsigned w = 1; w < warps; ++w) {
      acc.merge(warp_sums[std::size_t(blockIdx.x) * warps + w - 1]);
      before[w] = acc;
    }
  }
  __syncthreads();
  std::size_t first = 0, last = 0;
  warp_run(n, per_warp, warps, first, last);
  bool in_aligned = false;
  if constexpr (direct_load_v<Load, F>)
    in_aligned = reinterpret_cast<std::uintptr_t>(load.in) % 16 == 0;
  const bool out_aligned = reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  // the warp's stages (dynamic shared memory): whole tiles of an aligned array come by bulk
  // copies, `stages` tiles ahead; others are loaded by the lanes
  constexpr unsigned tile_bytes = unsigned(exact_scan_stages<F>::tile_bytes);
  const exact_scan_stages<F> stage(dynamic_shared<unsigned char>() +
                                   warp * exact_scan_stages<F>::warp_bytes(stages));
  bool bulk = false;
  if constexpr (direct_load_v<Load, F> && bulk_copy_available) bulk = in_aligned;
  const auto start_load = [&](std::size_t t, unsigned s) {
    if constexpr (direct_load_v<Load, F>) {
      if (bulk && lane == 0 && t < last && last - t >= tile) {
        bulk_barrier_expect(&stage.barrier[s], tile_bytes);
        bulk_load(stage.tile(s), load.in + t, tile_bytes, &stage.barrier[s]);
      }
    }
  };
  if (bulk && lane == 0)
    for (unsigned s = 0; s < stages; ++s) bulk_barrier_init(&stage.barrier[s]);
  __syncwarp();
  for (unsigned s = 0; s < stages; ++s) start_load(first + s * tile, s);
  warp_prefix<F> prefix;
  prefix.clear();
  PARPRIM_EXACT_SCAN_EVENT(8);
  unsigned i = 0;
  for (std::size_t t = first; t < last; t += tile, ++i) {
    const unsigned s = i % stages;
    F* buffer = stage.tile(s);
    if (bulk && last - t >= tile) {
      bulk_barrier_wait(&stage.barrier[s], (i / stages) & 1u);
    } else {
      stage_tile_by_lanes(load, t, last, lane, in_aligned, buffer);
    }
    scan_warp_tile<Exclusive>(buffer, tile_output<F>{out, t, last, out_aligned}, lane, before[warp],
                              prefix);
    __syncwarp();  // (every lane has read the stage before it is loaded again)
    start_load(t + stages * tile, s);
  }
  PARPRIM_EXACT_SCAN_EVENT(9);
}

}  // namespace parprim::detail::cuda
