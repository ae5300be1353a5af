#pragma once
/// \file
/// \brief Scratch (dev/ only), an experiment kept with its measurements
/// (docs/results/h200/exact-scan-dd-look-back/): parprim::exact_plus scans on the GPU in one pass:
/// the input read once, each block tile's prefix found by a decoupled look-back that carries the
/// sum before it as two doubles and an error bound (`exact_dd`), not as a superaccumulator. Outputs
/// are the two-launch scan's (kernels/scan_exact_sum.cuh), bit for bit: every one the exact prefix
/// rounded once.
///
/// One block of `Warps` warps (exact_one_pass_tuning) a block tile, taken by ticket, several
/// blocks an SM (a block's look-back overlaps the others' scans). For each block tile:
/// 1. each warp loads its warp tile into shared memory (a bulk copy where it can), surveys and
///    slices it (exact::plan_levels, as the two-launch scan) and adds its slices up
///    (`tile_slice_sums`: exact doubles), then the warps' sums are scanned in order into the
///    block tile's sum, as `exact_dd`s;
/// 2. warp 0 publishes that sum and finds the block tile's prefix by the fixed tree of the
///    deterministic plain scans (look_back_fixed_tree: the totals of complete groups of 32^k
///    tiles before it, each published by the group's last tile; a bounded number of round
///    trips, no chain through the tiles' prefixes);
/// 3. each warp scans its tile from the block's prefix plus the warps before it with the
///    two-launch scan's tile code (scan_tile_fast): an exact prefix (`err` 0) takes the exact
///    modes where they apply, otherwise every output is proved correctly rounded against the
///    error bound. A float tile whose proofs fail from an exact prefix is scanned again with
///    each unproved output rounded from a superaccumulator of `hi + lo` and its slice sums
///    (scan_tile_exact_outputs).
///
/// What it cannot do it hands over whole: a tile the slices do not cover (exponents too far
/// apart, an infinity or a NaN), a sum beyond 2^1000, a proof that fails from an inexact
/// prefix, a double tile whose proof fails, a zero prefix of unknown sign. The tile then
/// *poisons* its sum (`exact_dd::poisoned`, which every later prefix inherits) and sets the
/// call's `redo` status word (exact_redo_word); later tickets skip their tiles' loads and scans,
/// and the two-launch scan, enqueued behind this kernel in the library's form of c5669f0, ran
/// only then and wrote every output again (here the kernel runs alone). So the input must not
/// overlap the output (that form took the two launches for in-place calls). Every output either way
/// is the exact prefix rounded once: the bits do not depend on which path a call took, on the grid,
/// the GPU or the timing of the look-back.

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/detail/exact_scan_launch.cuh>
#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>
#include <parprim/backends/cuda/kernels/scan_exact_sum.cuh>

