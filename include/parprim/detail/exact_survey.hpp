#pragma once
/// \file
/// \brief The first pass of the host exact sums over a chunk (exact_chunk.hpp): its survey
/// (largest and smallest exponent field, infinities or NaNs, anything but -0), and the chunk
/// constants both passes share. Three forms that say the same of every chunk: portable C++ on
/// the bits, SSE2 for floats (every x86-64 target), and AVX2 for floats and doubles, taken at
/// run time where the processor has it (`avx2_usable()`; compiled only for x86-64 host code by
/// GCC or Clang, never by nvcc).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include <parprim/detail/cpu_features.hpp>
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
#if defined(PARPRIM_EXACT_PREFETCH_BYTES)
inline constexpr std::size_t prefetch_distance = PARPRIM_EXACT_PREFETCH_BYTES;
#else
inline constexpr std::size_t prefetch_distance = 4096;
#endif

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

/// \brief The survey of no elements of `F` (what survey_portable gives for none): merged with
/// another, it is that one.
template <class F>
inline constexpr chunk_survey no_elements{0, ieee_format<F>::exponent_mask, true, false};

/// \brief Two surveys as one (of the elements of both).
inline chunk_survey merge_surveys(const chunk_survey& a, const chunk_survey& b) {
  return {a.max_field > b.max_field ? a.max_field : b.max_field,
          a.min_field < b.min_field ? a.min_field : b.min_field, a.all_zero && b.all_zero,
          a.not_only_negative_zeros || b.not_only_negative_zeros};
}

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

/// \brief survey_portable of the elements a vector pass leaves over (fewer than a step; none in
/// a whole chunk), without the call where there are none: its set-up and the packing of its
/// result took 5 % of a float exact scan's time (perf, 2-core development machine, 2 threads).
template <class F, bool Sum>
chunk_survey survey_rest(const F* x, std::size_t n, double* sum) {
  if (n > 0) return survey_portable<F, Sum>(x, n, sum);
  *sum = 0;
  return no_elements<F>;
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
  const chunk_survey tail = survey_rest<float, Sum>(x + i, n - i, &tail_sum);
  if constexpr (Sum) *sum = (p[0] + p[1]) + tail_sum;
  const auto max_field = static_cast<int>(top_hi >> 7);
  const auto min_field = static_cast<int>(top_lo >> 7);
  return merge_surveys({max_field, min_field, top_lo == 0x7fff && max_field != 0xff, other_bits},
                       tail);
}
#endif

/// \brief The forms of the host exact passes (each gives the same bits: every pass is exact).
enum class simd_form : unsigned char {
  portable,  ///< portable C++ (and SSE2 where the survey has it)
  avx2,      ///< the AVX2 passes
  avx512,    ///< the AVX2 passes, and the scan's block step with AVX-512 (F, DQ, VL)
};

/// \brief The widest form this processor runs (`avx2_supported()`, `avx512_supported()`), or
/// the one the environment variable `PARPRIM_EXACT_SIMD` asks for, `portable` or `avx2` (read
/// once; to compare the forms). Only the speed changes.
inline simd_form exact_simd() {
  static const simd_form form = [] {
    const char* env = std::getenv("PARPRIM_EXACT_SIMD");
    const std::string_view choice = env != nullptr ? env : "";
    if (!avx2_supported() || choice == "portable") return simd_form::portable;
    if (!avx512_supported() || choice == "avx2") return simd_form::avx2;
    return simd_form::avx512;
  }();
  return form;
}

/// \brief Whether the host exact passes take their AVX2 forms (exact_simd() is not portable).
inline bool avx2_usable() {
  return exact_simd() != simd_form::portable;
}

#if PARPRIM_HOST_AVX2
/// \brief The survey's last step: the largest and smallest keys (`hi`, `lo`; a zero's key is
/// `none`, the infinities' word) and whether anything but -0 was seen, of the vector part,
/// merged with the portable survey of the last few elements.
template <class F>
chunk_survey merge_survey(std::int32_t hi, std::int32_t lo, bool other, const chunk_survey& tail) {
  constexpr int field_shift = sizeof(F) == 4 ? 23 : 20;
  constexpr std::int32_t none = ieee_format<F>::exponent_mask << field_shift;
  return merge_surveys({hi >> field_shift, lo >> field_shift, lo == none && hi < none, other},
                       tail);
}

