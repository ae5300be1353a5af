#pragma once
/// \file
/// \brief parprim::exact_plus on the GPU: the exact sum of float or double elements, in one
/// launch, as a superaccumulator (detail/exact_accumulator.hpp) that is rounded once.
///
/// The host fold's method (detail/exact_chunk.hpp, docs/reproducible.md) at warp scale. A warp
/// takes a *warp tile* of 32 lanes x `exact_items_v<F>` elements (1024 floats, 512 doubles: at
/// most exact::chunk, so the host's slicing constants hold), loaded coalesced (16-byte loads
/// where the input is an aligned array), 128 bytes per lane in flight; the grid's warps take the
/// tiles in turn. Two warp reductions of the words holding the elements' exponent fields
/// (`redux.sync`) give the tile's largest field and its smallest non-zero one; from them
/// `exact::plan_levels` picks the number of slices L (as the host does for a chunk).
/// Then every lane splits its elements into L slices by error-free extraction and sums each slice
/// in double: every partial sum is exact whatever the order, so the lanes' sums combine exactly by
/// shuffles, and the tile's L exact doubles are added to a superaccumulator spread over the warp's
/// lanes (`warp_digits`: every lane updates its own digits at once, no local memory); two double
/// tiles with the same plan make one chunk, and share the shuffles and the addition
/// (`pending_slices`). A tile the slices do not cover (infinities, NaNs, exponents too far
/// apart) is added element by element, each lane to its own superaccumulator: exact too, only
/// slower.
///
/// At the end a warp's digits are normalized (each one's bits above the low 32 moved into the
/// next) and written as *digit words*; the block adds its warps' digit words (integer additions:
/// exact, no carries resolved) and publishes them; the block that takes the last ticket adds
/// all of them, resolves the carries once into a superaccumulator, adds `init` and writes
/// either the superaccumulator (a fold that MPI continues across ranks) or the sum rounded once
/// (parprim::reduce, reduce_into). Every step is exact, so the result is the same
/// bits for any grid, block or tile shape, on any GPU, and equal to the host backends'.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/block/load.cuh>
#include <parprim/backends/cuda/kernels/reduce_vectorized_single_pass.cuh>
#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_chunk.hpp>

namespace parprim::detail::cuda {

/// \brief Launch shape of the exact sum: 256 threads, 128 bytes of loads in flight per lane (as
/// rung 7), a one-wave grid of `blocks_per_sm` blocks per multiprocessor.
struct exact_sum_tuning {
  static constexpr unsigned block_size = 256;
  static constexpr unsigned bytes_per_lane = 128;
  /// Blocks per multiprocessor (the registers are capped to fit them): 2 for float and double
  /// (about 110-120 registers). Measured on the H100 (dev/exact_reduce_sweep.cu, one process,
  /// three rounds, 1 / 2 / 3 blocks, the grid's warps taking the tiles in turn): double 2^28 in
  /// (-1, 1) 862-868 / 773-779 / 799-802 us (plain reduce 702-703), exponents -20..20 944-956 /
  /// 790-792 / 808-815, 2^24 113 / 128-130 / 143-145; float 2^28 422-425 / 386-388 / 393-397
  /// (plain 362), exponents -20..20 439-440 / 385-388 / 394-397. With 3 blocks (80 registers)
  /// double spills; 4 and more were slower on the H200 too (7393f84: 3 / 4 / 5 blocks, float 2^28
  /// 275.0 / 281.7 / 350.9 us, double 585.9 / 605.0 / 790.6). Loading each warp's next tile
  /// before adding the current one (a tile's registers more) gained nothing over 2 blocks; nor
  /// did keeping the warp's next 1-3 tiles in flight by bulk copies into shared memory (H200,
  /// 2^28, 2 blocks, 0 / 1 / 2 / 3 stages: float 278 / 288 / 289 / 305 us, double 562 / 578 /
  /// 582 / 614; only doubles with exponents over -20..20 gained, 628 -> 592).
  template <class F>
  static constexpr unsigned blocks_per_sm = 2;
};

/// \brief Elements per lane of a warp tile.
template <class F>
inline constexpr unsigned exact_items_v = exact_sum_tuning::bytes_per_lane / sizeof(F);
/// \brief Elements of a warp tile.
template <class F>
inline constexpr std::size_t exact_warp_tile_v = std::size_t(warp_threads) * exact_items_v<F>;

/// \brief A superaccumulator spread over a warp, for the tiles' exact slice sums: 32-bit digits
/// of the same fixed-point value as exact_accumulator<F> (digit d: bits [32 d, 32 d + 32) of
/// its limbs), digit d held by lane d % 32 as `digit[d / 32]`, a signed 64-bit count with its
/// carries deferred. Adding a double (the same on every lane) is a few integer operations on
/// every lane at once, without local memory or divergence; each addition moves a digit by less
/// than 2^32, so 2^30 of them fit before `normalize` (or `add_to`, which resolves the carries
/// into a superaccumulator) must run.
template <class F>
struct warp_digits {
  static constexpr int digit_count = 2 * exact_accumulator<F>::limb_count;
  static constexpr int per_lane = (digit_count + warp_threads - 1) / warp_threads;
  /// Digit words (store): the digits, then the flags.
  static constexpr int word_count = digit_count + 1;
  std::int64_t digit[per_lane];

