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
#include <limits>
#include <span>
#include <type_traits>

#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/macros.hpp>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#define PARPRIM_EXACT_SURVEY_SSE2 1
#else
#define PARPRIM_EXACT_SURVEY_SSE2 0
#endif

namespace parprim::detail::exact {

/// \brief Elements per chunk (2^chunk_log2): the slices' headroom is 53 - 43 = 10 bits.
inline constexpr int chunk_log2 = 10;
inline constexpr std::size_t chunk = std::size_t{1} << chunk_log2;
/// \brief Independent accumulators per slice (SIMD lanes and instruction-level parallelism).
inline constexpr std::size_t lanes = 16;
/// \brief Bits of magnitude each extraction slice covers.
inline constexpr int slice_bits = 44;
/// \brief Most slices the chunk path runs (more: element by element).
inline constexpr int max_levels = 3;

#if defined(__FAST_MATH__)
inline constexpr bool chunk_path_enabled = false;
#else
inline constexpr bool chunk_path_enabled = true;
#endif

/// \brief 2^e as a double, for e <= 1023 (0 below the smallest subnormal, 2^-1074).
PARPRIM_HOST_DEVICE inline double pow2(int e) {
  if (e >= -1022) return __builtin_bit_cast(double, static_cast<std::uint64_t>(e + 1023) << 52);
  return e >= -1074 ? __builtin_bit_cast(double, std::uint64_t{1} << (e + 1074)) : 0.0;
}

/// \brief How far ahead of the element being read the host exact paths prefetch (bytes). The
/// chunks are read in short passes with a lot of work per element; without a software prefetch
/// the hardware's fell behind (one thread summed floats from DRAM at 1.5 ns per element, 0.5 in
/// L1; with it 0.57).
inline constexpr std::size_t prefetch_distance = 4096;

/// \brief A hint to bring the cache line `prefetch_distance` bytes past `p` in (no fault if it
/// lies past the end of the data).
template <class T>
inline void prefetch_ahead(const T* p) {
  __builtin_prefetch(reinterpret_cast<const char*>(p) + prefetch_distance);
}

/// \brief Prefetches the chunk after elements [first, first + len) of `in` where `in` is a
/// contiguous range (a span; not a transform view, whose elements are computed), before a loop
/// that converts elements one by one into a buffer.
template <class Input>
inline void prefetch_next_chunk(const Input& in, std::size_t first, std::size_t len) {
  if constexpr (requires { in.data(); }) {
    const std::size_t next = first + len;
    if (next >= in.size()) return;
    const std::size_t count = in.size() - next < len ? in.size() - next : len;
    const auto* p = reinterpret_cast<const char*>(in.data() + next);
    for (std::size_t b = 0; b < count * sizeof(*in.data()); b += 64) __builtin_prefetch(p + b);
  }
}

/// \brief What the first pass learns about a chunk.
struct chunk_survey {
  int max_field;  ///< biased exponent field of the largest |x| (all ones: an inf or a NaN)
  int min_field;  ///< biased exponent field of the smallest non-zero |x|
  bool all_zero;  ///< every element is +0 or -0
  bool not_only_negative_zeros;
};

/// \brief The first pass, portable C++ on the bits (a double is judged by its upper 32 bits,
/// which hold its exponent field). With `Sum`, it also sums the elements in double into `*sum`:
/// exact whenever the plan is one slice (in any order), which saves floats a second pass.
template <class F, bool Sum = false>
chunk_survey survey_portable(const F* x, std::size_t n, double* sum = nullptr) {
  using U = typename ieee_format<F>::bits_type;
  constexpr int word_shift = sizeof(F) == 4 ? 0 : 32;    // the word holding the exponent
  constexpr int field_shift = sizeof(F) == 4 ? 23 : 20;  // its position in that word
  constexpr std::int32_t none = ieee_format<F>::exponent_mask << field_shift;  // inf's word
  constexpr U sign = U{1} << (8 * sizeof(F) - 1);
  constexpr std::size_t w = 8;
  std::int32_t hi[w], lo[w];
  U other[w];
  double partial[w];
  for (std::size_t j = 0; j < w; ++j) {
    hi[j] = 0;
    lo[j] = none;
    other[j] = 0;
    partial[j] = 0;
  }
  const auto step = [&](std::size_t j, F v) {
    const U u = __builtin_bit_cast(U, v);
    const auto h =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(u >> word_shift) & 0x7fffffffu);
    const auto rest = static_cast<std::int32_t>(sizeof(F) == 4 ? 0 : static_cast<std::uint32_t>(u));
    hi[j] = hi[j] < h ? h : hi[j];
    const std::int32_t key = h | (-static_cast<std::int32_t>((h | rest) == 0) & none);
    lo[j] = key < lo[j] ? key : lo[j];
    other[j] |= u ^ sign;
    if constexpr (Sum) partial[j] += static_cast<double>(v);
  };
  std::size_t i = 0;
  for (; i + w <= n; i += w) {
    prefetch_ahead(x + i);
    for (std::size_t j = 0; j < w; ++j) step(j, x[i + j]);
  }
  for (; i < n; ++i) step(0, x[i]);
  std::int32_t h = 0, l = none;
  U o = 0;
  double total = 0;
  for (std::size_t j = 0; j < w; ++j) {
    h = h < hi[j] ? hi[j] : h;
    l = lo[j] < l ? lo[j] : l;
    o |= other[j];
    total += partial[j];
  }
  if constexpr (Sum) *sum = total;
  return {h >> field_shift, l >> field_shift, l == none && h < none, o != 0};
}

