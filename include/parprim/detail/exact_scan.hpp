#pragma once
/// \file
/// \brief The host exact scans: every output is the exact prefix sum rounded once. A block is
/// scanned chunk by chunk (exact_chunk.hpp). Within a chunk the exact prefix is
/// `P = A + s_0 + ... + s_(L-1)`: `A` the superaccumulator before the chunk, the `s_l` the
/// chunk's running slice sums, exact doubles. `A` is read once per chunk as two doubles,
/// `a_hi = RN(A)` and `a_lo = RN(A - a_hi)`; each prefix is then approximated in double
/// arithmetic together with a rigorous bound on the error, and the approximation is accepted
/// only when the bound proves which way the exact prefix rounds (it lies strictly within half a
/// unit in the last place of the candidate, a quarter below a power of two). Otherwise (the
/// exact prefix very close to a rounding boundary, or zero, subnormal or beyond the largest
/// finite value, or a chunk the slices do not cover) the chunk is scanned again element by
/// element on the superaccumulator, which rounds exactly. Both ways give the same bits.
///
/// - float results: the prefix in double, `u = ((a_hi + s_0) + s_1) + s_2`; error
///   <= |a_lo| (1 + 2^-53) + 2^-53 (sum of the partial results' magnitudes); 29 spare bits.
/// - double results: the prefix as an unevaluated sum `r + e` (TwoSum twice, Knuth), error
///   <= 2^-51 (|l| + |a_lo| + |s_1| + |s_2|), l the error of a_hi + s_0.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_chunk.hpp>
#include <parprim/detail/macros.hpp>

namespace parprim::detail::exact {

/// \brief Below this many elements a chunk is scanned element by element.
inline constexpr std::size_t min_chunk_scan = 2 * lanes;

/// \brief 2^e for the binade [2^e, 2^(e+1)) of |x|: x's exponent bits alone (0 for zero and
/// subnormals, infinity for infinities and NaNs).
PARPRIM_HOST_DEVICE inline double binade(double x) {
  return __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, x) & 0x7ff0000000000000ull);
}

/// \brief |x| (host and device).
PARPRIM_HOST_DEVICE inline double magnitude_of(double x) {
#if defined(__CUDA_ARCH__)
  return ::fabs(x);
#else
  return __builtin_fabs(x);
#endif
}

/// \brief 1 if `a < b`, else 0, for finite a, b or b = inf: the sign of the exactly signed
/// a - b. The checks below are written with it (and |, not ||) because a loop whose
/// conditions are floating-point comparisons does not vectorize (GCC 12 with trapping math);
/// integer operations on the bits do.
PARPRIM_HOST_DEVICE inline std::uint64_t less(double a, double b) {
  return __builtin_bit_cast(std::uint64_t, a - b) >> 63;
}

/// \brief |u - m|, m the float midpoint next to u: u with its 29 bits below the float's last
/// place set to 100...0 (exact: u and m share their sign and binade).
PARPRIM_HOST_DEVICE inline double distance_to_float_midpoint(double u) {
  constexpr std::uint64_t low29 = (std::uint64_t{1} << 29) - 1;
  const double m = __builtin_bit_cast(
      double, (__builtin_bit_cast(std::uint64_t, u) & ~low29) | (std::uint64_t{1} << 28));
  return magnitude_of(u - m);
}

/// \brief Rounds the prefix `a_hi + a_lo + s[0] + ... (+ rest)` to float, into `out`, and
/// returns 0 if the double approximation u proves the rounding (see the file comment), 1 if
/// not: the exact prefix lies within the bound of u, and the float midpoint next to u, m (u with
/// its 29 bits below the float's last place set to 100...0), is farther from u than that, so the
/// prefix rounds as u does. The bound also stays below a quarter of the float's last place (the
/// midpoint below a power of two is that close), and u is a normal float.
template <int Levels>
PARPRIM_HOST_DEVICE std::uint64_t round_prefix(double a_hi, double a_lo, const double* s,
                                               float& out) {
  double u = a_hi + s[0];
  double magnitude = magnitude_of(u);
  for (int l = 1; l < Levels; ++l) {
    u += s[l];
    magnitude += magnitude_of(u);
  }
  const double bound = 2.0 * magnitude_of(a_lo) + 0x1p-52 * magnitude;
  const double e = binade(u);
  out = static_cast<float>(u);
  return less(distance_to_float_midpoint(u), bound) | (less(bound, e * 0x1p-26) ^ 1) |
         less(e, 0x1p-126) | less(0x1p126, e);
}

/// \brief As above for double results, with the prefix as the unevaluated sum r + e and the
/// candidate r: the rest (|e| and the bound) must stay below half r's last place, a quarter
/// when r is a power of two, and r must be neither tiny (its last place near the subnormals)
/// nor huge. `a_err` (the GPU scan's carried prefix, kernels/scan_exact_sum.cuh): the prefix
/// before the chunk may differ from a_hi + a_lo by a_err more than a read leaves (0 after a
/// read); the bound takes it twice.
template <int Levels>
PARPRIM_HOST_DEVICE std::uint64_t round_prefix(double a_hi, double a_lo, const double* s,
                                               double& out, double a_err = 0) {
  const double h = a_hi + s[0];  // TwoSum: a_hi + s[0] == h + l exactly
  const double hb = h - a_hi;
  const double l = (a_hi - (h - hb)) + (s[0] - hb);
  double t = l + a_lo;
  double magnitude = magnitude_of(l) + magnitude_of(a_lo) + 0x1p51 * a_err;
  for (int k = 1; k < Levels; ++k) {
    t += s[k];
    magnitude += magnitude_of(s[k]);
  }
  const double r = h + t;  // TwoSum: h + t == r + e exactly
  const double rb = r - h;
  const double e = (h - (r - rb)) + (t - rb);
  const double b = binade(r);
  const double rest = magnitude_of(e) + 0x1p-50 * magnitude;
  out = r;
  // (with room for the rounding of `rest` itself in the constants)
  const std::uint64_t half = less(rest, b * 0x1.fffffffffffffp-54);
  const std::uint64_t quarter = less(rest, b * 0x1.fffffffffffffp-55);
  const std::uint64_t above_power_of_two = less(b, magnitude_of(r));
  const std::uint64_t proved = half & (quarter | above_power_of_two);
  return (proved ^ 1) | less(b, 0x1p-960) | less(0x1p1022, b);
}

/// \brief One bound for a whole chunk of float prefixes: `bound` is at least the
/// bound round_prefix computes for any prefix of the chunk, and `lowest` the smallest binade
/// of a prefix that round_prefix's other tests (the bound below a quarter of the float's last
/// place, a normal float) let through with it.
struct chunk_bound {
  double bound;
  double lowest;
  double largest;  ///< at least |u| for every prefix's approximation u
};

/// \brief The chunk's bound for `Levels` slices below 2^top: every running slice sum is at most
/// 2^(T_l + 10) in magnitude, so every partial result of a prefix at most
/// U = |a_hi| + sum of those (with room for its roundings), and round_prefix's bound at most
/// 2 |a_lo| + 2^-52 Levels U; a generous factor covers this computation's own roundings. A
/// larger bound proves fewer prefixes, never a wrong one (a prefix it cannot prove sends the
/// chunk element by element, as before).
template <int Levels>
PARPRIM_HOST_DEVICE chunk_bound float_chunk_bound(double a_hi, double a_lo, int top) {
  double u = magnitude_of(a_hi);
  for (int l = 0; l < Levels; ++l) u += pow2(top - l * slice_bits + chunk_log2);
  u *= 1.0 + 0x1p-40;
  const double bound = (2.0 * magnitude_of(a_lo) + 0x1p-52 * (Levels * u)) * (1.0 + 0x1p-40);
  const double lowest = 2.0 * binade(bound * 0x1p26);  // the least power of two above it
  return {bound, lowest > 0x1p-126 ? lowest : 0x1p-126, u};
}

/// \brief round_prefix for float results with the chunk's bound (float_chunk_bound): the same
/// tests with fewer operations a prefix (the bound and the smallest binade are the chunk's).
template <int Levels>
PARPRIM_HOST_DEVICE std::uint64_t round_prefix_in_chunk(double a_hi, const double* s,
                                                        const chunk_bound& b, float& out) {
  double u = a_hi + s[0];
  for (int l = 1; l < Levels; ++l) u += s[l];
  const double e = binade(u);
  out = static_cast<float>(u);
  return less(distance_to_float_midpoint(u), b.bound) | less(e, b.lowest) | less(0x1p126, e);
}

/// \brief How a chunk's prefixes are computed (see scan_chunk).
enum class prefix_mode {
  exact_double,  ///< a_hi + s_0 + ... is a double, exactly: the output is it, rounded to F
  exact_pair,    ///< (double results) a_hi + s_0 + ... is exactly h + t: the output is h + t
  checked,       ///< approximated, each output proved (round_prefix)
};