  __device__ void clear() {
#pragma unroll
    for (int r = 0; r < per_lane; ++r) digit[r] = 0;
  }

  /// \brief Adds `d`, the same finite double on every lane, a whole multiple of 2^lsb_exponent
  /// (as exact_accumulator::add_exact_double).
  __device__ void add(double d, unsigned lane) {
    const auto u = __builtin_bit_cast(std::uint64_t, d);
    const int field = static_cast<int>((u >> 52) & 0x7ff);
    std::uint64_t m = u & ((std::uint64_t{1} << 52) - 1);
    if (field != 0) m |= std::uint64_t{1} << 52;
    int pos = (field != 0 ? field : 1) - 1075 - exact_accumulator<F>::lsb_exponent;
    if (pos < 0) {  // the bits shifted out are zero
      m = -pos < 64 ? m >> -pos : 0;
      pos = 0;
    }
    const int j = pos >> 5;
    const int s = pos & 31;
    const std::uint64_t shifted = m << s;  // bits 0..63 of m * 2^s (m < 2^53, s < 32)
    const std::uint64_t piece[3] = {shifted & 0xffffffffu, shifted >> 32,
                                    s != 0 ? m >> (64 - s) : 0};
    const bool negative = (u >> 63) != 0;
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
      const int k = static_cast<int>(lane) + r * warp_threads - j;
      const std::uint64_t p = k == 0 ? piece[0] : k == 1 ? piece[1] : k == 2 ? piece[2] : 0;
      const auto v = static_cast<std::int64_t>(p);
      digit[r] += negative ? -v : v;
    }
  }