#if PARPRIM_EXACT_SURVEY_SSE2
/// \brief The first pass over floats with SSE2 (every x86-64 target has it), the same survey as
/// `survey_portable`, whose 32-bit minimum and maximum the compiler cannot vectorize (SSE2 has
/// none): 1.06 ns a float in L1 there, 0.31 here (with the sum; one core of the 2-core
/// development machine). The exponent field sits in the top 16 bits of |x| (8 exponent bits and
/// 7 fraction bits below the sign), which SSE2's signed 16-bit maximum and minimum compare as
/// they are; the low 16-bit lanes are ignored. A zero's key is 0x7fff, above every finite
/// number's; an infinity or a NaN has the all-ones field, which the maximum reports, and the
/// plan then goes element by element whatever the minimum says. (Doubles keep the portable
/// survey: judged by their upper 32 bits it vectorizes, 0.19 ns a double in L1, and an SSE2
/// version with 64-bit zero tests took 0.42.)
template <bool Sum>
chunk_survey survey_sse2(const float* x, std::size_t n, double* sum) {
  const __m128i abs_mask = _mm_set1_epi32(0x7fffffff);
  const __m128i sign_bit = _mm_set1_epi32(static_cast<int>(0x80000000u));
  const __m128i zero_key = _mm_set1_epi32(0x7fff0000);
  __m128i hi[2] = {_mm_setzero_si128(), _mm_setzero_si128()};
  __m128i lo[2] = {_mm_set1_epi16(0x7fff), _mm_set1_epi16(0x7fff)};
  __m128i other[2] = {_mm_setzero_si128(), _mm_setzero_si128()};
  __m128d partial[4] = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
  const auto step = [&](int j, __m128i v) {
    const __m128i a = _mm_and_si128(v, abs_mask);
    hi[j] = _mm_max_epi16(hi[j], a);
    const __m128i zero = _mm_cmpeq_epi32(a, _mm_setzero_si128());
    lo[j] = _mm_min_epi16(lo[j], _mm_or_si128(a, _mm_and_si128(zero, zero_key)));
    other[j] = _mm_or_si128(other[j], _mm_xor_si128(v, sign_bit));
    if constexpr (Sum) {
      const __m128 f = _mm_castsi128_ps(v);
      partial[2 * j] = _mm_add_pd(partial[2 * j], _mm_cvtps_pd(f));
      partial[2 * j + 1] = _mm_add_pd(partial[2 * j + 1], _mm_cvtps_pd(_mm_movehl_ps(f, f)));
    }
  };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    prefetch_ahead(x + i);
    step(0, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
    step(1, _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i + 4)));
  }
  alignas(16) std::uint32_t h[4], l[4], o[4];
  alignas(16) double p[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(h), _mm_max_epi16(hi[0], hi[1]));
  _mm_store_si128(reinterpret_cast<__m128i*>(l), _mm_min_epi16(lo[0], lo[1]));
  _mm_store_si128(reinterpret_cast<__m128i*>(o), _mm_or_si128(other[0], other[1]));
  _mm_store_pd(p,
               _mm_add_pd(_mm_add_pd(partial[0], partial[2]), _mm_add_pd(partial[1], partial[3])));
  unsigned top_hi = 0, top_lo = 0x7fff;
  bool other_bits = false;
  for (int j = 0; j < 4; ++j) {  // the top 16-bit lane of each float
    top_hi = (h[j] >> 16) > top_hi ? h[j] >> 16 : top_hi;
    top_lo = (l[j] >> 16) < top_lo ? l[j] >> 16 : top_lo;
    other_bits = other_bits || o[j] != 0;
  }
  // the last n % 8 elements by the portable survey, merged (a zero's field is 0xff in both)
  double tail_sum = 0;
  const chunk_survey tail = survey_portable<float, Sum>(x + i, n - i, &tail_sum);
  if constexpr (Sum) *sum = (p[0] + p[1]) + tail_sum;
  const auto max_field = static_cast<int>(top_hi >> 7);
  const auto min_field = static_cast<int>(top_lo >> 7);
  return {max_field > tail.max_field ? max_field : tail.max_field,
          min_field < tail.min_field ? min_field : tail.min_field,
          top_lo == 0x7fff && max_field != 0xff && tail.all_zero,
          other_bits || tail.not_only_negative_zeros};
}
#endif

