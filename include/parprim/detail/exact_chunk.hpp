#pragma once
/// \file
/// \brief The fast path of the host exact sums: a chunk of up to 1024 floats or doubles is
/// summed EXACTLY in ordinary double arithmetic, vectorizable, and only the chunk's few exact
/// partial sums enter the superaccumulator (exact_accumulator.hpp).
///
/// A first pass over the chunk (in L1 afterwards) finds its largest magnitude, below 2^T, its
/// smallest non-zero one, whose last place is 2^G, and whether it holds an infinity, a NaN or
/// anything but -0. Then the elements are split into `levels` slices (Rump, Ogita and Oishi's
/// error-free extraction): slice l of every element is a multiple of g_l = 2^(T_l - 43), at most
/// 2^T_l in magnitude, with T_0 = T and T_(l+1) = T_l - 44, computed as
/// `q = (sigma_l + r) - sigma_l`, `r -= q`, sigma_l = 1.5 * 2^(T_l + 9). The last slice is the
/// remainder itself, a multiple of 2^G. So each slice's sum over at most 2^10 elements is a
/// multiple of g_l below 2^53 g_l in magnitude, every partial sum is a double, and no addition
/// rounds, whatever the order (lanes, then lanes together). One slice suffices when the
/// chunk's exponents span at most 19 binades (float), two up to 63 (float) or 34 (double),
/// three up to 107 / 78; beyond that, or with infinities or NaNs, the chunk is added element by
/// element to the superaccumulator (exact too, only slower).
///
/// The double arithmetic must be IEEE round-to-nearest without reassociation: under
/// -ffast-math (`__FAST_MATH__`) the chunk path is off and every element takes the integer
/// path.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_survey.hpp>
#include <parprim/detail/macros.hpp>