  /// \brief Moves the bits of every digit above its low 32 into the next digit, on every lane at
  /// once (a shuffle a register): the value is unchanged (modulo the accumulator's width, as
  /// two's complement drops the carries out of the top), every digit is then in
  /// [-2^31, 2^32 + 2^31), and 2^30 more additions fit again.
  __device__ void normalize(unsigned lane) {
    constexpr unsigned all = 0xffffffffu;
    std::int64_t high[per_lane];
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
      high[r] = digit[r] >> 32;  // arithmetic: the signed carry
      digit[r] &= 0xffffffff;
    }
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
      const std::int64_t below = __shfl_up_sync(all, high[r], 1);
      // lane 0's comes from lane 31 of the register before (none before digit 0)
      const std::int64_t wrapped = r == 0 ? 0 : __shfl_sync(all, high[r == 0 ? 0 : r - 1], 31);
      digit[r] += lane == 0 ? wrapped : below;
    }
  }

  /// \brief Adds lane 0's `acc` (every lane must call), a piece of 32 bits of its limbs at a
  /// time (the signs need no care: the value is taken modulo the accumulator's width).
  __device__ void add_lane0(const exact_accumulator<F>& acc, unsigned lane) {
    constexpr unsigned all = 0xffffffffu;
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
#pragma unroll 1
      for (int src = 0; src < static_cast<int>(warp_threads); ++src) {
        const int d = r * static_cast<int>(warp_threads) + src;
        if (d >= digit_count) break;
        const std::uint64_t limb = lane == 0 ? acc.limb[d / 2] : 0;
        const auto piece = __shfl_sync(all, static_cast<unsigned>(limb >> (32 * (d % 2))), 0);
        if (static_cast<int>(lane) == src) digit[r] += piece;
      }
    }
  }

  /// \brief Writes the digits and `state` (the accumulator's flags) as the superaccumulator's
  /// *digit words* (`word_count` of them: the digits, then the flags).
  __device__ void store(std::int64_t* words, std::uint64_t state, unsigned lane) const {
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
      const int d = static_cast<int>(lane) + r * static_cast<int>(warp_threads);
      if (d < digit_count) words[d] = digit[r];
    }
    if (lane == 0) words[digit_count] = static_cast<std::int64_t>(state);
  }

  /// \brief Adds the value to lane 0's `acc` (every lane must call), resolving the digits'
  /// carries on the way; leaves the digits as they are.
  __device__ void add_to(exact_accumulator<F>& acc, unsigned lane) const {
    constexpr unsigned all = 0xffffffffu;
    std::int64_t carry = 0;       // between digits: signed
    std::uint64_t limb = 0;       // the limb being assembled from two digits
    std::uint64_t acc_carry = 0;  // of the addition to acc
    // (loops kept rolled: this runs once a block, and unrolled it would hold every limb in
    // registers, which the tile loop needs)
#pragma unroll
    for (int r = 0; r < per_lane; ++r) {
#pragma unroll 1
      for (int src = 0; src < static_cast<int>(warp_threads); ++src) {
        const int d = r * static_cast<int>(warp_threads) + src;
        const std::int64_t v = __shfl_sync(all, digit[r], src) + carry;
        if (d >= digit_count) continue;
        const auto low = static_cast<std::uint64_t>(v) & 0xffffffffu;
        carry = v >> 32;  // arithmetic: the signed carry into the next digit
        if (d % 2 == 0) {
          limb = low;
          continue;
        }
        limb |= low << 32;
        if (lane == 0) {
          const int k = d / 2;
          const std::uint64_t sum = acc.limb[k] + limb;
          const std::uint64_t c1 = sum < limb ? 1 : 0;
          acc.limb[k] = sum + acc_carry;
          acc_carry = c1 | (acc.limb[k] < sum ? 1 : 0);
        }
      }
    }
    // (the carries out of the top digit and limb are the sign's: two's complement drops them)
  }
};

/// \brief Adds `acc` of every lane into lane 0's (the other lanes end with partial sums).
template <class F>
__device__ void warp_merge(exact_accumulator<F>& acc) {
  constexpr unsigned all = 0xffffffffu;
  // (loops kept rolled, limb by limb with the carry: no second superaccumulator on the stack)
#pragma unroll 1
  for (unsigned offset = warp_threads / 2; offset > 0; offset /= 2) {
    std::uint64_t carry = 0;
#pragma unroll 1
    for (int k = 0; k < exact_accumulator<F>::limb_count; ++k) {
      const std::uint64_t o = __shfl_down_sync(all, acc.limb[k], offset);
      const std::uint64_t sum = acc.limb[k] + o;
      const std::uint64_t c1 = sum < o ? 1 : 0;
      acc.limb[k] = sum + carry;
      carry = c1 | (acc.limb[k] < sum ? 1 : 0);
    }
    acc.state |= __shfl_down_sync(all, acc.state, offset);
  }
}

/// \brief The superaccumulator whose digit words (warp_digits::store, or sums of them with
/// digits below 2^62 in magnitude) are `words` (one thread): the carries resolved from digit to
/// digit.
template <class F>
__device__ exact_accumulator<F> accumulator_of_digit_words(const std::int64_t* words) {
  exact_accumulator<F> acc;
  std::int64_t carry = 0;
#pragma unroll 2
  for (int k = 0; k < exact_accumulator<F>::limb_count; ++k) {
    const std::int64_t low = words[2 * k] + carry;
    carry = low >> 32;  // arithmetic: the signed carry into the next digit
    const std::int64_t high = words[2 * k + 1] + carry;
    carry = high >> 32;
    acc.limb[k] =
        (static_cast<std::uint64_t>(low) & 0xffffffffu) | (static_cast<std::uint64_t>(high) << 32);
  }
  // (the carry out of the top is the sign's: two's complement drops it)
  acc.state = static_cast<std::uint64_t>(words[warp_digits<F>::digit_count]);
  return acc;
}