namespace parprim::detail::cuda {

/// \brief The word the one-pass scan leaves in its status memory for a call of `epoch` that
/// it hands over: a status word's form (`epoch << 2 | kind`) with a kind no look-back
/// publishes, so no earlier call's word equals it.
__host__ __device__ constexpr unsigned exact_redo_word(unsigned epoch) {
  return epoch << 2 | 3u;
}

/// \brief A sum carried by the one-pass look-back: `hi + lo` within `err` of the exact sum,
/// `hi` = RN(hi + lo); `err` 0: exactly the sum (then `hi`, `lo` are what exact::read_prefix
/// of a superaccumulator gives).
struct exact_dd {
  double hi;
  double lo;
  double err;
  unsigned flags;
  static constexpr unsigned nonzero = 1;   ///< an operand other than -0 is in the sum
  static constexpr unsigned poisoned = 2;  ///< not carried so: the call is redone (file comment)
};

/// \brief `a + b` as an exact_dd (any grouping: the error bound holds whichever is taken).
/// TwoSums of the high and of the low parts, the first's error added to the second's sum by a
/// TwoSum, the two parts renormalised exactly; the two low errors go into `err` (sums rounded
/// up).
/// A sum beyond 2^1000 (or an infinity, a NaN) is poisoned.
struct exact_dd_plus {
  __device__ exact_dd operator()(const exact_dd& a, const exact_dd& b) const {
    double s = 0, t = 0, t2 = 0, hi = 0;
    const double e1 = two_sum(a.hi, b.hi, s);
    const double e2 = two_sum(a.lo, b.lo, t);
    const double e3 = two_sum(t, e1, t2);
    const double lo = two_sum(s, t2, hi);
    // (rounded up: at least the sum of the bounds)
    const double err = __dadd_ru(__dadd_ru(a.err, b.err), __dadd_ru(fabs(e2), fabs(e3)));
    unsigned flags = a.flags | b.flags;
    if (!(fabs(hi) <= 0x1p1000) || !(err <= 0x1p1000)) flags |= exact_dd::poisoned;
    return exact_dd{hi, lo, err, flags};
  }
};

/// \brief Launch shape of the one-pass exact scan: `warps` warp tiles a block tile (one block
/// each), as many blocks an SM as the scan's registers allow (128 a thread), so that a block's
/// look-back overlaps the other blocks' scans; when the look-back polls.
struct exact_one_pass_tuning {
  static constexpr unsigned warps = 2;
  static constexpr look_back_delays delays{0, 128, 1024};
  /// Blocks of `Warps` warps an SM fits at 128 registers a thread.
  template <unsigned Warps>
  static constexpr unsigned blocks_per_sm = 16 / Warps;
};

/// \brief Elements of a block tile of `Warps` warp tiles.
template <class F, unsigned Warps>
inline constexpr std::size_t exact_block_tile_v = exact_warp_tile_v<F>* Warps;

/// \brief The exact slice sums of a warp tile, a lane's elements in `x` (as read_tile_rows
/// leaves them), `Levels` slices below 2^top, on every lane: each lane's own (lane_slice_sums,
/// the exact sum's), then the lanes' sums by shuffles (exact in any grouping).
template <int Levels, class F, unsigned Items>
__device__ void tile_slice_sums(const F (&x)[Items], int top, double (&sums)[exact::max_levels]) {
  lane_slice_sums<Levels>(x, top, sums);
#pragma unroll
  for (int l = 0; l < Levels; ++l)
#pragma unroll
    for (unsigned offset = warp_threads / 2; offset > 0; offset /= 2)
      sums[l] = __dadd_rn(sums[l], __shfl_xor_sync(full_warp_mask, sums[l], offset));
}

/// \brief The sum of a warp tile (a lane's elements in `x`) as an exact_dd, its slices planned
/// from `survey` (levels 0: poisoned).
template <class F, unsigned Items>
__device__ exact_dd warp_tile_sum(const exact::chunk_survey& survey, int levels, int top,
                                  const F (&x)[Items]) {
  exact_dd sum{0.0, 0.0, 0.0, survey.not_only_negative_zeros ? exact_dd::nonzero : 0u};
  if (levels == 0) {
    sum.flags |= exact_dd::poisoned;
    return sum;
  }
  double s[exact::max_levels];
  if (levels == 1)
    tile_slice_sums<1>(x, top, s);
  else if (levels == 2)
    tile_slice_sums<2>(x, top, s);
  else
    tile_slice_sums<3>(x, top, s);
#pragma unroll
  for (int l = 0; l < exact::max_levels; ++l)
    if (l < levels) sum = exact_dd_plus{}(sum, exact_dd{s[l], 0.0, 0.0, 0u});
  return sum;
}

/// \brief Scans the warp tile (`tile` in shared memory, `survey`, `levels` >= 1, `top` its
/// plan) from the prefix `p` (not poisoned) into `to`; false where it cannot (file comment).
/// `exact_sum`: the warp's superaccumulator slot in shared memory (float results).
template <bool Exclusive, class F>
__device__ bool scan_tile_from_dd(const exact_dd& p, const exact::chunk_survey& survey, int levels,
                                  int top, const F* tile, const tile_output<F>& to, unsigned lane,
                                  exact_accumulator<F>& exact_sum) {
  const bool exact = p.err == 0;
  const exact::prefix_mode mode = exact::choose_mode<F>(survey, levels, top, p.hi, p.lo, exact);
  const std::uint64_t zero_unknown =
      zero_sign_unknown<Exclusive>(tile, (p.flags & exact_dd::nonzero) != 0);
  // float results: the proofs take |A - a_hi| <= 2 |a_lo| (round_prefix), so an inexact
  // prefix passes |lo| + err as a_lo; double results take err as the carried bound a_err
  double a_lo = p.lo, a_err = 0.0;
  if (!exact) {
    if constexpr (sizeof(F) == 4)
      a_lo = __dadd_ru(fabs(p.lo), p.err);  // (rounded up: at least the bound)
    else
      a_err = p.err;
  }
  double sums[exact::max_levels];
  if (scan_tile_fast<Exclusive>(levels, mode, tile, top, p.hi, a_lo, a_err, zero_unknown, lane, to,
                                sums))
    return true;
  if constexpr (sizeof(F) == 4) {
    if (exact) {
      __syncwarp();  // (every lane's stores of the failed pass come first)
      if (lane == 0) {
        exact_accumulator<F> acc{};
        acc.add_exact_double(p.hi);
        acc.add_exact_double(p.lo);
        if ((p.flags & exact_dd::nonzero) != 0)
          acc.state |= exact_accumulator<F>::not_only_negative_zeros;
        exact_sum = acc;
      }
      __syncwarp();
      return scan_tile_exact_outputs<Exclusive>(levels, tile, top, p.hi, p.lo, zero_unknown, lane,
                                                to, sums, exact_sum);
    }
  }
  return false;
}

/// \brief The one-pass exact scan (see the file comment): one block of `Warps` warps a block
/// tile, `tiles` of them over n elements, taken by ticket; `start` the sum before element 0
/// (exact), `redo` the status word the two-launch fallback reads (exact_redo_word(epoch) once
/// a tile poisons this call). Dynamic shared memory: `exact_scan_stages<F>::warp_bytes(1)` a
/// warp.
template <unsigned Warps, bool Exclusive, class Load, class F>
__global__ void __launch_bounds__(Warps* warp_threads, exact_one_pass_tuning::blocks_per_sm<Warps>)
    scan_exact_one_pass_kernel(Load load, F* out, std::size_t n, std::size_t tiles,
                               look_back_state<exact_dd> st, exact_dd start, unsigned* redo,
                               look_back_delays delays) {
  constexpr std::size_t warp_tile = exact_warp_tile_v<F>;
  constexpr std::size_t block_tile = exact_block_tile_v<F, Warps>;
  constexpr unsigned tile_bytes = unsigned(exact_scan_stages<F>::tile_bytes);
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  __shared__ exact_accumulator<F> exact_sum[Warps];
  __shared__ exact_dd warp_sum[Warps];     // the warp tiles' sums
  __shared__ exact_dd warp_before[Warps];  // the block tile's prefix plus the warps before
  __shared__ unsigned ticket_slot;
  __shared__ unsigned redo_slot;
  const exact_dd_plus plus;
  const unsigned redo_word = exact_redo_word(st.epoch);
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (std::size_t(id) + 1 == tiles) *st.ticket = 0;  // every block has its tile
    ticket_slot = id;
    redo_slot = *reinterpret_cast<volatile unsigned*>(redo) == redo_word;
  }
  __syncthreads();
  const std::size_t b = ticket_slot;
  const bool skip = redo_slot != 0;  // (the call is redone already: nothing to scan)
  const std::size_t t = b * block_tile + std::size_t(warp) * warp_tile;
  const bool present = t < n;
  bool in_aligned = false;
  if constexpr (direct_load_v<Load, F>)
    in_aligned = reinterpret_cast<std::uintptr_t>(load.in) % 16 == 0;
  const bool out_aligned = reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  const exact_scan_stages<F> stage(dynamic_shared<unsigned char>() +
                                   warp * exact_scan_stages<F>::warp_bytes(1));
  F* tile = stage.tile(0);
  // 1. the warp tile (a bulk copy where it is a whole tile of an aligned array) and its sum
  exact::chunk_survey survey{};
  int levels = 0, top = 0;
  // (a tile skipped still takes part in the look-back: it may close a group of tiles)
  exact_dd sum{0.0, 0.0, 0.0, skip ? exact_dd::poisoned : 0u};
  if (present && !skip) {
    bool bulk = false;
    if constexpr (direct_load_v<Load, F> && bulk_copy_available)
      bulk = in_aligned && n - t >= warp_tile;
    if (bulk) {
      if constexpr (direct_load_v<Load, F>) {
        if (lane == 0) {
          bulk_barrier_init(&stage.barrier[0]);
          bulk_barrier_expect(&stage.barrier[0], tile_bytes);
          bulk_load(tile, load.in + t, tile_bytes, &stage.barrier[0]);
        }
        __syncwarp();
        bulk_barrier_wait(&stage.barrier[0], 0);
      }
    } else {
      stage_tile_by_lanes(load, t, n, lane, in_aligned, tile);
    }
    F x[exact_items_v<F>];
    read_tile_rows(tile, lane, x);
    survey = tile_survey(x);
    levels = exact::plan_levels<F>(survey, top);
    sum = warp_tile_sum(survey, levels, top, x);  // (from the registers the survey read)
  }
  if (lane == 0) warp_sum[warp] = sum;
  __syncthreads();
  // 2. warp 0: the warps' sums scanned in order, the block tile's prefix by the look-back
  if (warp == 0) {
    exact_dd v = lane < Warps ? warp_sum[lane] : exact_dd{0.0, 0.0, 0.0, 0u};
#pragma unroll
    for (unsigned offset = 1; offset < Warps; offset *= 2) {
      const exact_dd o = shuffle_up(v, offset);
      if (lane >= offset) v = plus(o, v);
    }
    const exact_dd total = shuffle_from(v, Warps - 1);
    const exact_dd before = shuffle_up(v, 1);
    // the fixed tree (as the deterministic plain scans): no chain through the tiles' prefixes,
    // at most one round trip a level of groups of 32 tiles
    if (lane == 0 && b + 1 < tiles)
      st.states.publish(b, st.epoch << 2 | published_aggregate, total);
    exact_dd e = start;
    if (b > 0)
      e = shuffle_from(
          look_back_fixed_tree<1>(b, tiles, total, st, maybe<exact_dd>{start, true}, plus, delays)
              .value,
          0);
    if (lane == 0 && ((e.flags | total.flags) & exact_dd::poisoned) != 0 && !skip)
      *reinterpret_cast<volatile unsigned*>(redo) = redo_word;
    if (lane < Warps) warp_before[lane] = lane == 0 ? e : plus(e, before);
  }
  __syncthreads();
  // 3. the warp tile's outputs
  if (present && !skip && levels > 0) {
    const exact_dd p = warp_before[warp];
    bool done = false;
    if ((p.flags & exact_dd::poisoned) == 0)
      done = scan_tile_from_dd<Exclusive>(p, survey, levels, top, tile,
                                          tile_output<F>{out, t, n, out_aligned}, lane,
                                          exact_sum[warp]);
    if (!done && lane == 0) *reinterpret_cast<volatile unsigned*>(redo) = redo_word;
  }
}