/// \brief The first pass: `survey_sse2` for floats on x86-64, else `survey_portable`.
template <class F, bool Sum = false>
chunk_survey survey(const F* x, std::size_t n, double* sum = nullptr) {
#if PARPRIM_EXACT_SURVEY_SSE2
  if constexpr (std::is_same_v<F, float>) return survey_sse2<Sum>(x, n, sum);
#endif
  return survey_portable<F, Sum>(x, n, sum);
}

/// \brief The slicing plan of a chunk: 0 means "element by element" (infinities or NaNs, or
/// exponents too far apart). `top` receives T (|x| < 2^T for every element).
template <class F>
PARPRIM_HOST_DEVICE int plan_levels(const chunk_survey& s, int& top) {
  using fmt = ieee_format<F>;
  constexpr int stored = fmt::precision - 1;
  if (!chunk_path_enabled || s.max_field == fmt::exponent_mask) return 0;
  if (s.all_zero) {  // zeros only: any plan adds nothing
    top = 0;
    return 1;
  }
  top = (s.max_field != 0 ? s.max_field : 1) - fmt::bias + 1;                  // |x| < 2^top
  const int grid = (s.min_field != 0 ? s.min_field : 1) - fmt::bias - stored;  // last place
  if (top + chunk_log2 > 1022) return 0;  // sigma and the slice sums must stay finite
  const int excess = top - (53 - chunk_log2) - grid;
  const int levels = excess <= 0 ? 1 : 1 + (excess + slice_bits - 1) / slice_bits;
  return levels <= max_levels ? levels : 0;
}

/// \brief The exact sum of each slice of `x[0..n)` (n <= chunk) into `sums[0..Levels)`.
template <int Levels, class F>
void slice_sums(const F* x, std::size_t n, int top, double* sums) {
  double sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = 1.5 * pow2(top - l * slice_bits + 9);
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

/// \brief Adds `x[0..n)` (n <= chunk) to `acc`.
template <class F>
void add_chunk(exact_accumulator<F>& acc, const F* x, std::size_t n) {
  constexpr bool sum_first = sizeof(F) == 4;  // floats: one slice is the common plan
  double sums[max_levels];
  const chunk_survey s = survey<F, sum_first>(x, n, sums);
  int top = 0;
  const int levels = n < 2 * lanes ? 0 : plan_levels<F>(s, top);
  if (levels == 0) {
    for (std::size_t i = 0; i < n; ++i) acc.add(x[i]);
    return;
  }
  if (s.not_only_negative_zeros) acc.state |= exact_accumulator<F>::not_only_negative_zeros;
  if (s.all_zero) return;
  if (levels == 2)
    slice_sums<2>(x, n, top, sums);
  else if (levels == 3)
    slice_sums<3>(x, n, top, sums);
  else if (!sum_first)  // (with sum_first, sums[0] is the one slice's sum already)
    slice_sums<1>(x, n, top, sums);
  for (int l = 0; l < levels; ++l) acc.add_exact_double(sums[l]);
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

/// \brief `acc` plus elements [b, b + n) of `in` (each converted to `F`), exactly.
template <class F, class Input>
exact_accumulator<F> fold(exact_accumulator<F> acc, const Input& in, std::size_t b, std::size_t n) {
  for_each_chunk<F>(in, b, n,
                    [&acc](const F* x, std::size_t len, std::size_t) { add_chunk(acc, x, len); });
  return acc;
}

}  // namespace parprim::detail::exact