/// \brief The sum of `count` rows of digit words (`read(b, k)`: word k of row b), computed by
/// the whole block (every thread calls) into `total` (shared memory, word_count words): the
/// digits added, the flags ORed. Thread t adds word t % words of every (BlockSize / words)-th
/// row, with many reads in flight; `scratch`: shared memory for BlockSize words. The rows'
/// digits must stay below 2^62 in magnitude when added (normalized digits: 2^29 rows).
template <unsigned BlockSize, class F, class Read>
__device__ void sum_digit_words(unsigned count, const Read& read, std::int64_t* total,
                                std::int64_t* scratch) {
  constexpr unsigned words = warp_digits<F>::word_count;
  constexpr unsigned groups = BlockSize / words;
  static_assert(groups > 0, "a block has a thread for every word");
  const unsigned t = threadIdx.x;
  const unsigned k = t % words;
  const unsigned group = t / words;
  std::int64_t sum = 0;
  if (group < groups) {
#pragma unroll 8
    for (unsigned b = group; b < count; b += groups) {
      const std::int64_t v = read(b, k);
      sum = k + 1 == words ? sum | v : sum + v;
    }
  }
  scratch[t] = sum;
  __syncthreads();
  if (t < words) {
    sum = 0;
    for (unsigned g = 0; g < groups; ++g) {
      const std::int64_t v = scratch[g * words + t];
      sum = t + 1 == words ? sum | v : sum + v;
    }
    total[t] = sum;
  }
  __syncthreads();
}

/// \brief The block's digit words (every thread calls): each warp's `digits` and flags `state`
/// into `warp_words[warp]` (shared memory, left holding them), their sum into `total` (shared
/// memory) and into `row` (the block's row of word_count words in global memory); `scratch` as
/// sum_digit_words'.
template <unsigned BlockSize, class F>
__device__ void store_block_digit_words(const warp_digits<F>& digits, std::uint64_t state,
                                        std::int64_t (*warp_words)[warp_digits<F>::word_count],
                                        std::int64_t* total, std::int64_t* scratch,
                                        std::int64_t* row) {
  constexpr unsigned words = warp_digits<F>::word_count;
  digits.store(warp_words[threadIdx.x / warp_threads], state, threadIdx.x % warp_threads);
  __syncthreads();
  sum_digit_words<BlockSize, F>(
      BlockSize / warp_threads, [&](unsigned b, unsigned k) { return warp_words[b][k]; }, total,
      scratch);
  for (unsigned k = threadIdx.x; k < words; k += BlockSize) row[k] = total[k];
}

/// \brief The slices of a tile's elements below 2^top (exact::plan_levels; see the file
/// comment): element x is q[0] + ... + q[Levels - 1] exactly, q[l] a multiple of slice l's last
/// place, so sums of any grouping of a tile's slices are exact (the exact sum's and the exact
/// scans' slicing). Rounding mode and order are explicit (`__dadd_rn`): no contraction.
template <int Levels>
struct tile_slicer {
  double sigma[Levels > 1 ? Levels - 1 : 1];

  __device__ explicit tile_slicer(int top) {
#pragma unroll
    for (int l = 0; l + 1 < Levels; ++l)
      sigma[l] = 1.5 * exact::pow2(top - l * exact::slice_bits + 9);
  }
  /// \brief each(l, q[l]) for l = 0, 1, ..., as each slice of x is split off.
  template <class Each>
  __device__ __forceinline__ void for_each_slice(double x, Each each) const {
#pragma unroll
    for (int l = 0; l + 1 < Levels; ++l) {
      const double q = __dsub_rn(__dadd_rn(sigma[l], x), sigma[l]);
      x = __dsub_rn(x, q);
      each(l, q);
    }
    each(Levels - 1, x);
  }
  /// \brief q[l] = slice l of x.
  template <class Q>
  __device__ __forceinline__ void slice(double x, Q& q) const {
    for_each_slice(x, [&](int l, double s) { q[l] = s; });
  }
};