/// \brief survey_avx2's running state for doubles, for passes that survey the vectors of 4
/// doubles they load anyway (the fold's slice sums, the scan's running sums): two independent
/// accumulators of each kind, `add<J>(v)` with J 0 or 1, `result(tail)` at the end (merged with
/// the survey of the elements the vectors left out).
struct double_survey_avx2 {
  static constexpr std::int32_t none = ieee_format<double>::exponent_mask << 20;
  // (named, not arrays: an array member kept the accumulators in memory, 5 % of a fold)
  __m256i hi0, hi1, lo0, lo1, other0, other1;

  [[gnu::always_inline]] PARPRIM_TARGET_AVX2 double_survey_avx2()
      : hi0(_mm256_setzero_si256()),
        hi1(hi0),
        lo0(_mm256_set1_epi64x(static_cast<long long>(static_cast<std::uint64_t>(none) << 32))),
        lo1(lo0),
        other0(hi0),
        other1(hi0) {}

  /// \brief Surveys the 4 doubles of `v` (their bits) into accumulator `J`, 0 or 1.
  template <int J>
  [[gnu::always_inline]] PARPRIM_TARGET_AVX2 void add(__m256i v) {
    __m256i& hi = J == 0 ? hi0 : hi1;
    __m256i& lo = J == 0 ? lo0 : lo1;
    __m256i& other = J == 0 ? other0 : other1;
    const __m256i a = _mm256_and_si256(v, _mm256_set1_epi64x(0x7fffffffffffffffll));
    hi = _mm256_max_epi32(hi, a);
    const __m256i is_zero = _mm256_cmpeq_epi64(a, _mm256_setzero_si256());
    const __m256i zero_key =
        _mm256_set1_epi64x(static_cast<long long>(static_cast<std::uint64_t>(none) << 32));
    lo = _mm256_min_epi32(lo, _mm256_or_si256(a, _mm256_and_si256(is_zero, zero_key)));
    other = _mm256_or_si256(
        other,
        _mm256_xor_si256(v, _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ull))));
  }

  /// \brief The survey of every vector added and of the elements `tail` surveyed.
  [[gnu::always_inline]] PARPRIM_TARGET_AVX2 chunk_survey result(const chunk_survey& tail) const {
    alignas(32) std::int32_t h[8], l[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), _mm256_max_epi32(hi0, hi1));
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), _mm256_min_epi32(lo0, lo1));
    const __m256i o = _mm256_or_si256(other0, other1);
    std::int32_t top_hi = 0, top_lo = none;
    for (int k = 1; k < 8; k += 2) {  // the upper words
      top_hi = h[k] > top_hi ? h[k] : top_hi;
      top_lo = l[k] < top_lo ? l[k] : top_lo;
    }
    return merge_survey<double>(top_hi, top_lo, _mm256_testz_si256(o, o) == 0, tail);
  }
};