/// \brief One prefix `a_hi + s[0] + ... + s[Levels - 1]` (+ a_lo + rest) rounded to `F` into
/// `out`; returns 1 if it could not be proved, else 0. An exact prefix of zero is +0 when an
/// operand other than -0 came before it (`zero_unknown` 0: the caller knows one did; the
/// `+ F(0)` turns a -0 into +0 and leaves every other value as it is), else its sign needs the
/// flags (`zero_unknown` 1: a zero prefix returns 1). `a_err`: as round_prefix's for double
/// results (checked mode; 0 elsewhere).
template <int Levels, prefix_mode Mode, class F>
PARPRIM_HOST_DEVICE std::uint64_t prefix_value(double a_hi, double a_lo, const double* s, F& out,
                                               std::uint64_t zero_unknown, double a_err = 0) {
  if constexpr (Mode == prefix_mode::exact_double) {
    double u = a_hi + s[0];
    for (int l = 1; l < Levels; ++l) u += s[l];
    out = static_cast<F>(u) + F(0);
    return (less(0.0, magnitude_of(u)) ^ 1) & zero_unknown;
  } else if constexpr (Mode == prefix_mode::exact_pair) {
    const double h = a_hi + s[0];
    const double hb = h - a_hi;
    double t = (a_hi - (h - hb)) + (s[0] - hb) + a_lo;
    for (int l = 1; l < Levels; ++l) t += s[l];
    const double r = h + t;
    out = static_cast<F>(r) + F(0);
    return (less(0.0, magnitude_of(r)) ^ 1) & zero_unknown;
  } else {
    (void)zero_unknown;  // (a zero prefix is never proved here: round_prefix returns 1)
    if constexpr (sizeof(F) == 8)
      return round_prefix<Levels>(a_hi, a_lo, s, out, a_err);
    else
      return round_prefix<Levels>(a_hi, a_lo, s, out);
  }
}

/// \brief Independent running sums a chunk's first pass keeps (quarters of the chunk).
inline constexpr std::size_t scan_chains = 4;

#if PARPRIM_HOST_AVX2
/// \brief The inclusive prefix sums of a vector's 4 lanes: [a b c d] -> [a a+b c c+d] (in-lane:
/// [0 a 0 c] added) -> [a a+b a+b+c a+b+c+d] (a+b into both halves' places in-lane, then the
/// low half into the high: one lane-crossing shuffle).
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline __m256d lane_prefix_sums(__m256d q) {
  const __m256d v = _mm256_add_pd(q, _mm256_unpacklo_pd(_mm256_setzero_pd(), q));
  return _mm256_add_pd(v, _mm256_permute2f128_pd(_mm256_permute_pd(v, 0xf), v, 0x08));
}

/// \brief Lane 3 of `v` in every lane.
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline __m256d last_lane_of(__m256d v) {
  return _mm256_permute4x64_pd(v, 0xff);
}

/// \brief The elements `r` split into `Levels` slices `q` (splitters `sigma`, running_slices'
/// `step` 4 lanes at once).
template <int Levels>
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline void split_slices(__m256d r, const __m256d* sigma,
                                                                    __m256d* q) {
  for (int l = 0; l + 1 < Levels; ++l) {
    q[l] = _mm256_sub_pd(_mm256_add_pd(sigma[l], r), sigma[l]);
    r = _mm256_sub_pd(r, q[l]);
  }
  q[Levels - 1] = r;
}

/// \brief The first pass of scan_slices with AVX2, as far as every quarter of the chunk has 4
/// more elements: 4 consecutive elements of a quarter a vector, sliced, each slice's prefix
/// sum within the vector (two shifted adds) plus the quarter's running total, the 4 quarters
/// interleaved. Writes `running[l][i]` (an exclusive one as the inclusive minus the element's
/// slice: exact, as every sum of slices) and the quarters' totals `s[c][l]`; returns how many
/// elements of each quarter it did. With `Survey` (doubles), the same loads also survey those
/// elements (as survey_avx2) into `*survey`. With `ahead`, each step asks the cache (L2) for
/// the next 16 elements' bytes from there (elements the caller reads later: read_ahead).
template <int Levels, bool Exclusive, bool Survey = false, class F>
PARPRIM_TARGET_AVX2 std::size_t running_sums_avx2(const F* x, std::size_t n, std::size_t quarter,
                                                  const double* sigma_1, double (*running)[chunk],
                                                  double (*s)[Levels], const char* ahead,
                                                  chunk_survey* survey = nullptr) {
  static_assert(!Survey || sizeof(F) == 8, "the one-pass survey is for doubles");
  [[maybe_unused]] double_survey_avx2 surveyed;
  const __m256d zero = _mm256_setzero_pd();
  __m256d sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = _mm256_set1_pd(sigma_1[l]);
  __m256d carry[scan_chains][Levels];
  for (std::size_t c = 0; c < scan_chains; ++c)
    for (int l = 0; l < Levels; ++l) carry[c][l] = zero;
  const std::size_t last = (scan_chains - 1) * quarter;  // the last quarter is the shortest
  std::size_t i = 0;
  for (; last + i + 4 <= n; i += 4) {
    if (ahead != nullptr) {  // 16 elements a step: one line of floats, two of doubles
      __builtin_prefetch(ahead + i * 4 * sizeof(F), 0, 2);
      if constexpr (sizeof(F) == 8) __builtin_prefetch(ahead + i * 32 + 64, 0, 2);
    }
    if constexpr (Survey) {
      // the next chunk, 128 bytes a step: it arrives while this one's outputs are proved (the
      // survey pass's prefetch runs ahead otherwise)
      const char* next = reinterpret_cast<const char*>(x + n) + i * 32;
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
    }
    for (std::size_t c = 0; c < scan_chains; ++c) {
      const std::size_t k = c * quarter + i;
      __m256d r;
      if constexpr (sizeof(F) == 4) {
        r = _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(x + k)));
      } else {
        r = _mm256_loadu_pd(reinterpret_cast<const double*>(x + k));
        if constexpr (Survey) {
          if (c % 2 == 0)
            surveyed.add<0>(_mm256_castpd_si256(r));
          else
            surveyed.add<1>(_mm256_castpd_si256(r));
        }
      }
      __m256d q[Levels];
      split_slices<Levels>(r, sigma, q);
      for (int l = 0; l < Levels; ++l) {
        const __m256d v = _mm256_add_pd(lane_prefix_sums(q[l]), carry[c][l]);
        _mm256_storeu_pd(running[l] + k, Exclusive ? _mm256_sub_pd(v, q[l]) : v);
        carry[c][l] = last_lane_of(v);
      }
    }
  }
  for (std::size_t c = 0; c < scan_chains; ++c)
    for (int l = 0; l < Levels; ++l) s[c][l] = _mm256_cvtsd_f64(carry[c][l]);
  if constexpr (Survey) *survey = surveyed.result(no_elements<double>);
  return i;
}

/// \brief Every lane of an 8-lane mask: the AVX-512 passes take the zero-masked forms of the
/// intrinsics whose unmasked forms GCC 12 writes from an undefined vector (which its
/// -Wuninitialized reports where they are inlined); with every lane set they are the same
/// instructions.
inline constexpr unsigned char all_lanes = 0xff;

/// \brief The inclusive prefix sums of a vector's 8 lanes: three shifted adds (lanes moved up
/// by 1, 2 and 4, zeros shifted in).
[[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline __m512d lane_prefix_sums(__m512d q) {
  const __m512i up_1 = _mm512_set_epi64(6, 5, 4, 3, 2, 1, 0, 0);
  const __m512i up_2 = _mm512_set_epi64(5, 4, 3, 2, 1, 0, 0, 0);
  const __m512i up_4 = _mm512_set_epi64(3, 2, 1, 0, 0, 0, 0, 0);
  __m512d v = _mm512_add_pd(q, _mm512_maskz_permutexvar_pd(0xfe, up_1, q));
  v = _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xfc, up_2, v));
  return _mm512_add_pd(v, _mm512_maskz_permutexvar_pd(0xf0, up_4, v));
}