/// \brief The exact sums of the `Levels` slices of a lane's elements (see the file comment), in
/// `sums[0..Levels)`.
/// Rounding mode and order are explicit (`__dadd_rn`): no contraction, no reassociation.
template <int Levels, class F, unsigned Items>
__device__ void lane_slice_sums(const F (&x)[Items], int top, double (&sums)[exact::max_levels]) {
  const tile_slicer<Levels> slicer(top);
  // independent dependency chains (all sums are exact, in any order); fewer with more slices,
  // whose registers the tile needs
  constexpr unsigned chains = Levels == 1 ? 4 : 2;
  double acc[Levels][chains];
#pragma unroll
  for (int l = 0; l < Levels; ++l)
#pragma unroll
    for (unsigned c = 0; c < chains; ++c) acc[l][c] = 0.0;
#pragma unroll
  for (unsigned k = 0; k < Items; ++k)
    slicer.for_each_slice(static_cast<double>(x[k]), [&](int l, double q) {
      acc[l][k % chains] = __dadd_rn(acc[l][k % chains], q);
    });
#pragma unroll
  for (int l = 0; l < Levels; ++l)
    sums[l] = chains == 4 ? __dadd_rn(__dadd_rn(acc[l][0], acc[l][1]),
                                      __dadd_rn(acc[l][chains / 2], acc[l][chains - 1]))
                          : __dadd_rn(acc[l][0], acc[l][chains - 1]);
}

/// \brief Adds the exact sums of `Levels` slices, `sums` of every lane, to the warp's digits:
/// added across the warp by shuffles (exact), then to the digits.
template <int Levels, class F>
__device__ void add_warp_slices(warp_digits<F>& digits, double (&sums)[exact::max_levels],
                                unsigned lane) {
  constexpr unsigned all = 0xffffffffu;
#pragma unroll
  for (unsigned offset = warp_threads / 2; offset > 0; offset /= 2)
#pragma unroll
    for (int l = 0; l < Levels; ++l)
      sums[l] = __dadd_rn(sums[l], __shfl_xor_sync(all, sums[l], offset));
#pragma unroll
  for (int l = 0; l < Levels; ++l) digits.add(sums[l], lane);
}

/// \brief Each lane's slice sums of the warp's tiles not yet added to its digits: tiles of one
/// plan (`levels` slices below 2^top), at most `exact::chunk` elements in all, so that their sum
/// over the lanes is still exact (the host's chunk bound). Consecutive double tiles (512
/// elements) with the same plan thus share one warp reduction and one addition to the digits;
/// a float tile is a whole chunk already (`most_tiles` 1: added at once).
template <class F>
struct pending_slices {
  static constexpr unsigned most_tiles = unsigned(exact::chunk / exact_warp_tile_v<F>);
  int levels = 0;  // 0: nothing pending
  int top = 0;
  unsigned tiles = 0;
  double sums[exact::max_levels];

  /// \brief Adds what is pending to the digits (every lane calls).
  __device__ void flush(warp_digits<F>& digits, unsigned lane) {
    if (levels == 1)
      add_warp_slices<1>(digits, sums, lane);
    else if (levels == 2)
      add_warp_slices<2>(digits, sums, lane);
    else if (levels == 3)
      add_warp_slices<3>(digits, sums, lane);
    levels = 0;
    tiles = 0;
  }
};

/// \brief Adds the exact sums of a warp tile's `Levels` slices to the warp's digits, or to its
/// pending slice sums (`pending`) while the tile's plan is theirs. `Levels` is a template
/// parameter so that the sums stay in registers (an array indexed by a run-time level count
/// lives in local memory).
template <int Levels, class F, unsigned Items>
__device__ void add_tile_slices(warp_digits<F>& digits, pending_slices<F>& pending,
                                const F (&x)[Items], int top, unsigned lane) {
  double sums[exact::max_levels];
  lane_slice_sums<Levels>(x, top, sums);
  if constexpr (pending_slices<F>::most_tiles > 1) {
    if (pending.levels == Levels && pending.top == top) {  // (warp-uniform)
#pragma unroll
      for (int l = 0; l < Levels; ++l) pending.sums[l] = __dadd_rn(pending.sums[l], sums[l]);
      if (++pending.tiles == pending_slices<F>::most_tiles) pending.flush(digits, lane);
      return;
    }
    pending.flush(digits, lane);
    pending.levels = Levels;
    pending.top = top;
    pending.tiles = 1;
#pragma unroll
    for (int l = 0; l < Levels; ++l) pending.sums[l] = sums[l];
  } else {
    add_warp_slices<Levels>(digits, sums, lane);
  }
}