namespace parprim::detail::exact {

/// \brief Slices that cut a chunk of survey `s` below 2^top exactly: the last must reach the
/// last place of its smallest non-zero element.
template <class F>
PARPRIM_HOST_DEVICE int slices_below(const chunk_survey& s, int top) {
  using fmt = ieee_format<F>;
  const int grid = (s.min_field != 0 ? s.min_field : 1) - fmt::bias - (fmt::precision - 1);
  const int excess = top - (53 - chunk_log2) - grid;
  return excess <= 0 ? 1 : 1 + (excess + slice_bits - 1) / slice_bits;
}

/// \brief The slicing plan of a chunk: 0 means "element by element" (infinities or NaNs, or
/// exponents too far apart). `top` receives T (|x| < 2^T for every element).
template <class F>
PARPRIM_HOST_DEVICE int plan_levels(const chunk_survey& s, int& top) {
  using fmt = ieee_format<F>;
  if (!chunk_path_enabled || s.max_field == fmt::exponent_mask) return 0;
  if (s.all_zero) {  // zeros only: any plan adds nothing
    top = 0;
    return 1;
  }
  top = (s.max_field != 0 ? s.max_field : 1) - fmt::bias + 1;  // |x| < 2^top
  if (top + chunk_log2 > 1022) return 0;  // sigma and the slice sums must stay finite
  const int levels = slices_below<F>(s, top);
  return levels <= max_levels ? levels : 0;
}

/// \brief The splitters `sigma_l = 1.5 * 2^(T_l + 9)` of `Levels` slices below 2^top (the file
/// comment) into `sigma[0..Levels - 1)`.
template <int Levels>
PARPRIM_HOST_DEVICE void slice_splitters(int top, double* sigma) {
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = 1.5 * pow2(top - l * slice_bits + 9);
}

/// \brief Adds each of `Levels` slices of `r` (splitters `sigma`, slice_splitters) to `s[l]`.
template <int Levels>
PARPRIM_HOST_DEVICE inline void add_slices(double r, const double* sigma, double* s) {
  for (int l = 0; l + 1 < Levels; ++l) {
    const double q = (sigma[l] + r) - sigma[l];
    r -= q;
    s[l] += q;
  }
  s[Levels - 1] += r;
}

/// \brief The exact sum of each slice of `x[0..n)` (n <= chunk) into `sums[0..Levels)`.
template <int Levels, class F>
void slice_sums(const F* x, std::size_t n, int top, double* sums) {
  double sigma[Levels > 1 ? Levels - 1 : 1] = {};
  slice_splitters<Levels>(top, sigma);
  // Accumulators per slice: fewer where the compiler's code for more keeps them on the stack
  // (g++ 12 -O3, x86-64, one core of the 2-core development machine, 2^12 elements in L1, ns an
  // element with 16 / 4 / 2 lanes: two slices of doubles 0.86 / 0.57 / 0.50, of floats 0.25 /
  // 0.19 / 0.38; three slices of doubles 0.58 / 0.97 / 0.90).
  constexpr std::size_t w = Levels != 2 ? lanes : sizeof(F) == 8 ? 2 : 4;
  double acc[Levels][w] = {};
  std::size_t i = 0;
  for (; i + w <= n; i += w)
    for (std::size_t j = 0; j < w; ++j) {
      double r = static_cast<double>(x[i + j]);
      for (int l = 0; l + 1 < Levels; ++l) {
        const double q = (sigma[l] + r) - sigma[l];
        r -= q;
        acc[l][j] += q;
      }
      acc[Levels - 1][j] += r;
    }
  for (; i < n; ++i) {
    double r = static_cast<double>(x[i]);
    for (int l = 0; l + 1 < Levels; ++l) {
      const double q = (sigma[l] + r) - sigma[l];
      r -= q;
      acc[l][0] += q;
    }
    acc[Levels - 1][0] += r;
  }
  for (int l = 0; l < Levels; ++l) {
    double s = 0;
    for (std::size_t j = 0; j < w; ++j) s += acc[l][j];
    sums[l] = s;
  }
}

#if PARPRIM_HOST_AVX2
/// \brief `slice_sums` with AVX2: 4 doubles a vector (floats widened on loading), `W`
/// independent vectors a step (fewer for three slices, whose accumulators would not fit the
/// 16 registers). Every sum of a slice is exact, so the lanes' order does not show.
/// With `Survey` (doubles), the same pass also surveys the chunk (as survey_avx2) and returns
/// the survey: one read of each element, for a plan guessed before the survey (the caller keeps
/// the sums only if the survey shows that the plan covers the chunk, plan_covers).
template <int Levels, bool Survey = false, class F>
PARPRIM_TARGET_AVX2 chunk_survey slice_sums_avx2(const F* x, std::size_t n, int top, double* sums) {
  static_assert(!Survey || sizeof(F) == 8, "the one-pass survey is for doubles");
  constexpr int w = Levels == 3 ? 2 : 4;
  constexpr std::size_t step = 4 * w;
  constexpr std::int32_t none = ieee_format<double>::exponent_mask << 20;
  const __m256i abs_mask = _mm256_set1_epi64x(0x7fffffffffffffffll);
  const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ull));
  const __m256i zero_key =
      _mm256_set1_epi64x(static_cast<long long>(static_cast<std::uint64_t>(none) << 32));
  const __m256i zero = _mm256_setzero_si256();
  __m256i hi[2] = {zero, zero}, lo[2] = {zero_key, zero_key}, other[2] = {zero, zero};
  double sigma_1[Levels > 1 ? Levels - 1 : 1] = {};
  __m256d sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) {
    sigma_1[l] = 1.5 * pow2(top - l * slice_bits + 9);
    sigma[l] = _mm256_set1_pd(sigma_1[l]);
  }
  __m256d acc[Levels][w];
  for (int l = 0; l < Levels; ++l)
    for (int j = 0; j < w; ++j) acc[l][j] = _mm256_setzero_pd();
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    if constexpr (Survey) {  // (the separate survey pass prefetches otherwise)
      prefetch_ahead(x + i);
      if constexpr (step > 8) prefetch_ahead(x + i + 8);
    }
    __m256d r[w];
    for (int j = 0; j < w; ++j) {
      if constexpr (sizeof(F) == 4) {
        r[j] = _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(x + i + 4 * j)));
      } else {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 4 * j));
        if constexpr (Survey) {  // as survey_avx2's doubles (written out, not with
          // double_survey_avx2 as the scan's first pass: with it this fold of doubles ran 5 %
          // slower, GCC 12 on the 2-core development machine)
          const __m256i a = _mm256_and_si256(v, abs_mask);
          hi[j % 2] = _mm256_max_epi32(hi[j % 2], a);
          const __m256i is_zero = _mm256_cmpeq_epi64(a, zero);
          lo[j % 2] =
              _mm256_min_epi32(lo[j % 2], _mm256_or_si256(a, _mm256_and_si256(is_zero, zero_key)));
          other[j % 2] = _mm256_or_si256(other[j % 2], _mm256_xor_si256(v, sign));
        }
        r[j] = _mm256_castsi256_pd(v);
      }
    }
    for (int j = 0; j < w; ++j) {
      for (int l = 0; l + 1 < Levels; ++l) {
        const __m256d q = _mm256_sub_pd(_mm256_add_pd(sigma[l], r[j]), sigma[l]);
        r[j] = _mm256_sub_pd(r[j], q);
        acc[l][j] = _mm256_add_pd(acc[l][j], q);
      }
      acc[Levels - 1][j] = _mm256_add_pd(acc[Levels - 1][j], r[j]);
    }
  }
  double tail[Levels] = {};
  for (std::size_t k = i; k < n; ++k) {
    double r = static_cast<double>(x[k]);
    for (int l = 0; l + 1 < Levels; ++l) {
      const double q = (sigma_1[l] + r) - sigma_1[l];
      r -= q;
      tail[l] += q;
    }
    tail[Levels - 1] += r;
  }
  for (int l = 0; l < Levels; ++l) {
    __m256d v = acc[l][0];
    for (int j = 1; j < w; ++j) v = _mm256_add_pd(v, acc[l][j]);
    alignas(32) double lane[4];
    _mm256_store_pd(lane, v);
    sums[l] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + tail[l];
  }
  if constexpr (!Survey) {
    return {};
  } else {
    alignas(32) std::int32_t h[8], lw[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), _mm256_max_epi32(hi[0], hi[1]));
    _mm256_store_si256(reinterpret_cast<__m256i*>(lw), _mm256_min_epi32(lo[0], lo[1]));
    const __m256i o = _mm256_or_si256(other[0], other[1]);
    std::int32_t top_hi = 0, top_lo = none;
    for (int k = 1; k < 8; k += 2) {  // the upper words
      top_hi = h[k] > top_hi ? h[k] : top_hi;
      top_lo = lw[k] < top_lo ? lw[k] : top_lo;
    }
    return merge_survey<double>(top_hi, top_lo, _mm256_testz_si256(o, o) == 0,
                                survey_portable<double>(x + i, n - i));
  }
}
#endif