/// \brief `survey_portable` with AVX2, 16 floats or 8 doubles a step. The key of an element is
/// the word holding its exponent field, sign cleared (a float's bits; a double's upper 32
/// bits), or `none` for a zero; 32-bit maximum and minimum compare keys as magnitudes. A
/// double's lower word is compared too, and ignored (only the odd 32-bit lanes are read).
template <class F, bool Sum>
PARPRIM_TARGET_AVX2 chunk_survey survey_avx2(const F* x, std::size_t n, double* sum) {
  constexpr bool is_float = sizeof(F) == 4;
  constexpr std::size_t step = is_float ? 16 : 8;
  constexpr std::int32_t none = ieee_format<F>::exponent_mask << (is_float ? 23 : 20);
  // floats: the smallest key is the unsigned minimum of |x| - 1 (a zero wraps to the largest),
  // and "anything but -0" follows from the largest key unless every element is a zero (then a
  // second look, rare); doubles: a zero's key made `none` with a 64-bit test, as the portable
  // survey
  const __m256i abs_mask =
      is_float ? _mm256_set1_epi32(0x7fffffff) : _mm256_set1_epi64x(0x7fffffffffffffffll);
  const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(0x8000000000000000ull));
  const __m256i zero_key =
      is_float ? _mm256_set1_epi32(-1)
               : _mm256_set1_epi64x(static_cast<long long>(static_cast<std::uint64_t>(none) << 32));
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  __m256i hi[2] = {zero, zero}, lo[2] = {zero_key, zero_key};
  __m256i other[2] = {zero, zero};
  __m256d partial[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(),
                        _mm256_setzero_pd()};
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
    prefetch_ahead(x + i);
    for (int j = 0; j < 2; ++j) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + j * step / 2));
      const __m256i a = _mm256_and_si256(v, abs_mask);
      hi[j] = _mm256_max_epi32(hi[j], a);
      if constexpr (is_float) {
        lo[j] = _mm256_min_epu32(lo[j], _mm256_sub_epi32(a, one));
      } else {
        const __m256i is_zero = _mm256_cmpeq_epi64(a, zero);
        lo[j] = _mm256_min_epi32(lo[j], _mm256_or_si256(a, _mm256_and_si256(is_zero, zero_key)));
        other[j] = _mm256_or_si256(other[j], _mm256_xor_si256(v, sign));
      }
      if constexpr (Sum) {
        if constexpr (is_float) {
          const __m256 f = _mm256_castsi256_ps(v);
          partial[2 * j] =
              _mm256_add_pd(partial[2 * j], _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
          partial[2 * j + 1] =
              _mm256_add_pd(partial[2 * j + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
        } else {
          partial[j] = _mm256_add_pd(partial[j], _mm256_castsi256_pd(v));
        }
      }
    }
  }
  alignas(32) std::int32_t h[8], l[8];
  alignas(32) double p[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(h), _mm256_max_epi32(hi[0], hi[1]));
  if constexpr (is_float) {  // back from |x| - 1; a lane of zeros only: none
    const __m256i m = _mm256_min_epu32(lo[0], lo[1]);
    const __m256i none_if_zero =
        _mm256_and_si256(_mm256_cmpeq_epi32(m, _mm256_set1_epi32(-1)), _mm256_set1_epi32(none));
    _mm256_store_si256(reinterpret_cast<__m256i*>(l),
                       _mm256_or_si256(_mm256_add_epi32(m, one), none_if_zero));
  } else {
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), _mm256_min_epi32(lo[0], lo[1]));
  }
  _mm256_store_pd(p, _mm256_add_pd(_mm256_add_pd(partial[0], partial[2]),
                                   _mm256_add_pd(partial[1], partial[3])));
  std::int32_t top_hi = 0, top_lo = none;
  for (int k = is_float ? 0 : 1; k < 8; k += is_float ? 1 : 2) {  // a double's upper words
    top_hi = h[k] > top_hi ? h[k] : top_hi;
    top_lo = l[k] < top_lo ? l[k] : top_lo;
  }
  bool other_bits = top_hi != 0;  // a non-zero element (floats: else look for a +0)
  if constexpr (is_float) {
    for (std::size_t k = 0; !other_bits && k < i; ++k)
      other_bits = __builtin_bit_cast(std::uint32_t, x[k]) != 0x80000000u;
  } else {
    const __m256i o = _mm256_or_si256(other[0], other[1]);
    other_bits = _mm256_testz_si256(o, o) == 0;
  }
  double tail_sum = 0;
  const chunk_survey tail = survey_rest<F, Sum>(x + i, n - i, &tail_sum);
  if constexpr (Sum) *sum = ((p[0] + p[1]) + (p[2] + p[3])) + tail_sum;
  return merge_survey<F>(top_hi, top_lo, other_bits, tail);
}
#endif

/// \brief The first pass: `survey_avx2` with `avx2` (by default where `avx2_usable()`), else
/// `survey_sse2` for floats on x86-64, else `survey_portable`.
template <class F, bool Sum = false>
chunk_survey survey(const F* x, std::size_t n, double* sum = nullptr, bool avx2 = avx2_usable()) {
#if PARPRIM_HOST_AVX2
  if (avx2) return survey_avx2<F, Sum>(x, n, sum);
#else
  (void)avx2;
#endif
#if PARPRIM_EXACT_SURVEY_SSE2
  if constexpr (std::is_same_v<F, float>) return survey_sse2<Sum>(x, n, sum);
#endif
  return survey_portable<F, Sum>(x, n, sum);
}

}  // namespace parprim::detail::exact