/// \brief The survey of a warp tile (`x` of every lane; every lane calls and gets it), from the
/// word of each element that holds its exponent field (a float's bits, a double's upper 32 bits
/// with bit 0 set where the lower ones are not all zero, which keeps its field and marks a
/// subnormal whose upper word is zero as non-zero): the largest word and the smallest non-zero
/// one (the unsigned minimum of word - 1, a zero wrapping to the top), 4-5 integer operations
/// an element, then two warp reductions. Only a tile of zeros looks at the signs again.
template <class F, unsigned Items>
__device__ exact::chunk_survey tile_survey(const F (&x)[Items]) {
  constexpr unsigned all = 0xffffffffu;
  constexpr unsigned magnitude = 0x7fffffffu;
  constexpr int field_shift = sizeof(F) == 4 ? 23 : 20;
  unsigned high = 0, low_key = 0xffffffffu;
#pragma unroll
  for (unsigned k = 0; k < Items; ++k) {
    unsigned word;
    if constexpr (sizeof(F) == 4) {
      word = __float_as_uint(x[k]) & magnitude;
    } else {
      const auto u = static_cast<std::uint64_t>(__double_as_longlong(static_cast<double>(x[k])));
      const auto lower = static_cast<unsigned>(u);
      word = (static_cast<unsigned>(u >> 32) & magnitude) | (lower < 1u ? lower : 1u);
    }
    high = word > high ? word : high;
    const unsigned key = word - 1u;
    low_key = key < low_key ? key : low_key;
  }
  high = __reduce_max_sync(all, high);
  low_key = __reduce_min_sync(all, low_key);
  const bool all_zero = low_key == 0xffffffffu;
  bool other = !all_zero;  // a non-zero element is not -0
  if (all_zero) {          // zeros only (warp-uniform): is one of them +0?
    using bits = typename ieee_format<F>::bits_type;
    unsigned positive = 0;
#pragma unroll
    for (unsigned k = 0; k < Items; ++k)
      positive |=
          static_cast<std::make_signed_t<bits>>(__builtin_bit_cast(bits, x[k])) < 0 ? 0u : 1u;
    other = __any_sync(all, positive) != 0;
  }
  return exact::chunk_survey{static_cast<int>(high >> field_shift),
                             all_zero ? 0 : static_cast<int>((low_key + 1u) >> field_shift),
                             all_zero, other};
}

/// \brief Adds a warp tile, `x` of every lane (elements past the end are -0, which adds
/// nothing): its exact slice sums to the warp's digits, or, when the slices do not cover it,
/// each element to its lane's superaccumulator `acc` (cleared by the first such tile: `used`
/// says whether it holds anything). `flags` collects the state flags the slice path learns
/// (not_only_negative_zeros). `survey`: the tile's (tile_survey).
template <class F, unsigned Items>
__device__ void add_surveyed_tile(const exact::chunk_survey& survey, exact_accumulator<F>& acc,
                                  bool& used, warp_digits<F>& digits, pending_slices<F>& pending,
                                  std::uint64_t& flags, const F (&x)[Items], unsigned lane) {
  int top = 0;
  const int levels = exact::plan_levels<F>(survey, top);
  if (levels == 0) {  // infinities, NaNs or a wide exponent range: element by element
    if (!used) acc = exact_accumulator<F>{};
    used = true;
#pragma unroll
    for (unsigned k = 0; k < Items; ++k) acc.add(x[k]);
    return;
  }
  if (survey.not_only_negative_zeros) flags |= exact_accumulator<F>::not_only_negative_zeros;
  if (survey.all_zero) return;
  if (levels == 1)
    add_tile_slices<1>(digits, pending, x, top, lane);
  else if (levels == 2)
    add_tile_slices<2>(digits, pending, x, top, lane);
  else
    add_tile_slices<3>(digits, pending, x, top, lane);
}