/// \brief Lane 7 of `v` in every lane.
[[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline __m512d last_lane_of(__m512d v) {
  return _mm512_maskz_permutexvar_pd(all_lanes, _mm512_set1_epi64(7), v);
}

/// \brief 8 elements of `x` as doubles, split into `Levels` slices `q` (splitters `sigma`,
/// running_slices' `step` 8 lanes at once).
template <int Levels, class F>
[[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline void slice_lanes_of(const F* x,
                                                                        const __m512d* sigma,
                                                                        __m512d* q) {
  __m512d r;
  if constexpr (sizeof(F) == 4)
    r = _mm512_maskz_cvtps_pd(all_lanes, _mm256_loadu_ps(reinterpret_cast<const float*>(x)));
  else
    r = _mm512_loadu_pd(reinterpret_cast<const double*>(x));
  for (int l = 0; l + 1 < Levels; ++l) {
    q[l] = _mm512_sub_pd(_mm512_add_pd(sigma[l], r), sigma[l]);
    r = _mm512_sub_pd(r, q[l]);
  }
  q[Levels - 1] = r;
}

/// \brief running_sums_avx2's pass with AVX-512, 8 consecutive elements of a quarter a vector
/// (no survey): each slice's prefix sum within the vector by three shifted adds (lanes moved up
/// by 1, 2 and 4, zeros shifted in), plus the quarter's running total (the vector's last lane,
/// broadcast). Half the shuffles an element of the AVX2 form. Returns how many elements of each
/// quarter it did.
template <int Levels, bool Exclusive, class F>
PARPRIM_TARGET_AVX512 std::size_t running_sums_avx512(const F* x, std::size_t n,
                                                      std::size_t quarter, const double* sigma_1,
                                                      double (*running)[chunk], double (*s)[Levels],
                                                      const char* ahead) {
  const __m512d zero = _mm512_setzero_pd();
  __m512d sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = _mm512_set1_pd(sigma_1[l]);
  __m512d carry[scan_chains][Levels];
  for (std::size_t c = 0; c < scan_chains; ++c)
    for (int l = 0; l < Levels; ++l) carry[c][l] = zero;
  const std::size_t last = (scan_chains - 1) * quarter;  // the last quarter is the shortest
  std::size_t i = 0;
  for (; last + i + 8 <= n; i += 8) {
    if (ahead != nullptr)  // 32 elements a step: two lines of floats, four of doubles
      for (std::size_t b = 0; b < 32 * sizeof(F); b += 64)
        __builtin_prefetch(ahead + i * 4 * sizeof(F) + b, 0, 2);
    for (std::size_t c = 0; c < scan_chains; ++c) {
      const std::size_t k = c * quarter + i;
      __m512d q[Levels];
      slice_lanes_of<Levels>(x + k, sigma, q);
      for (int l = 0; l < Levels; ++l) {
        const __m512d v = _mm512_add_pd(lane_prefix_sums(q[l]), carry[c][l]);
        _mm512_storeu_pd(running[l] + k, Exclusive ? _mm512_sub_pd(v, q[l]) : v);
        carry[c][l] = last_lane_of(v);
      }
    }
  }
  for (std::size_t c = 0; c < scan_chains; ++c)
    for (int l = 0; l < Levels; ++l) s[c][l] = _mm512_cvtsd_f64(carry[c][l]);
  return i;
}
#endif

/// \brief The end of quarter c of a chunk of n elements (the last quarter may be shorter).
inline std::size_t quarter_end(std::size_t c, std::size_t quarter, std::size_t n) {
  return (c + 1) * quarter < n ? (c + 1) * quarter : n;
}

/// \brief Outputs [i, end) of quarter c from its running slice sums and offset: each proved by
/// `bound` (float results, `ChunkBound`) or by its own (prefix_value); returns non-zero if any
/// was not. (prove_outputs' loop, and the vector forms' last elements of a quarter.)
template <int Levels, prefix_mode Mode, bool ChunkBound, class F>
[[gnu::always_inline]] inline std::uint64_t prove_range(std::size_t c, std::size_t i,
                                                        std::size_t end,
                                                        const double (*running)[chunk],
                                                        const double (*offset)[Levels], double a_hi,
                                                        double a_lo, const chunk_bound* bound,
                                                        F* out, std::uint64_t zero_unknown) {
  std::uint64_t failed = 0;
  for (; i < end; ++i) {
    double v[Levels];
    for (int l = 0; l < Levels; ++l) v[l] = running[l][i] + offset[c][l];
    if constexpr (ChunkBound)
      failed |= round_prefix_in_chunk<Levels>(a_hi, v, *bound, out[i]);
    else
      failed |= prefix_value<Levels, Mode>(a_hi, a_lo, v, out[i], zero_unknown);
  }
  return failed;
}

/// \brief The outputs of scan_slices from the quarters' running slice sums and offsets: each
/// proved by `bound` (float results, `ChunkBound`) or by its own (prefix_value); returns
/// non-zero if any was not. Most chunks know a zero prefix's sign (an operand other than -0 came
/// before them): their loop has no test for a zero prefix (in the exact_double mode about half
/// the operations of an output).
template <int Levels, prefix_mode Mode, bool ChunkBound, class F>
[[gnu::always_inline]] inline std::uint64_t prove_outputs(std::size_t n, std::size_t quarter,
                                                          const double (*running)[chunk],
                                                          const double (*offset)[Levels],
                                                          double a_hi, double a_lo,
                                                          const chunk_bound* bound, F* out,
                                                          std::uint64_t zero_unknown) {
  std::uint64_t failed = 0;
  for (std::size_t c = 0; c < scan_chains; ++c) {
    const std::size_t end = quarter_end(c, quarter, n);
    // (a literal 0: the inlined loop has no zero test; the checked modes never read it)
    if (zero_unknown == 0)
      failed |= prove_range<Levels, Mode, ChunkBound>(c, c * quarter, end, running, offset, a_hi,
                                                      a_lo, bound, out, 0);
    else
      failed |= prove_range<Levels, Mode, ChunkBound>(c, c * quarter, end, running, offset, a_hi,
                                                      a_lo, bound, out, zero_unknown);
  }
  return failed;
}

#if PARPRIM_HOST_AVX2
/// \brief Quarter c's offsets broadcast, one vector a slice (the AVX2 second passes).
template <int Levels>
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline void quarter_offsets(
    const double (*offset)[Levels], std::size_t c, __m256d* off) {
  for (int l = 0; l < Levels; ++l) off[l] = _mm256_set1_pd(offset[c][l]);
}

/// \brief The slice-l sums s_l of outputs [i, i + 4) of a quarter: their running sums plus the
/// quarter's offset (`off`, from quarter_offsets).
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline __m256d slice_lanes(
    const double (*running)[chunk], const __m256d* off, int l, std::size_t i) {
  return _mm256_add_pd(_mm256_loadu_pd(running[l] + i), off[l]);
}

/// \brief |v| for 4 lanes.
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline __m256d magnitude_lanes(__m256d v) {
  return _mm256_and_pd(v, _mm256_set1_pd(__builtin_bit_cast(double, ~(std::uint64_t{1} << 63))));
}

/// \brief `less` for 4 lanes: the sign bits of `a - b`, as a mask.
[[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline int less_lanes(__m256d a, __m256d b) {
  return _mm256_movemask_pd(_mm256_sub_pd(a, b));
}

/// \brief The last elements [i, n) of a one-pass chunk scan one by one, as prove_range's:
/// `s[0..Levels)` holds each slice's sum of the elements before i and ends holding the chunk's;
/// float results in the checked mode (`ChunkBound`) are proved against the chunk's `bound`,
/// other outputs by prefix_value (`zero_unknown` as there). Returns non-zero where an output is
/// not proved.
template <int Levels, bool Exclusive, prefix_mode Mode, bool ChunkBound, class F>
[[gnu::always_inline]] inline std::uint64_t scan_last_elements(const F* x, std::size_t i,
                                                               std::size_t n, const double* sigma_1,
                                                               double* s, double a_hi, double a_lo,
                                                               const chunk_bound& bound, F* out,
                                                               std::uint64_t zero_unknown) {
  std::uint64_t failed = 0;
  for (; i < n; ++i) {
    double p[Levels];
    if constexpr (Exclusive)
      for (int l = 0; l < Levels; ++l) p[l] = s[l];
    add_slices<Levels>(static_cast<double>(x[i]), sigma_1, s);
    if constexpr (!Exclusive)
      for (int l = 0; l < Levels; ++l) p[l] = s[l];
    if constexpr (ChunkBound)
      failed |= round_prefix_in_chunk<Levels>(a_hi, p, bound, out[i]);
    else
      failed |= prefix_value<Levels, Mode>(a_hi, a_lo, p, out[i], zero_unknown);
  }
  return failed;
}

/// \brief The outputs of 4 consecutive float prefixes from their slice sums `s[0..Levels)` (each
/// the exact running slice sum, the part before the chunk `a_hi` apart), AVX2: in the checked
/// mode round_prefix_in_chunk's tests for the whole chunk at once, as the least distance of a
/// prefix to its float midpoint and the least magnitude of a prefix (the vectors' minima, two
/// instructions a vector of 4 prefixes besides the distance itself), against the bound and the
/// smallest binade; the largest magnitude is the chunk bound's (below 2^127, or the chunk is not
/// proved here: `proves`). In the exact_double mode the prefix rounded to float, -0 turned into
/// +0; with `ZeroTest` a zero prefix (its sign unknown) fails the chunk. `failed()` is non-zero
/// where an output was not proved.
template <int Levels, prefix_mode Mode, bool ZeroTest>
struct float_outputs_avx2 {
  static_assert(Mode == prefix_mode::exact_double || Mode == prefix_mode::checked);
  __m256d hi;
  __m256d least_distance;
  __m256d least_magnitude;
  int failed_lanes = 0;

  PARPRIM_TARGET_AVX2 explicit float_outputs_avx2(double a_hi)
      : hi(_mm256_set1_pd(a_hi)),
        least_distance(_mm256_set1_pd(0x1p1023)),
        least_magnitude(_mm256_set1_pd(0x1p1023)) {}

  /// \brief Whether the chunk bound `b` can prove outputs here at all.
  static bool proves(const chunk_bound& b) {
    return Mode != prefix_mode::checked || b.largest < 0x1p127;
  }

  /// \brief Outputs [0, 4) of `out` from their slice sums `s`.
  [[gnu::always_inline]] PARPRIM_TARGET_AVX2 inline void put(float* out, const __m256d* s) {
    __m256d u = _mm256_add_pd(hi, s[0]);
    for (int l = 1; l < Levels; ++l) u = _mm256_add_pd(u, s[l]);
    if constexpr (Mode == prefix_mode::checked) {
      constexpr std::uint64_t low29 = (std::uint64_t{1} << 29) - 1;
      _mm_storeu_ps(out, _mm256_cvtpd_ps(u));
      const __m256d m =
          _mm256_or_pd(_mm256_and_pd(u, _mm256_set1_pd(__builtin_bit_cast(double, ~low29))),
                       _mm256_set1_pd(__builtin_bit_cast(double, std::uint64_t{1} << 28)));
      least_distance = _mm256_min_pd(least_distance, magnitude_lanes(_mm256_sub_pd(u, m)));
      least_magnitude = _mm256_min_pd(least_magnitude, magnitude_lanes(u));
    } else {
      if constexpr (ZeroTest)
        failed_lanes |= _mm256_movemask_pd(_mm256_cmp_pd(u, _mm256_setzero_pd(), _CMP_EQ_OQ));
      _mm_storeu_ps(out, _mm_add_ps(_mm256_cvtpd_ps(u), _mm_setzero_ps()));
    }
  }

  /// \brief Non-zero where an output was not proved (checked: against `b`).
  PARPRIM_TARGET_AVX2 std::uint64_t failed(const chunk_bound& b) const {
    if constexpr (Mode == prefix_mode::checked) {
      const __m256d near = _mm256_cmp_pd(least_distance, _mm256_set1_pd(b.bound), _CMP_LT_OQ);
      const __m256d tiny = _mm256_cmp_pd(least_magnitude, _mm256_set1_pd(b.lowest), _CMP_LT_OQ);
      return static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_or_pd(near, tiny)));
    } else {
      (void)b;
      return static_cast<std::uint64_t>(failed_lanes);
    }
  }
};

/// \brief prove_outputs for float results against the chunk's bound, written with AVX2 by
/// hand (float_outputs_avx2, 4 prefixes a vector; each quarter's last ones element by element).
template <int Levels>
PARPRIM_TARGET_AVX2 std::uint64_t prove_in_chunk_avx2(std::size_t n, std::size_t quarter,
                                                      const double (*running)[chunk],
                                                      const double (*offset)[Levels], double a_hi,
                                                      const chunk_bound& b, float* out) {
  using outputs_t = float_outputs_avx2<Levels, prefix_mode::checked, false>;
  if (!outputs_t::proves(b)) return 1;
  outputs_t outputs(a_hi);
  std::uint64_t tail_failed = 0;
  for (std::size_t c = 0; c < scan_chains; ++c) {
    const std::size_t end = quarter_end(c, quarter, n);
    __m256d off[Levels];
    quarter_offsets<Levels>(offset, c, off);
    std::size_t i = c * quarter;
    for (; i + 4 <= end; i += 4) {
      __m256d sums[Levels];
      for (int l = 0; l < Levels; ++l) sums[l] = slice_lanes(running, off, l, i);
      outputs.put(out + i, sums);
    }
    tail_failed |= prove_range<Levels, prefix_mode::checked, true>(c, i, end, running, offset, a_hi,
                                                                   0.0, &b, out, 0);
  }
  return tail_failed | outputs.failed(b);
}

/// \brief scan_slices for float results with AVX2 in one pass (as scan_one_pass_avx512: 8
/// elements a step, each vector's slices' prefix sums plus the slices' sums of the elements
/// before it, the running sums moved by the step's two vector totals added together, each
/// output made and tested at once by float_outputs_avx2). Returns non-zero where an output is
/// not proved (outputs then meaningless); `sums` receives the chunk's slice sums.
template <int Levels, bool Exclusive, prefix_mode Mode, bool ZeroTest>
PARPRIM_TARGET_AVX2 std::uint64_t scan_floats_one_pass_avx2(const float* x, std::size_t n,
                                                            const double* sigma_1, double a_hi,
                                                            const chunk_bound& bound, float* out,
                                                            double* sums, const char* ahead) {
  using outputs_t = float_outputs_avx2<Levels, Mode, ZeroTest>;
  if (!outputs_t::proves(bound)) return 1;
  outputs_t outputs(a_hi);
  __m256d sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = _mm256_set1_pd(sigma_1[l]);
  __m256d before[Levels];  // each slice's sum of the elements before the step, every lane
  for (int l = 0; l < Levels; ++l) before[l] = _mm256_setzero_pd();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (ahead != nullptr && i % 16 == 0)
      __builtin_prefetch(ahead + i * sizeof(float), 0, 2);  // one line every other step
    __m256d q0[Levels], q1[Levels], s0[Levels], s1[Levels];
    split_slices<Levels>(_mm256_cvtps_pd(_mm_loadu_ps(x + i)), sigma, q0);
    split_slices<Levels>(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)), sigma, q1);
    for (int l = 0; l < Levels; ++l) {
      const __m256d v0 = lane_prefix_sums(q0[l]);
      const __m256d v1 = lane_prefix_sums(q1[l]);
      const __m256d t0 = last_lane_of(v0);
      s0[l] = _mm256_add_pd(v0, before[l]);
      s1[l] = _mm256_add_pd(v1, _mm256_add_pd(before[l], t0));
      before[l] = _mm256_add_pd(before[l], _mm256_add_pd(t0, last_lane_of(v1)));
      if constexpr (Exclusive) {
        s0[l] = _mm256_sub_pd(s0[l], q0[l]);
        s1[l] = _mm256_sub_pd(s1[l], q1[l]);
      }
    }
    outputs.put(out + i, s0);
    outputs.put(out + i + 4, s1);
  }
  for (int l = 0; l < Levels; ++l) sums[l] = _mm256_cvtsd_f64(before[l]);
  const std::uint64_t tail_failed =
      scan_last_elements<Levels, Exclusive, Mode, Mode == prefix_mode::checked>(
          x, i, n, sigma_1, sums, a_hi, 0.0, bound, out, ZeroTest ? 1 : 0);
  return tail_failed | outputs.failed(bound);
}

/// \brief prove_outputs for double results in the checked mode with AVX2: round_prefix's
/// double-double prefix and tests, 4 prefixes a vector (`less` as the sign of the difference, as
/// there: the sign bits by movemask); returns non-zero if any output was not proved.
template <int Levels>
PARPRIM_TARGET_AVX2 std::uint64_t prove_doubles_avx2(std::size_t n, std::size_t quarter,
                                                     const double (*running)[chunk],
                                                     const double (*offset)[Levels], double a_hi,
                                                     double a_lo, double* out) {
  const __m256d hi = _mm256_set1_pd(a_hi);
  const __m256d lo = _mm256_set1_pd(a_lo);
  const __m256d exponent_bits = _mm256_set1_pd(__builtin_bit_cast(double, 0x7ff0000000000000ull));
  const __m256d below_half = _mm256_set1_pd(0x1.fffffffffffffp-54);
  const __m256d below_quarter = _mm256_set1_pd(0x1.fffffffffffffp-55);
  const __m256d tiny = _mm256_set1_pd(0x1p-960);
  const __m256d huge = _mm256_set1_pd(0x1p1022);
  int failed = 0;
  std::uint64_t tail_failed = 0;
  for (std::size_t c = 0; c < scan_chains; ++c) {
    const std::size_t end = quarter_end(c, quarter, n);
    __m256d off[Levels];
    quarter_offsets<Levels>(offset, c, off);
    std::size_t i = c * quarter;
    for (; i + 4 <= end; i += 4) {
      const __m256d s0 = slice_lanes(running, off, 0, i);
      const __m256d h = _mm256_add_pd(hi, s0);  // TwoSum: a_hi + s0 == h + l exactly
      const __m256d hb = _mm256_sub_pd(h, hi);
      const __m256d l =
          _mm256_add_pd(_mm256_sub_pd(hi, _mm256_sub_pd(h, hb)), _mm256_sub_pd(s0, hb));
      __m256d t = _mm256_add_pd(l, lo);
      __m256d magnitude = _mm256_add_pd(magnitude_lanes(l), magnitude_lanes(lo));
      for (int k = 1; k < Levels; ++k) {
        const __m256d sk = slice_lanes(running, off, k, i);
        t = _mm256_add_pd(t, sk);
        magnitude = _mm256_add_pd(magnitude, magnitude_lanes(sk));
      }
      const __m256d r = _mm256_add_pd(h, t);  // TwoSum: h + t == r + e exactly
      const __m256d rb = _mm256_sub_pd(r, h);
      const __m256d e = _mm256_add_pd(_mm256_sub_pd(h, _mm256_sub_pd(r, rb)), _mm256_sub_pd(t, rb));
      const __m256d b = _mm256_and_pd(r, exponent_bits);
      const __m256d rest =
          _mm256_add_pd(magnitude_lanes(e), _mm256_mul_pd(_mm256_set1_pd(0x1p-50), magnitude));
      _mm256_storeu_pd(out + i, r);
      const int half = less_lanes(rest, _mm256_mul_pd(b, below_half));
      const int quarter_place = less_lanes(rest, _mm256_mul_pd(b, below_quarter));
      const int above_power_of_two = less_lanes(b, magnitude_lanes(r));
      const int proved = half & (quarter_place | above_power_of_two);
      failed |= (~proved & 0xf) | less_lanes(b, tiny) | less_lanes(huge, b);
    }
    tail_failed |= prove_range<Levels, prefix_mode::checked, false>(c, i, end, running, offset,
                                                                    a_hi, a_lo, nullptr, out, 0);
  }
  return tail_failed | static_cast<std::uint64_t>(failed);
}

/// \brief `less` for 8 lanes: the sign bits of `a - b`, as a mask.
[[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline __mmask8 less_lanes(__m512d a, __m512d b) {
  return _mm512_movepi64_mask(_mm512_castpd_si512(_mm512_sub_pd(a, b)));
}

/// \brief The outputs of 8 consecutive prefixes from their slice sums `s[0..Levels)` (each the
/// exact running slice sum, the part before the chunk `a_hi + a_lo` apart), AVX-512: what
/// prefix_value and round_prefix_in_chunk write and test for each, 8 lanes at once.
/// - float results, checked: against the chunk's bound, as the least distance of a prefix to
///   its float midpoint and the least magnitude of a prefix (the vectors' minima, two
///   instructions a vector besides the distance itself) against the bound and the smallest
///   binade; the largest magnitude is the chunk bound's (below 2^127, or the chunk is not proved
///   here: `proves`);
/// - double results, checked: round_prefix's double-double prefix and tests (`less` as the sign
///   of the difference);
/// - exact_double, exact_pair (doubles): the prefix's double, or pair, rounded to F, -0 turned
///   into +0; with `ZeroTest` a zero prefix (its sign unknown) fails the chunk, without it the
///   loop has no such test.
/// `failed()` is non-zero where an output was not proved.
template <class F, int Levels, prefix_mode Mode, bool ZeroTest>
struct prefix_outputs_avx512 {
  static constexpr bool float_checked = Mode == prefix_mode::checked && sizeof(F) == 4;
  __m512d hi;
  __m512d lo;
  __m512d least_distance;
  __m512d least_magnitude;
  __mmask8 failed_lanes = 0;

  PARPRIM_TARGET_AVX512 prefix_outputs_avx512(double a_hi, double a_lo)
      : hi(_mm512_set1_pd(a_hi)),
        lo(_mm512_set1_pd(a_lo)),
        least_distance(_mm512_set1_pd(0x1p1023)),
        least_magnitude(_mm512_set1_pd(0x1p1023)) {}

  /// \brief Whether the chunk bound `b` can prove outputs here at all (float results, checked).
  static bool proves(const chunk_bound& b) { return !float_checked || b.largest < 0x1p127; }

  /// \brief Outputs [0, 8) of `out` from their slice sums `s`.
  [[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline void put(F* out, const __m512d* s) {
    if constexpr (Mode == prefix_mode::checked && sizeof(F) == 8) {
      const __m512d h = _mm512_add_pd(hi, s[0]);  // TwoSum: a_hi + s0 == h + l exactly
      const __m512d hb = _mm512_sub_pd(h, hi);
      const __m512d l =
          _mm512_add_pd(_mm512_sub_pd(hi, _mm512_sub_pd(h, hb)), _mm512_sub_pd(s[0], hb));
      __m512d t = _mm512_add_pd(l, lo);
      __m512d magnitude = _mm512_add_pd(_mm512_abs_pd(l), _mm512_abs_pd(lo));
      for (int k = 1; k < Levels; ++k) {
        t = _mm512_add_pd(t, s[k]);
        magnitude = _mm512_add_pd(magnitude, _mm512_abs_pd(s[k]));
      }
      const __m512d r = _mm512_add_pd(h, t);  // TwoSum: h + t == r + e exactly
      const __m512d rb = _mm512_sub_pd(r, h);
      const __m512d e = _mm512_add_pd(_mm512_sub_pd(h, _mm512_sub_pd(r, rb)), _mm512_sub_pd(t, rb));
      const __m512d b =
          _mm512_and_pd(r, _mm512_castsi512_pd(_mm512_set1_epi64(0x7ff0000000000000ll)));
      const __m512d rest =
          _mm512_add_pd(_mm512_abs_pd(e), _mm512_mul_pd(_mm512_set1_pd(0x1p-50), magnitude));
      _mm512_storeu_pd(reinterpret_cast<double*>(out), r);
      const __mmask8 half =
          less_lanes(rest, _mm512_mul_pd(b, _mm512_set1_pd(0x1.fffffffffffffp-54)));
      const __mmask8 quarter_place =
          less_lanes(rest, _mm512_mul_pd(b, _mm512_set1_pd(0x1.fffffffffffffp-55)));
      const __mmask8 above_power_of_two = less_lanes(b, _mm512_abs_pd(r));
      const __mmask8 proved = half & (quarter_place | above_power_of_two);
      failed_lanes =
          static_cast<__mmask8>(failed_lanes | ~proved | less_lanes(b, _mm512_set1_pd(0x1p-960)) |
                                less_lanes(_mm512_set1_pd(0x1p1022), b));
      return;
    }
    __m512d u;
    if constexpr (Mode == prefix_mode::exact_pair) {
      const __m512d h = _mm512_add_pd(hi, s[0]);
      const __m512d hb = _mm512_sub_pd(h, hi);
      __m512d t = _mm512_add_pd(
          _mm512_add_pd(_mm512_sub_pd(hi, _mm512_sub_pd(h, hb)), _mm512_sub_pd(s[0], hb)), lo);
      for (int l = 1; l < Levels; ++l) t = _mm512_add_pd(t, s[l]);
      u = _mm512_add_pd(h, t);
    } else {
      u = _mm512_add_pd(hi, s[0]);
      for (int l = 1; l < Levels; ++l) u = _mm512_add_pd(u, s[l]);
    }
    if constexpr (float_checked) {
      constexpr std::uint64_t low29 = (std::uint64_t{1} << 29) - 1;
      _mm256_storeu_ps(reinterpret_cast<float*>(out), _mm512_maskz_cvtpd_ps(all_lanes, u));
      const __m512d m =
          _mm512_or_pd(_mm512_and_pd(u, _mm512_set1_pd(__builtin_bit_cast(double, ~low29))),
                       _mm512_set1_pd(__builtin_bit_cast(double, std::uint64_t{1} << 28)));
      least_distance =
          _mm512_maskz_min_pd(all_lanes, least_distance, _mm512_abs_pd(_mm512_sub_pd(u, m)));
      least_magnitude = _mm512_maskz_min_pd(all_lanes, least_magnitude, _mm512_abs_pd(u));
    } else {
      if constexpr (ZeroTest)
        failed_lanes |= _mm512_cmp_pd_mask(u, _mm512_setzero_pd(), _CMP_EQ_OQ);
      if constexpr (sizeof(F) == 4)
        _mm256_storeu_ps(reinterpret_cast<float*>(out),
                         _mm256_add_ps(_mm512_maskz_cvtpd_ps(all_lanes, u), _mm256_setzero_ps()));
      else
        _mm512_storeu_pd(reinterpret_cast<double*>(out), _mm512_add_pd(u, _mm512_setzero_pd()));
    }
  }

  /// \brief Non-zero where an output was not proved (float results, checked: against `b`).
  PARPRIM_TARGET_AVX512 std::uint64_t failed(const chunk_bound& b) const {
    if constexpr (float_checked) {
      const __mmask8 near = _mm512_cmp_pd_mask(least_distance, _mm512_set1_pd(b.bound), _CMP_LT_OQ);
      const __mmask8 tiny =
          _mm512_cmp_pd_mask(least_magnitude, _mm512_set1_pd(b.lowest), _CMP_LT_OQ);
      return static_cast<std::uint64_t>(failed_lanes | near | tiny);
    } else {
      (void)b;
      return failed_lanes;
    }
  }
};

/// \brief scan_slices with AVX-512 in one pass: 16 elements a step, each vector's slices' prefix
/// sums (lane_prefix_sums) plus the slices' sums of the elements before it. Every sum of slices of
/// the chunk's elements is exact, so any grouping gives the same sums: each slice's running sum
/// moves by the step's two vector totals added together, one dependent addition a step. Each output
/// is then made and tested as the two passes make them (prefix_outputs_avx512: the same prefixes
/// and roundings, so the same bits), without the running sums' store and load (a chunk's 8 or 16
/// KiB through L1). Returns non-zero where an output is not proved (outputs then meaningless);
/// `sums` receives the chunk's slice sums. `ZeroTest`: as prefix_outputs_avx512's (`zero_unknown`
/// 1; without it, 0); `ahead`: as running_sums_avx512's.
template <class F, int Levels, bool Exclusive, prefix_mode Mode, bool ZeroTest>
PARPRIM_TARGET_AVX512 std::uint64_t scan_one_pass_avx512(const F* x, std::size_t n,
                                                         const double* sigma_1, double a_hi,
                                                         double a_lo, const chunk_bound& bound,
                                                         F* out, double* sums, const char* ahead) {
  using outputs_t = prefix_outputs_avx512<F, Levels, Mode, ZeroTest>;
  if (!outputs_t::proves(bound)) return 1;
  outputs_t outputs(a_hi, a_lo);
  __m512d sigma[Levels > 1 ? Levels - 1 : 1];
  for (int l = 0; l + 1 < Levels; ++l) sigma[l] = _mm512_set1_pd(sigma_1[l]);
  __m512d before[Levels];  // each slice's sum of the elements before the step, every lane
  for (int l = 0; l < Levels; ++l) before[l] = _mm512_setzero_pd();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    if (ahead != nullptr)  // one line of floats, two of doubles
      for (std::size_t b = 0; b < 16 * sizeof(F); b += 64)
        __builtin_prefetch(ahead + i * sizeof(F) + b, 0, 2);
    __m512d q0[Levels], q1[Levels], s0[Levels], s1[Levels];
    slice_lanes_of<Levels>(x + i, sigma, q0);
    slice_lanes_of<Levels>(x + i + 8, sigma, q1);
    for (int l = 0; l < Levels; ++l) {
      const __m512d v0 = lane_prefix_sums(q0[l]);
      const __m512d v1 = lane_prefix_sums(q1[l]);
      const __m512d t0 = last_lane_of(v0);
      s0[l] = _mm512_add_pd(v0, before[l]);
      s1[l] = _mm512_add_pd(v1, _mm512_add_pd(before[l], t0));
      before[l] = _mm512_add_pd(before[l], _mm512_add_pd(t0, last_lane_of(v1)));
      if constexpr (Exclusive) {
        s0[l] = _mm512_sub_pd(s0[l], q0[l]);
        s1[l] = _mm512_sub_pd(s1[l], q1[l]);
      }
    }
    outputs.put(out + i, s0);
    outputs.put(out + i + 8, s1);
  }
  for (int l = 0; l < Levels; ++l) sums[l] = _mm512_cvtsd_f64(before[l]);
  const std::uint64_t tail_failed =
      scan_last_elements<Levels, Exclusive, Mode, outputs_t::float_checked>(
          x, i, n, sigma_1, sums, a_hi, a_lo, bound, out, ZeroTest ? 1 : 0);
  return tail_failed | outputs.failed(bound);
}
#endif

/// \brief The first pass of scan_slices: each element's running slice sums within its quarter
/// of the chunk into `running`, each quarter's offset (the exact total of the quarters before
/// it) into `offset`, the chunk's slice sums into `sums`; returns the quarters' length. With
/// `Survey` (doubles, AVX2), the same pass surveys the chunk into `*survey`; `ahead`: as
/// running_sums_avx2's (AVX2 and AVX-512 only).
template <int Levels, bool Exclusive, simd_form Simd, bool Survey = false, class F>
[[gnu::always_inline]] inline std::size_t running_slices(const F* x, std::size_t n, int top,
                                                         double (*running)[chunk],
                                                         double (*offset)[Levels], double* sums,
                                                         const char* ahead,
                                                         chunk_survey* survey = nullptr) {
  static_assert(!Survey || (Simd == simd_form::avx2 && sizeof(F) == 8),
                "the one-pass survey is for doubles, with AVX2");
  double sigma[Levels > 1 ? Levels - 1 : 1] = {};
  slice_splitters<Levels>(top, sigma);
  const std::size_t quarter = ((n + scan_chains - 1) / scan_chains + 3) / 4 * 4;
  double s[scan_chains][Levels] = {};
  const auto step = [&](std::size_t c, std::size_t i) {
    if constexpr (Exclusive)
      for (int l = 0; l < Levels; ++l) running[l][i] = s[c][l];
    add_slices<Levels>(static_cast<double>(x[i]), sigma, s[c]);
    if constexpr (!Exclusive)
      for (int l = 0; l < Levels; ++l) running[l][i] = s[c][l];
  };
  std::size_t done = 0;  // elements of every quarter already summed
  (void)ahead;
#if PARPRIM_HOST_AVX2
  if constexpr (Simd == simd_form::avx512)
    done = running_sums_avx512<Levels, Exclusive>(x, n, quarter, sigma, running, s, ahead);
  else if constexpr (Simd == simd_form::avx2)
    done = running_sums_avx2<Levels, Exclusive, Survey>(x, n, quarter, sigma, running, s, ahead,
                                                        survey);
#endif
  const std::size_t full = n / quarter;  // quarters of full length (the last may be shorter)
  for (std::size_t i = done; i < quarter; ++i)
    for (std::size_t c = 0; c < scan_chains; ++c)
      if (c < full || c * quarter + i < n) step(c, c * quarter + i);
  if constexpr (Survey) {  // the rest of each quarter (braced: nvcc's front end took the
                           // function's return for part of a discarded unbraced loop)
    for (std::size_t c = 0; c < scan_chains; ++c) {
      const std::size_t b = c * quarter + done < n ? c * quarter + done : n;
      const std::size_t e = quarter_end(c, quarter, n);
      if (e > b) *survey = merge_surveys(*survey, survey_portable<F>(x + b, e - b));
    }
  }
  for (int l = 0; l < Levels; ++l) {
    double before = 0;
    for (std::size_t c = 0; c < scan_chains; ++c) {
      offset[c][l] = before;
      before += s[c][l];
    }
    sums[l] = before;
  }
  return quarter;
}

#if PARPRIM_HOST_AVX2
/// \brief scan_slices in one pass (`Simd`: AVX-512, scan_one_pass_avx512; AVX2 for float
/// results, scan_floats_one_pass_avx2; `ZeroTest`: `zero_unknown` is 1). Float results in the
/// checked mode are proved against the chunk's bound where it can prove every prefix, else (it
/// is loosest near zero) against each prefix's own bound from the running sums of two passes
/// (running_slices). Inlined into scan_fast_avx2 and scan_fast_avx512.
template <int Levels, bool Exclusive, prefix_mode Mode, bool ZeroTest, simd_form Simd, class F>
[[gnu::always_inline]] inline bool scan_slices_one_pass(const F* x, std::size_t n, int top,
                                                        double a_hi, double a_lo, F* out,
                                                        double* sums, const char* ahead) {
  constexpr bool float_checked = Mode == prefix_mode::checked && sizeof(F) == 4;
  const chunk_bound bound =
      float_checked ? float_chunk_bound<Levels>(a_hi, a_lo, top) : chunk_bound{};
  double sigma[Levels > 1 ? Levels - 1 : 1] = {};
  slice_splitters<Levels>(top, sigma);
  std::uint64_t failed = 0;
  if constexpr (Simd == simd_form::avx512)
    failed = scan_one_pass_avx512<F, Levels, Exclusive, Mode, ZeroTest>(x, n, sigma, a_hi, a_lo,
                                                                        bound, out, sums, ahead);
  else
    failed = scan_floats_one_pass_avx2<Levels, Exclusive, Mode, ZeroTest>(x, n, sigma, a_hi, bound,
                                                                          out, sums, ahead);
  if (failed == 0) return true;
  if constexpr (!float_checked) {
    return false;  // (as the two passes would: the same prefixes and tests)
  } else {
    double running[Levels][chunk];
    double offset[scan_chains][Levels];
    const std::size_t quarter =
        running_slices<Levels, Exclusive, Simd>(x, n, top, running, offset, sums, nullptr);
    return prove_outputs<Levels, Mode, false>(n, quarter, running, offset, a_hi, a_lo, nullptr, out,
                                              0) == 0;
  }
}
#endif

/// \brief The chunk's scan on the fast path: false (outputs then meaningless) if a prefix
/// could not be proved; else `sums` holds the chunk's slice sums. Two passes: the running slice
/// sums, then every output from them (independent: vectorizes). Every sum of slices of the
/// chunk's elements is exact, in any order, so the first pass runs `scan_chains` quarters of
/// the chunk (each a multiple of 4 elements long but the last) as independent dependency
/// chains (with AVX2, 4 elements of each at a time: running_sums_avx2), and the second adds to
/// each running sum the (exact) total of the quarters before its own. With AVX-512, and with
/// AVX2 for float results, one pass (scan_slices_one_pass). `ahead`: as running_sums_avx2's.
template <int Levels, bool Exclusive, prefix_mode Mode, simd_form Simd, class F>
[[gnu::always_inline]] inline bool scan_slices(const F* x, std::size_t n, int top, double a_hi,
                                               double a_lo, F* out, double* sums,
                                               std::uint64_t zero_unknown, const char* ahead) {
#if PARPRIM_HOST_AVX2
  if constexpr (Simd == simd_form::avx512 ||
                (Simd == simd_form::avx2 && std::is_same_v<F, float>)) {
    if constexpr (Mode != prefix_mode::checked)  // (the checked modes never read zero_unknown)
      if (zero_unknown != 0)
        return scan_slices_one_pass<Levels, Exclusive, Mode, true, Simd>(x, n, top, a_hi, a_lo, out,
                                                                         sums, ahead);
    return scan_slices_one_pass<Levels, Exclusive, Mode, false, Simd>(x, n, top, a_hi, a_lo, out,
                                                                      sums, ahead);
  }
#endif
  double running[Levels][chunk];
  double offset[scan_chains][Levels];
  const std::size_t quarter =
      running_slices<Levels, Exclusive, Simd>(x, n, top, running, offset, sums, ahead);
  // float results proved against one bound for the chunk, computed once; where it cannot prove
  // every prefix (it is loosest near zero), against each prefix's own bound
  if constexpr (Mode == prefix_mode::checked && std::is_same_v<F, float>) {
    const chunk_bound bound = float_chunk_bound<Levels>(a_hi, a_lo, top);
#if PARPRIM_HOST_AVX2
    if constexpr (Simd == simd_form::avx2) {
      if (prove_in_chunk_avx2<Levels>(n, quarter, running, offset, a_hi, bound, out) == 0)
        return true;
    } else
#endif
        if (prove_outputs<Levels, Mode, true>(n, quarter, running, offset, a_hi, a_lo, &bound, out,
                                              zero_unknown) == 0)
      return true;
  }
#if PARPRIM_HOST_AVX2
  if constexpr (Simd == simd_form::avx2 && Mode == prefix_mode::checked &&
                std::is_same_v<F, double>)
    return prove_doubles_avx2<Levels>(n, quarter, running, offset, a_hi, a_lo, out) == 0;
#endif
  return prove_outputs<Levels, Mode, false>(n, quarter, running, offset, a_hi, a_lo, nullptr, out,
                                            zero_unknown) == 0;
}

/// \brief `scan_slices` for the chunk's number of slices (inlined where it is called, so that
/// `scan_fast_avx2` and `scan_fast_avx512` compile the whole pass for their instructions).
template <bool Exclusive, prefix_mode Mode, simd_form Simd = simd_form::portable, class F>
[[gnu::always_inline]] inline bool scan_fast(const F* x, std::size_t n, int levels, int top,
                                             double a_hi, double a_lo, F* out, double* sums,
                                             std::uint64_t zero_unknown, const char* ahead) {
  if (levels == 1)
    return scan_slices<1, Exclusive, Mode, Simd>(x, n, top, a_hi, a_lo, out, sums, zero_unknown,
                                                 ahead);
  if (levels == 2)
    return scan_slices<2, Exclusive, Mode, Simd>(x, n, top, a_hi, a_lo, out, sums, zero_unknown,
                                                 ahead);
  return scan_slices<3, Exclusive, Mode, Simd>(x, n, top, a_hi, a_lo, out, sums, zero_unknown,
                                               ahead);
}

#if PARPRIM_HOST_AVX2
/// \brief `scan_fast` compiled for AVX2: the same source, whose second pass the compiler then
/// vectorizes 4 doubles wide instead of SSE2's 2.
template <bool Exclusive, prefix_mode Mode, class F>
PARPRIM_TARGET_AVX2 bool scan_fast_avx2(const F* x, std::size_t n, int levels, int top, double a_hi,
                                        double a_lo, F* out, double* sums,
                                        std::uint64_t zero_unknown, const char* ahead) {
  return scan_fast<Exclusive, Mode, simd_form::avx2>(x, n, levels, top, a_hi, a_lo, out, sums,
                                                     zero_unknown, ahead);
}

/// \brief `scan_fast` compiled for AVX-512: scan_slices_one_pass.
template <bool Exclusive, prefix_mode Mode, class F>
PARPRIM_TARGET_AVX512 bool scan_fast_avx512(const F* x, std::size_t n, int levels, int top,
                                            double a_hi, double a_lo, F* out, double* sums,
                                            std::uint64_t zero_unknown, const char* ahead) {
  return scan_fast<Exclusive, Mode, simd_form::avx512>(x, n, levels, top, a_hi, a_lo, out, sums,
                                                       zero_unknown, ahead);
}
#endif

/// \brief `scan_fast` in the chunk's prefix mode, compiled for the form `simd` (the AVX2 and
/// AVX-512 forms alone ask the cache for the bytes at `ahead`).
template <bool Exclusive, class F>
bool scan_fast(prefix_mode mode, const F* x, std::size_t n, int levels, int top, double a_hi,
               double a_lo, F* out, double* sums, std::uint64_t zero_unknown, simd_form simd,
               const char* ahead) {
  const auto run = [&]<prefix_mode Mode>() {
#if PARPRIM_HOST_AVX2
    if (simd == simd_form::avx512)
      return scan_fast_avx512<Exclusive, Mode>(x, n, levels, top, a_hi, a_lo, out, sums,
                                               zero_unknown, ahead);
    if (simd == simd_form::avx2)
      return scan_fast_avx2<Exclusive, Mode>(x, n, levels, top, a_hi, a_lo, out, sums, zero_unknown,
                                             ahead);
#else
    (void)simd;
    (void)ahead;
#endif
    return scan_fast<Exclusive, Mode>(x, n, levels, top, a_hi, a_lo, out, sums, zero_unknown,
                                      nullptr);
  };
  if (mode == prefix_mode::exact_double)
    return run.template operator()<prefix_mode::exact_double>();
  if constexpr (sizeof(F) == 8)
    if (mode == prefix_mode::exact_pair) return run.template operator()<prefix_mode::exact_pair>();
  return run.template operator()<prefix_mode::checked>();
}

/// \brief Index of the last place of a finite non-zero double: d is a multiple of 2^that.
PARPRIM_HOST_DEVICE inline int last_place(double d) {
  const auto u = __builtin_bit_cast(std::uint64_t, d);
  const int field = static_cast<int>((u >> 52) & 0x7ff);
  std::uint64_t m = u & ((std::uint64_t{1} << 52) - 1);
  if (field != 0) m |= std::uint64_t{1} << 52;
#if defined(__CUDA_ARCH__)
  return (field != 0 ? field : 1) - 1075 + (__ffsll(static_cast<long long>(m)) - 1);
#else
  return (field != 0 ? field : 1) - 1075 + __builtin_ctzll(m);
#endif
}

/// \brief The cheapest exact way to compute the chunk's prefixes P = A + s_0 + ... when A is
/// a_hi + a_lo exactly (`a_exact`). Every slice sum is a multiple of 2^grid (grid: the chunk's
/// last place, or a_hi's or a_lo's when lower) and at most 2^(T_l + 10) in magnitude, and a sum
/// of multiples of 2^grid never rounds while its partial sums stay below 2^(53 + grid):
/// - exact_double: a_lo is zero and |a_hi| + sum 2^(T_l + 10) is below that bound: then
///   u = a_hi + s_0 + ... is P, and the cast of u to F rounds it once;
/// - exact_pair (double results): h = a_hi + s_0 with its exact error l (TwoSum) leaves
///   t = l + a_lo + s_1 + ..., whose partial sums are below 2^-53 |h| + |a_lo| + sum over
///   l >= 1 of 2^(T_l + 10); below the bound, t is exact, P = h + t, and h + t rounds P once.
/// Otherwise every prefix is checked (round_prefix).
template <class F>
PARPRIM_HOST_DEVICE prefix_mode choose_mode(const chunk_survey& s, int levels, int top, double a_hi,
                                            double a_lo, bool a_exact) {
  using fmt = ieee_format<F>;
  if (!a_exact || s.all_zero) return prefix_mode::checked;
  int grid = (s.min_field != 0 ? s.min_field : 1) - fmt::bias - (fmt::precision - 1);
  if (a_hi != 0 && last_place(a_hi) < grid) grid = last_place(a_hi);
  if (a_lo != 0 && last_place(a_lo) < grid) grid = last_place(a_lo);
  if (grid + 53 > 1000) return prefix_mode::checked;  // keep the bounds below finite
  const double limit = pow2(grid + 53);
  double tail = 0;  // the bounds of slices 1, 2
  for (int l = 1; l < levels; ++l) tail += pow2(top - l * slice_bits + chunk_log2);
  const double head = magnitude_of(a_hi) + pow2(top + chunk_log2);
  if (a_lo == 0 && head + tail <= limit) return prefix_mode::exact_double;
  if (sizeof(F) == 8 && head <= 0x1p1022 && head * 0x1p-53 + magnitude_of(a_lo) + tail <= limit)
    return prefix_mode::exact_pair;
  return prefix_mode::checked;
}

#if PARPRIM_HOST_AVX2
/// \brief How scan_guessed_avx2 ended.
enum class guessed_scan {
  not_covered,  ///< the guessed plan does not slice the chunk exactly: nothing written
  failed,       ///< an output could not be proved (outputs meaningless)
  proved,       ///< every output written, `sums` the chunk's slice sums
};

/// \brief scan_chunk's fast path for doubles with AVX2 under a guessed plan (`Levels` slices
/// below 2^top: the block's previous chunk's): the first pass also surveys the chunk, so each
/// element is read from memory once; then, if the guess covers the chunk (plan_covers), its
/// prefix mode is chosen from that survey and the second pass proves the outputs. `s` receives
/// the survey, `mode` the mode.
template <int Levels, bool Exclusive>
PARPRIM_TARGET_AVX2 guessed_scan scan_guessed_avx2(const double* x, std::size_t n, int top,
                                                   double a_hi, double a_lo, bool a_exact,
                                                   double* out, double* sums,
                                                   std::uint64_t zero_unknown, chunk_survey& s,
                                                   prefix_mode& mode) {
  double running[Levels][chunk];
  double offset[scan_chains][Levels];
  const std::size_t quarter = running_slices<Levels, Exclusive, simd_form::avx2, true>(
      x, n, top, running, offset, sums, nullptr, &s);
  int own_top = 0;
  const int own_levels = plan_levels<double>(s, own_top);
  if (!plan_covers<double>(slice_plan{Levels, top}, s, own_levels, own_top))
    return guessed_scan::not_covered;
  mode = choose_mode<double>(s, Levels, top, a_hi, a_lo, a_exact);
  const auto prove = [&]<prefix_mode Mode>() {
    return prove_outputs<Levels, Mode, false>(n, quarter, running, offset, a_hi, a_lo, nullptr, out,
                                              zero_unknown) == 0
               ? guessed_scan::proved
               : guessed_scan::failed;
  };
  if (mode == prefix_mode::exact_double)
    return prove.template operator()<prefix_mode::exact_double>();
  if (mode == prefix_mode::exact_pair) return prove.template operator()<prefix_mode::exact_pair>();
  return prove_doubles_avx2<Levels>(n, quarter, running, offset, a_hi, a_lo, out) == 0
             ? guessed_scan::proved
             : guessed_scan::failed;
}
#endif

/// \brief Reads `acc`'s sum A as `a_hi = RN(A)` and `a_lo = RN(A - a_hi)` (rounding its limbs
/// twice and copying it); `exact` says whether A is `a_hi + a_lo`. False where A is beyond the
/// doubles (then nothing else is set). The host scans and the GPU's warps read it so.
template <class F>
PARPRIM_HOST_DEVICE bool read_prefix(const exact_accumulator<F>& acc, double& a_hi, double& a_lo,
                                     bool& exact) {
  a_hi = acc.template round<double>();
  if (((__builtin_bit_cast(std::uint64_t, a_hi) >> 52) & 0x7ff) == 0x7ff) return false;
  exact_accumulator<F> rest = acc;
  rest.add_exact_double(-a_hi);
  a_lo = rest.template round<double>();
  rest.add_exact_double(-a_lo);
  exact = rest.holds_zero();
  return true;
}

/// \brief The exact sum `a_hi + a_lo` after a chunk (or a GPU tile) with slice sums
/// `sums[0..levels)` computed from it in an exact mode, without reading the superaccumulator:
/// `a_hi + S_0 + S_1 + ...` (exact_double: choose_mode's bound keeps every partial sum exact),
/// or, as prefix_value's exact_pair for the chunk's last prefix, `a_hi + S_0 = h + l` (TwoSum),
/// `t = l + a_lo + S_1 + ...` exactly, and `h + t = r + e` (TwoSum). Either is what a read
/// (read_prefix) gives, so the chunks after it take the same modes. `mode` is not checked.
PARPRIM_HOST_DEVICE inline void advance_exact_prefix(double& a_hi, double& a_lo, const double* sums,
                                                     int levels, prefix_mode mode) {
  if (mode == prefix_mode::exact_double) {
    double u = a_hi;
    for (int l = 0; l < levels; ++l) u += sums[l];
    a_hi = u;
    a_lo = 0;
  } else {
    const double h = a_hi + sums[0];
    const double hb = h - a_hi;
    double t = (a_hi - (h - hb)) + (sums[0] - hb) + a_lo;
    for (int l = 1; l < levels; ++l) t += sums[l];
    const double r = h + t;
    const double rb = r - h;
    a_lo = (h - (r - rb)) + (t - rb);
    a_hi = r;
  }
}

/// \brief The exact sum before the next chunk as two doubles, `a_hi + a_lo` exactly, while
/// `known`: after a chunk scanned in an exact mode it follows from the chunk's slice sums
/// (advance_exact_prefix) instead of a read (read_prefix: 5-10 % of a double scan's time).
/// Cleared where the sum is reset or a chunk goes another way.
struct known_prefix {
  bool known = false;
  double a_hi = 0;
  double a_lo = 0;

  /// \brief After a fast chunk with slice sums `sums[0..levels)` computed in `mode` from this
  /// prefix.
  void add_chunk(const double* sums, int levels, prefix_mode mode) {
    if (mode == prefix_mode::checked)
      known = false;
    else
      advance_exact_prefix(a_hi, a_lo, sums, levels, mode);
  }
};

/// \brief Scans `x[0..n)` (n <= chunk) onto `acc`: `out[i]` = the rounded running sum after
/// (inclusive) or before (exclusive) adding `x[i]`; `acc` ends holding the chunk added.
/// The chunk passes take the form `simd` (the same bits in every form). `prefix`, if
/// given, is `acc`'s sum as two doubles where known (it is kept up to date for the next chunk);
/// `guess`, if given, the slicing plan of the block's previous chunk (doubles in the AVX2 form
/// are then surveyed in the first pass: scan_guessed_avx2; in the AVX-512 form a survey pass
/// of its own and the AVX-512 passes are faster), replaced by this chunk's; `known`, if
/// given, the chunk's survey (a fold of the chunk recorded it: no survey pass, no guess);
/// `ahead`, if given, where the chunk's vector first pass asks the cache for as many bytes as
/// the chunk's (input read later).
template <class F>
void scan_chunk(exact_accumulator<F>& acc, const F* x, std::size_t n, F* out, bool exclusive,
                simd_form simd = exact_simd(), known_prefix* prefix = nullptr,
                slice_plan* guess = nullptr, const chunk_survey* known = nullptr,
                const char* ahead = nullptr) {
  const bool avx2 = simd != simd_form::portable;
  known_prefix unknown;
  known_prefix& p = prefix != nullptr ? *prefix : unknown;
  const auto element_by_element = [&] {
    p.known = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (exclusive) out[i] = acc.template round<F>();
      acc.add(x[i]);
      if (!exclusive) out[i] = acc.template round<F>();
    }
  };
  if (n < min_chunk_scan || acc.special()) return element_by_element();
  // A = a_hi + a_lo, exactly while p.known (else a_hi = RN(A): the checked mode)
  // (false where |A| is beyond the doubles: double sums only)
  const auto read = [&] { return p.known || read_prefix(acc, p.a_hi, p.a_lo, p.known); };
  // A zero prefix is +0 when an operand other than -0 came before it: one before the chunk
  // (acc's flag), or, for the inclusive scan, x[0] (every prefix of the chunk holds it).
  using bits = typename ieee_format<F>::bits_type;
  const bool known_positive =
      (acc.state & exact_accumulator<F>::not_only_negative_zeros) != 0 ||
      (!exclusive && __builtin_bit_cast(bits, x[0]) != (bits{1} << (8 * sizeof(F) - 1)));
  const std::uint64_t zero_unknown = known_positive ? 0 : 1;
  double sums[max_levels];
  const auto finish = [&](const chunk_survey& s, int levels, prefix_mode mode) {
    for (int l = 0; l < levels; ++l) acc.add_exact_double(sums[l]);
    if (s.not_only_negative_zeros) acc.state |= exact_accumulator<F>::not_only_negative_zeros;
    if (p.known) p.add_chunk(sums, levels, mode);
  };
#if PARPRIM_HOST_AVX2
  // doubles under the previous chunk's plan: the survey in the first pass (one read; the
  // AVX2 form only: with AVX-512 a survey pass of its own, read again from L1, costs less)
  if constexpr (sizeof(F) == 8) {
    if (simd == simd_form::avx2 && guess != nullptr && guess->levels > 0 && known == nullptr) {
      if (!read()) return element_by_element();
      const int guessed = guess->levels;
      chunk_survey s{};
      prefix_mode mode = prefix_mode::checked;
      const auto run = [&]<int L>() {
        return exclusive ? scan_guessed_avx2<L, true>(x, n, guess->top, p.a_hi, p.a_lo, p.known,
                                                      out, sums, zero_unknown, s, mode)
                         : scan_guessed_avx2<L, false>(x, n, guess->top, p.a_hi, p.a_lo, p.known,
                                                       out, sums, zero_unknown, s, mode);
      };
      const guessed_scan r = guessed == 1   ? run.template operator()<1>()
                             : guessed == 2 ? run.template operator()<2>()
                                            : run.template operator()<3>();
      if (r == guessed_scan::failed) {
        guess->levels = 0;
        return element_by_element();
      }
      if (r == guessed_scan::proved) {
        int top = 0;
        const int levels = plan_levels<F>(s, top);
        finish(s, guessed, mode);
        if (!s.all_zero) *guess = {levels, top};  // the chunk's own plan for the next chunk
        return;
      }
      // not covered: as without a guess
    }
  }
#endif
  const chunk_survey s = known != nullptr ? *known : survey(x, n, nullptr, avx2);
  int top = 0;
  const int levels = plan_levels<F>(s, top);
  if (guess != nullptr && !s.all_zero) *guess = {levels, top};
  if (levels == 0) return element_by_element();
  if (!read()) return element_by_element();
  const prefix_mode mode = choose_mode<F>(s, levels, top, p.a_hi, p.a_lo, p.known);
  const bool proved = exclusive ? scan_fast<true>(mode, x, n, levels, top, p.a_hi, p.a_lo, out,
                                                  sums, zero_unknown, simd, ahead)
                                : scan_fast<false>(mode, x, n, levels, top, p.a_hi, p.a_lo, out,
                                                   sums, zero_unknown, simd, ahead);
  if (!proved) return element_by_element();
  finish(s, levels, mode);
}

/// \brief The block step of every host exact scan: elements [b, e) of `in` (converted to `F`),
/// output k for k in [b, e) = the rounded running sum after (inclusive) or before (exclusive)
/// element k, handed to `store(k, values, count)` a chunk at a time (the backend writes them,
/// with streaming stores where it would), or, for inputs read unconverted, written straight
/// where `store.direct(k, count, input, bytes)` says (detail/accumulating.hpp: into the output
/// itself where it does not overlap the chunk's inputs and is not streamed). The running sum
/// starts as `*carry` (null: empty); with `heads`, `(*heads)[k]` true restarts it at element k
/// from `*reset` (null: empty). Every element of a chunk is read before its outputs are stored
/// where the output may be the input. `seen`, if given and of this block (without heads, the
/// elements read in place), holds the chunks' surveys from a fold of the block (exact::fold), so
/// the chunks skip theirs; a
/// store that offers `read_ahead()` (elements, 0 for none) has each chunk's inputs that far
/// ahead asked for while it is scanned (detail/accumulating.hpp).
template <class F, class Input, class Heads, class Store>
void scan_block(const Input& in, std::size_t b, std::size_t e, const exact_accumulator<F>* carry,
                const exact_accumulator<F>* reset, const Heads* heads, bool exclusive, Store store,
                const block_surveys* seen = nullptr) {
  constexpr bool unconverted = std::is_same_v<Input, std::span<const F>>;  // read in place
  // the chunks' surveys where a fold of this block recorded them (its chunks are these: from b,
  // none cut short by a head), for elements read in place (the very bytes the fold surveyed)
  const chunk_survey* surveys =
      unconverted && seen != nullptr && heads == nullptr ? seen->of(b, e) : nullptr;
  exact_accumulator<F> acc = carry != nullptr ? *carry : exact_accumulator<F>{};
  known_prefix prefix;  // acc's sum as two doubles, while known
  slice_plan guess;     // the previous chunk's slicing plan (doubles: scan_guessed_avx2)
  F buf[unconverted ? 1 : chunk];
  F res[chunk];
  const simd_form simd = exact_simd();
  for (std::size_t k = b; k < e;) {
    std::size_t c = e - k < chunk ? e : k + chunk;
    if (heads != nullptr) {
      if ((*heads)[k]) {
        acc = reset != nullptr ? *reset : exact_accumulator<F>{};
        prefix.known = false;
      }
      for (std::size_t i = k + 1; i < c; ++i)
        if ((*heads)[i]) {
          c = i;
          break;
        }
    }
    const F* x = buf;
    if constexpr (unconverted) {
      x = in.data() + k;
    } else {
      prefetch_next_chunk(in, k, c - k);
      for (std::size_t i = k; i < c; ++i) buf[i - k] = static_cast<F>(in[i]);
    }
    // straight into the output where the store allows it (the chunk's own inputs elsewhere)
    F* dst = res;
    if constexpr (unconverted && requires {
                    { store.direct(k, c - k, x, (c - k) * sizeof(F)) } -> std::same_as<F*>;
                  }) {
      if (F* d = store.direct(k, c - k, x, (c - k) * sizeof(F)); d != nullptr) dst = d;
    }
    // the input the store says will be read later, asked for while this chunk is scanned
    const char* ahead = nullptr;
    if constexpr (unconverted && requires {
                    { store.read_ahead() } -> std::same_as<std::size_t>;
                  }) {
      const std::size_t a = store.read_ahead();
      if (a != 0 && a <= in.size() - c) ahead = reinterpret_cast<const char*>(x + a);
    }
    scan_chunk(acc, x, c - k, dst, exclusive, simd, &prefix, &guess,
               surveys != nullptr ? &surveys[(k - b) / chunk] : nullptr, ahead);
    if (dst == res) store(k, static_cast<const F*>(res), c - k);
    k = c;
  }
}

}  // namespace parprim::detail::exact
