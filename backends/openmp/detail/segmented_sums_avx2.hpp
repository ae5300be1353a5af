#pragma once
/// \file
/// \brief The AVX2 form of a segmented scan's block step for integer sums, inclusive or
/// exclusive: values of 4 or 8 bytes (8 or 4 to a vector), heads from one-byte flags or from
/// integer keys of the values' size (a head where a key differs from the one before it). With
/// `base` added to each head's element (an exclusive scan's `init`; 0 for an inclusive one),
/// the running value t_k is x_k + base at a head, t_(k-1) + x_k elsewhere, and the output t_k
/// (inclusive) or t_k - x_k (exclusive). For each vector:
/// - its heads as a lane mask (flags: each byte against zero; keys: each key against the one
///   before it);
/// - the segmented prefix sum within the vector by shifted adds, a lane adding the lanes before
///   it back to the nearest head: two shifts within each 128-bit half (one for 8-byte values),
///   then the low half's last lane into the high half's lanes before its first head;
/// - the running sum before the vector into its lanes before the first head, and the last lane
///   broadcast as the running sum for the next vector.
/// Sums wrap in the unsigned type, as the portable loop's. No branch depends on the heads, so
/// a head every few elements at random costs what long runs cost (the portable loop's select
/// puts a dependent select beside each addition).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include <parprim/detail/cpu_features.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

template <class Flags>
inline constexpr bool byte_flag_span_v = false;
template <class F>
inline constexpr bool byte_flag_span_v<std::span<const F>> = std::is_integral_v<F> &&
                                                             sizeof(F) == 1;

template <class Flags, class U>
inline constexpr bool integer_key_heads_v = false;
template <class K, class U>
inline constexpr bool integer_key_heads_v<parprim::detail::key_heads<K>, U> =
    std::is_integral_v<K> && !std::is_same_v<K, bool> && sizeof(K) == sizeof(U);

/// \brief Asks the cache for element `at + ahead` of `in` and its head at `heads` (one-byte
/// flags or keys), or for element `at` where that lies at or beyond `n`: the read-ahead of the
/// rounds' per-segment results (segments_in_rounds.hpp, segment_read_ahead).
/// Without a branch: GCC 12 at -O3 dropped both requests from loops that called a form with a
/// test of `ahead` (an early return, or an `if`); the loops instead call it only in their
/// instantiation for a read-ahead (`Ahead`), chosen once per call.
template <class T, class H>
inline void read_ahead_element(const T* in, const H* heads, std::size_t at, std::size_t ahead,
                               std::size_t n) {
  const std::size_t k = at + ahead < n ? at + ahead : at;
  __builtin_prefetch(in + k);
  __builtin_prefetch(heads + k);
}

/// \brief Whether segmented_sums_avx2 takes a segmented scan with `Op` of `Input` into `Out`,
/// heads given by `Flags`: integer plus on 4- or 8-byte results, the input the
/// results' own type in memory, flags of one byte or integer keys of the results' size.
template <class Out, class Input, class Flags, class Op>
constexpr bool segmented_sums_avx2_ok() {
  using In = std::remove_cv_t<typename Input::value_type>;
  if constexpr (!PARPRIM_HOST_AVX2 || !std::is_integral_v<Out> || std::is_same_v<Out, bool> ||
                (sizeof(Out) != 4 && sizeof(Out) != 8) || !std::is_same_v<In, Out> ||
                !requires(const Input& x) { x.data(); })
    return false;
  else
    return (std::is_same_v<Op, plus> || std::is_same_v<Op, exact_plus>)&&(
        byte_flag_span_v<Flags> || integer_key_heads_v<Flags, Out>);
}

#if PARPRIM_HOST_AVX2
/// \brief The heads of the W elements from `i` (i >= 1 in the sequence) as a lane mask of
/// W-lane vectors of `U`.
template <class U, class Flags>
PARPRIM_TARGET_AVX2 inline __m256i heads_mask_avx2(const Flags& flags, std::size_t i) {
  if constexpr (byte_flag_span_v<Flags>) {
    const auto* p = reinterpret_cast<const unsigned char*>(flags.data()) + i;
    if constexpr (sizeof(U) == 4) {
      std::int64_t w;
      std::memcpy(&w, p, 8);
      const __m256i b = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(w));
      return _mm256_cmpgt_epi32(b, _mm256_setzero_si256());
    } else {
      std::int32_t w;
      std::memcpy(&w, p, 4);
      const __m256i b = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w));
      return _mm256_cmpgt_epi64(b, _mm256_setzero_si256());
    }
  } else {
    const auto* k = flags.data() + i;
    const __m256i now = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k));
    const __m256i before = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k - 1));
    const __m256i same =
        sizeof(U) == 4 ? _mm256_cmpeq_epi32(now, before) : _mm256_cmpeq_epi64(now, before);
    return _mm256_xor_si256(same, _mm256_set1_epi32(-1));
  }
}