/// \brief The exact sum of each slice of `x[0..n)` into `sums[0..levels)`, `levels` 1 to 3:
/// `slice_sums_avx2` with `avx2`, else `slice_sums` (the same sums: each is exact).
template <class F>
void slice_sums_of(const F* x, std::size_t n, int levels, int top, double* sums, bool avx2) {
#if PARPRIM_HOST_AVX2
  if (avx2) {
    if (levels == 1) return (void)slice_sums_avx2<1>(x, n, top, sums);
    if (levels == 2) return (void)slice_sums_avx2<2>(x, n, top, sums);
    return (void)slice_sums_avx2<3>(x, n, top, sums);
  }
#else
  (void)avx2;
#endif
  if (levels == 1) return slice_sums<1>(x, n, top, sums);
  if (levels == 2) return slice_sums<2>(x, n, top, sums);
  slice_sums<3>(x, n, top, sums);
}

/// \brief A chunk's slicing plan: `levels` slices, the first below 2^`top` (0 levels: none).
struct slice_plan {
  int levels = 0;
  int top = 0;
};

/// \brief Whether `p` slices a chunk of survey `s` exactly, given the chunk's own plan
/// (`levels`, `top`, from plan_levels): no infinity or NaN, every |x| below 2^p.top, and
/// `p.levels` enough for the smallest element.
template <class F>
bool plan_covers(const slice_plan& p, const chunk_survey& s, int levels, int top) {
  if (p.levels == 0 || levels == 0) return false;
  return s.all_zero ||
         (top <= p.top && p.top + chunk_log2 <= 1022 && slices_below<F>(s, p.top) <= p.levels);
}