/// \brief add_surveyed_tile with the tile's survey taken here.
template <class F, unsigned Items>
__device__ void add_warp_tile(exact_accumulator<F>& acc, bool& used, warp_digits<F>& digits,
                              pending_slices<F>& pending, std::uint64_t& flags, const F (&x)[Items],
                              unsigned lane) {
  add_surveyed_tile(tile_survey(x), acc, used, digits, pending, flags, x, lane);
}

/// \brief Loads a whole warp tile starting at `p` (16-byte aligned) with 16-byte loads,
/// coalesced across the warp; which lane holds which element does not matter to a sum.
template <class F, unsigned Items>
__device__ void load_tile_vectors(const F* p, unsigned lane, F (&x)[Items]) {
  constexpr unsigned per_vector = 16 / sizeof(F);
  const auto* v = reinterpret_cast<const vector16<F>*>(p);
#pragma unroll
  for (unsigned k = 0; k < Items / per_vector; ++k) {
    const vector16<F> w = load_vector(v + k * warp_threads + lane);
#pragma unroll
    for (unsigned e = 0; e < per_vector; ++e) x[k * per_vector + e] = w.v[e];
  }
}

/// \brief Whether a load reads `F` elements of an array as they are (16-byte loads possible).
template <class Load, class F>
inline constexpr bool direct_load_v = std::is_same_v<std::remove_cv_t<Load>, converting_load<F, F>>;

/// \brief Writes the finished sum: the superaccumulator itself, or rounded to `F`.
template <class F>
__device__ __noinline__ void store_exact(const exact_accumulator<F>& acc,
                                         exact_accumulator<F>* out) {
  *out = acc;
}
template <class F>
__device__ __noinline__ void store_exact(const exact_accumulator<F>& acc, F* out) {
  *out = acc.template round<F>();
}

/// \brief Loads the warp tile at `t` (elements past `end` are -0): 16-byte loads where the input
/// is an aligned array (`aligned`) and the tile whole, else element by element.
template <class F, class Load, unsigned Items>
__device__ void load_warp_tile(const Load& load, std::size_t t, std::size_t end, bool aligned,
                               unsigned lane, F (&x)[Items]) {
  if (end - t >= std::size_t(warp_threads) * Items) {
    if constexpr (direct_load_v<Load, F>) {
      if (aligned) {
        load_tile_vectors(load.in + t, lane, x);
        return;
      }
    }
#pragma unroll
    for (unsigned k = 0; k < Items; ++k) x[k] = load(t + k * warp_threads + lane);
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < Items; ++k) {
    const std::size_t i = t + k * warp_threads + lane;
    x[k] = i < end ? load(i) : -F(0);
  }
}

/// \brief Ends a warp's fold of tiles (add_warp_tile): the pending slice sums added to the
/// digits and, only where a tile took the element-by-element path, the lanes' superaccumulators
/// merged (a chain of shuffles limb by limb) and added too; the digits normalized (every lane
/// calls). Returns the accumulator's flags (the same on every lane: the survey is the warp's).
template <class F>
__device__ std::uint64_t finish_warp_fold(exact_accumulator<F>& acc, bool used,
                                          warp_digits<F>& digits, pending_slices<F>& slices,
                                          std::uint64_t flags, unsigned lane) {
  constexpr unsigned all = 0xffffffffu;
  slices.flush(digits, lane);
  if (__any_sync(all, used)) {
    if (!used) acc = exact_accumulator<F>{};
    warp_merge(acc);
    digits.add_lane0(acc, lane);
    flags |= __shfl_sync(all, acc.state, 0);
  }
  digits.normalize(lane);
  return flags;
}