/// \brief `out[k]` for k in [b, e) (b >= 1 in the sequence) of the segmented sum (see the file
/// comment) whose running value before element b is `acc`, with streaming stores if `stream`
/// (then a store fence). Returns the running value after element e - 1.
template <bool Exclusive, class U, class Flags>
PARPRIM_TARGET_AVX2 U segmented_sums_avx2(U* out, std::size_t b, std::size_t e, bool stream, U acc,
                                          const U* in, const Flags& flags, U base = 0) {
  constexpr std::size_t w = 32 / sizeof(U);
  const auto scalar = [&](std::size_t k) {
    acc = static_cast<U>((parprim::detail::head_after_first(flags, k) ? base : acc) + in[k]);
    out[k] = Exclusive ? static_cast<U>(acc - in[k]) : acc;
  };
  std::size_t k = b;
  // to a 32-byte boundary of the output, so that streaming stores are aligned
  for (; k < e && reinterpret_cast<std::uintptr_t>(out + k) % 32 != 0; ++k) scalar(k);
  bool vectors = false;  // whether a vector went by (the running sum then in `carry`)
  __m256i carry = sizeof(U) == 4 ? _mm256_set1_epi32(static_cast<int>(acc))
                                 : _mm256_set1_epi64x(static_cast<long long>(acc));
  const __m256i bases = sizeof(U) == 4 ? _mm256_set1_epi32(static_cast<int>(base))
                                       : _mm256_set1_epi64x(static_cast<long long>(base));
  for (; k + w <= e; k += w) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k));
    __m256i f = heads_mask_avx2<U>(flags, k);
    __m256i s = sizeof(U) == 4 ? _mm256_add_epi32(x, _mm256_and_si256(f, bases))
                               : _mm256_add_epi64(x, _mm256_and_si256(f, bases));
    // within each 128-bit half: shifted adds that stop at a head
    if constexpr (sizeof(U) == 4) {
      s = _mm256_add_epi32(s, _mm256_andnot_si256(f, _mm256_slli_si256(s, 4)));
      f = _mm256_or_si256(f, _mm256_slli_si256(f, 4));
      s = _mm256_add_epi32(s, _mm256_andnot_si256(f, _mm256_slli_si256(s, 8)));
      f = _mm256_or_si256(f, _mm256_slli_si256(f, 8));
    } else {
      s = _mm256_add_epi64(s, _mm256_andnot_si256(f, _mm256_slli_si256(s, 8)));
      f = _mm256_or_si256(f, _mm256_slli_si256(f, 8));
    }
    // the low half's last lane into the high half (zero into the low half)
    constexpr int last = sizeof(U) == 4 ? 0xff : 0xee;
    const __m256i ls = _mm256_permute2x128_si256(_mm256_shuffle_epi32(s, last), s, 0x08);
    const __m256i lf = _mm256_permute2x128_si256(_mm256_shuffle_epi32(f, last), f, 0x08);
    if constexpr (sizeof(U) == 4) {
      s = _mm256_add_epi32(s, _mm256_andnot_si256(f, ls));
      f = _mm256_or_si256(f, lf);
      s = _mm256_add_epi32(s, _mm256_andnot_si256(f, carry));
      carry = _mm256_permutevar8x32_epi32(s, _mm256_set1_epi32(7));
    } else {
      s = _mm256_add_epi64(s, _mm256_andnot_si256(f, ls));
      f = _mm256_or_si256(f, lf);
      s = _mm256_add_epi64(s, _mm256_andnot_si256(f, carry));
      carry = _mm256_permute4x64_epi64(s, 0xff);
    }
    vectors = true;
    if constexpr (Exclusive) s = sizeof(U) == 4 ? _mm256_sub_epi32(s, x) : _mm256_sub_epi64(s, x);
    auto* dst = reinterpret_cast<__m256i*>(out + k);
    if (stream)
      _mm256_stream_si256(dst, s);
    else
      _mm256_store_si256(dst, s);
  }
  if (vectors) {
    alignas(32) U lanes[w];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), carry);
    acc = lanes[0];
  }
  for (; k < e; ++k) scalar(k);
  if (stream) _mm_sfence();
  return acc;
}
#endif

}  // namespace parprim::openmp::detail