/// \brief Adds `x[0..n)` (n <= chunk) to `acc`, the passes in their AVX2 form if `avx2`. With
/// `guess` (the plan of the fold's previous chunk, updated here), chunks of doubles take the
/// one-pass survey and slicing where the guess covers them.
template <class F>
void add_chunk(exact_accumulator<F>& acc, const F* x, std::size_t n, bool avx2,
               slice_plan* guess = nullptr, chunk_survey* seen = nullptr) {
  constexpr bool sum_first = sizeof(F) == 4;  // floats: one slice is the common plan
  double sums[max_levels];
#if PARPRIM_HOST_AVX2
  if constexpr (sizeof(F) == 8) {
    if (avx2 && guess != nullptr && guess->levels > 0 && n >= 2 * lanes) {
      const int guessed = guess->levels;
      const chunk_survey s = guessed == 1   ? slice_sums_avx2<1, true>(x, n, guess->top, sums)
                             : guessed == 2 ? slice_sums_avx2<2, true>(x, n, guess->top, sums)
                                            : slice_sums_avx2<3, true>(x, n, guess->top, sums);
      int top = 0;
      const int levels = plan_levels<F>(s, top);
      if (plan_covers<F>(*guess, s, levels, top)) {
        if (seen != nullptr) *seen = s;
        if (s.not_only_negative_zeros) acc.state |= exact_accumulator<F>::not_only_negative_zeros;
        if (!s.all_zero)
          for (int l = 0; l < guessed; ++l) acc.add_exact_double(sums[l]);
        if (!s.all_zero) *guess = {levels, top};  // the chunk's own plan for the next chunk
        return;
      }
    }
  }
#endif
  const chunk_survey s = survey<F, sum_first>(x, n, sums, avx2);
  if (seen != nullptr) *seen = s;
  int top = 0;
  const int levels = n < 2 * lanes ? 0 : plan_levels<F>(s, top);
  if (guess != nullptr && !s.all_zero) *guess = {levels, top};
  if (levels == 0) {
    for (std::size_t i = 0; i < n; ++i) acc.add(x[i]);
    return;
  }
  if (s.not_only_negative_zeros) acc.state |= exact_accumulator<F>::not_only_negative_zeros;
  if (s.all_zero) return;
  if (levels > 1 || !sum_first)  // (with sum_first, sums[0] is the one slice's sum already)
    slice_sums_of(x, n, levels, top, sums, avx2);
  for (int l = 0; l < levels; ++l) acc.add_exact_double(sums[l]);
}

/// \brief Adds `x[0..n)` (n <= chunk) to `acc`.
template <class F>
void add_chunk(exact_accumulator<F>& acc, const F* x, std::size_t n) {
  add_chunk(acc, x, n, avx2_usable());
}

/// \brief Elements [b, b + n) of `in` as `F`, in chunks: a span of `F` is read in place, any
/// other input (other element types, transform views: each element read once) is converted
/// into `buf` first. `body(const F* x, std::size_t len, std::size_t first_index)`.
template <class F, class Input, class Body>
void for_each_chunk(const Input& in, std::size_t b, std::size_t n, Body body) {
  constexpr bool direct = std::is_same_v<Input, std::span<const F>>;
  F buf[direct ? 1 : chunk];
  for (std::size_t done = 0; done < n;) {
    const std::size_t len = n - done < chunk ? n - done : chunk;
    const std::size_t first = b + done;
    if constexpr (direct) {
      body(in.data() + first, len, first);
    } else {
      prefetch_next_chunk(in, first, len);
      for (std::size_t i = 0; i < len; ++i) buf[i] = static_cast<F>(in[first + i]);
      body(static_cast<const F*>(buf), len, first);
    }
    done += len;
  }
}

/// \brief What a fold of a block saw of its chunks, for a scan of the same block to reuse
/// (scan_block): each chunk's survey, so that the scan's chunks skip theirs.
struct block_surveys {
  std::size_t begin = 0;  ///< the block: elements [begin, begin + size)
  std::size_t size = 0;
  std::vector<chunk_survey> surveys;  ///< chunk j: elements from begin + j * chunk

  /// \brief The surveys of the chunks of block [b, e) from `begin`, if this is that block.
  const chunk_survey* of(std::size_t b, std::size_t e) const {
    return b == begin && e - b == size && size > 0 ? surveys.data() : nullptr;
  }
};

/// \brief `acc` plus elements [b, b + n) of `in` (each converted to `F`), exactly; with
/// `seen`, each chunk's survey recorded there.
template <class F, class Input>
exact_accumulator<F> fold(exact_accumulator<F> acc, const Input& in, std::size_t b, std::size_t n,
                          block_surveys* seen = nullptr) {
  const bool avx2 = avx2_usable();
  slice_plan guess;  // each chunk's plan, the next one's first try
  if (seen != nullptr) {
    seen->begin = b;
    seen->size = n;
    seen->surveys.resize((n + chunk - 1) / chunk);
  }
  for_each_chunk<F>(in, b, n, [&](const F* x, std::size_t len, std::size_t first) {
    add_chunk(acc, x, len, avx2, &guess,
              seen != nullptr ? &seen->surveys[(first - b) / chunk] : nullptr);
  });
  return acc;
}

}  // namespace parprim::detail::exact