/// \brief The exact sum of the warp tiles starting at `first`, `first + stride`, ... before
/// `end` (`load(i)` is element i as `F`), into the warp's `digits` (normalized: every lane
/// calls); returns the accumulator's flags (the same on every lane). `Backward`: the tiles are
/// read last first (the sum is exact in any order), so that the tiles read last, those still in
/// L2 when the warp is done, are the first ones (what the exact scan's second launch reads first).
template <class F, bool Backward = false, class Load>
__device__ std::uint64_t fold_warp_tiles(const Load& load, std::size_t first, std::size_t end,
                                         std::size_t stride, unsigned lane,
                                         warp_digits<F>& digits) {
  constexpr unsigned items = exact_items_v<F>;
  // The lane's superaccumulator, for tiles the slices do not cover: left untouched until one
  // comes (clearing and reading it on every lane would move 56 or 280 bytes a lane through
  // local memory, about 2 % of the time of a 2^28-element double sum).
  exact_accumulator<F> acc;
  bool used = false;
  digits.clear();
  pending_slices<F> slices;  // the lanes' slice sums not yet in the digits
  std::uint64_t flags = 0;
  bool aligned = false;
  if constexpr (direct_load_v<Load, F>)
    aligned = reinterpret_cast<std::uintptr_t>(load.in) % 16 == 0;
  unsigned pending = 0;  // tiles added to the digits since they were normalized
  const auto fold = [&](std::size_t t) {
    F x[items];
    load_warp_tile(load, t, end, aligned, lane, x);
    add_warp_tile(acc, used, digits, slices, flags, x, lane);
    if (++pending == (1u << 28)) {  // at most 3 additions a tile: normalize before 2^30
      digits.normalize(lane);
      pending = 0;
    }
  };
  if constexpr (Backward) {
    for (std::size_t k = first < end ? (end - first - 1) / stride + 1 : 0; k > 0; --k)
      fold(first + (k - 1) * stride);
  } else {
    for (std::size_t t = first; t < end; t += stride) fold(t);
  }
  return finish_warp_fold(acc, used, digits, slices, flags, lane);
}

/// \brief The exact sum kernel (see the file comment). The grid's warps take the warp tiles in
/// turn (warp w of the grid: tiles w, w + W, ...), so the whole grid reads one window of the
/// input at a time. `load(i)` is element i as `F`. Each block writes the sum of its warps as
/// digit words (warp_digits::store) to `partials` (word_count a block); the last block writes
/// `init` plus everything to `*out` (an `exact_accumulator<F>` or an `F`) and resets the ticket.
/// `MinBlocks`: the blocks per multiprocessor the registers are capped for.
template <unsigned BlockSize, class Load, class F, class Out,
          unsigned MinBlocks = exact_sum_tuning::blocks_per_sm<F>>
__global__ void __launch_bounds__(BlockSize, MinBlocks)
    reduce_exact_sum_kernel(Load load, std::size_t n, std::int64_t* partials, unsigned* ticket,
                            Out* out, exact_accumulator<F> init) {
  constexpr std::size_t tile = exact_warp_tile_v<F>;
  constexpr unsigned warps = BlockSize / warp_threads;
  constexpr unsigned words = warp_digits<F>::word_count;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  warp_digits<F> digits;
  const std::uint64_t state =
      fold_warp_tiles<F>(load, (std::size_t(blockIdx.x) * warps + warp) * tile, n,
                         std::size_t(gridDim.x) * warps * tile, lane, digits);

  __shared__ std::int64_t warp_words[warps][words];
  __shared__ std::int64_t total[words];
  __shared__ std::int64_t scratch[BlockSize];
  __shared__ bool is_last;
  store_block_digit_words<BlockSize, F>(digits, state, warp_words, total, scratch,
                                        partials + std::size_t(blockIdx.x) * words);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // the block's words (ordered before by the barrier) are visible
                      // device-wide before the ticket is taken
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  sum_digit_words<BlockSize, F>(
      gridDim.x,
      [&](unsigned b, unsigned k) {
        const auto* p = reinterpret_cast<const long long*>(partials) + std::size_t(b) * words + k;
        return static_cast<std::int64_t>(__ldcg(p));
      },
      total, scratch);
  if (threadIdx.x == 0) {
    exact_accumulator<F> acc = accumulator_of_digit_words<F>(total);
    acc.merge(init);
    store_exact(acc, out);
    *ticket = 0;  // ready for the next launch on this stream
  }
}

}  // namespace parprim::detail::cuda