/// \brief The one-pass scan's problem: the two launches', and `start` as the look-back carries
/// it (exactly).
template <class F, class Load>
struct exact_one_pass_problem : exact_scan_problem<F, Load> {
  exact_dd start_dd;
};

/// \brief The one-pass scan, one block of `Warps` warps a block tile (a run_scan driver). In
/// the library the two launches, enqueued behind it, read the `redo` status word and ran only
/// when it held exact_redo_word(epoch); here the kernel runs alone, and a call it hands over
/// leaves outputs unwritten (dev/exact_one_pass_sweep.cu compares them with the two launches').
template <class F, class Load, unsigned Warps = exact_one_pass_tuning::warps>
class exact_scan_one_pass {
 public:
  using problem = exact_one_pass_problem<F, Load>;
  static constexpr std::size_t dynamic_bytes = Warps * exact_scan_stages<F>::warp_bytes(1);

  exact_scan_one_pass(std::size_t n, int /*device*/)
      : tiles_(ceil_div(n, exact_block_tile_v<F, Warps>)), memory_(tiles_, n, "exact scan") {}
  std::size_t scratch_bytes() const noexcept { return memory_.scratch_bytes(); }
  /// The look-back's status words, then the word that says the call is to be redone.
  std::size_t status_words() const noexcept { return memory_.status_words() + 1; }
  unsigned status_layout() const noexcept { return memory_.status_layout(); }

  void enqueue(const problem& p, scan_scratch s, cudaStream_t stream) const {
    const look_back_state<exact_dd> st = memory_.state(s.bytes, s.status, s.ticket, s.epoch);
    unsigned* redo = s.status + memory_.status_words();
    const auto run = [&](auto kernel) {
      allow_dynamic_shared(kernel, dynamic_bytes);
      launch(kernel, tiles_, Warps * warp_threads, dynamic_bytes, stream, p.load, p.out, p.n,
             tiles_, st, p.start_dd, redo, exact_one_pass_tuning::delays);
    };
    if (p.exclusive)
      run(scan_exact_one_pass_kernel<Warps, true, Load, F>);
    else
      run(scan_exact_one_pass_kernel<Warps, false, Load, F>);
  }

 private:
  std::size_t tiles_;
  look_back_memory<exact_dd> memory_;
};

}  // namespace parprim::detail::cuda
