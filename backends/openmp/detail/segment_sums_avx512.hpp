#pragma once
/// \file
/// \brief The AVX-512 form of the running-sum loop of sum_block_by_prefix (segments.hpp),
/// sum_tails_avx2's (segment_sums_avx2.hpp) on 512-bit vectors, taken where
/// segment_folds_avx512_usable(): 16 elements of 4 bytes or 8 of 8 a vector; the heads as mask
/// bits; the vector's prefix sum by additions of itself moved up by 1, 2, 4 (and 8) lanes across
/// the whole vector, zeros moved in; the sums before the heads packed to the front by a compress
/// instruction instead of the table of lane permutations. The same slots get the same values,
/// and the same cursor is returned; as there, a store writes all W lanes past the ones it packs,
/// so the loop runs only while the block has at least W heads left.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/detail/cpu_features.hpp>

namespace parprim::openmp::detail {

#if PARPRIM_HOST_AVX2

/// \brief The lane operations of sum_tails_avx512 on 512-bit vectors of `U` (4 or 8 bytes).
/// (The permutations and compressions are the zero-masked forms with every lane kept: GCC 12
/// warns that the unmasked forms' undefined source may be used uninitialized.)
template <class U>
struct tails_vector512 {
  static constexpr unsigned width = 64 / sizeof(U);
  static constexpr unsigned all = width == 16 ? 0xffffu : 0xffu;
  PARPRIM_TARGET_AVX512 static __m512i set1(U x) {
    if constexpr (sizeof(U) == 4)
      return _mm512_set1_epi32(static_cast<int>(x));
    else
      return _mm512_set1_epi64(static_cast<long long>(x));
  }
  PARPRIM_TARGET_AVX512 static __m512i add(__m512i a, __m512i b) {
    return sizeof(U) == 4 ? _mm512_add_epi32(a, b) : _mm512_add_epi64(a, b);
  }
  PARPRIM_TARGET_AVX512 static __m512i sub(__m512i a, __m512i b) {
    return sizeof(U) == 4 ? _mm512_sub_epi32(a, b) : _mm512_sub_epi64(a, b);
  }
  /// \brief Lane k of the result: lane k - Up of `a`, or of `b`'s top lanes below lane Up.
  template <int Up>
  PARPRIM_TARGET_AVX512 static __m512i move_up(__m512i a, __m512i b) {
    if constexpr (sizeof(U) == 4)
      return _mm512_maskz_alignr_epi32(0xffff, a, b, 16 - Up);
    else
      return _mm512_maskz_alignr_epi64(0xff, a, b, 8 - Up);
  }
  /// \brief The inclusive prefix sum of the vector's lanes.
  PARPRIM_TARGET_AVX512 static __m512i prefix(__m512i v) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i x = add(v, move_up<1>(v, zero));
    x = add(x, move_up<2>(x, zero));
    x = add(x, move_up<4>(x, zero));
    if constexpr (sizeof(U) == 4) x = add(x, move_up<8>(x, zero));
    return x;
  }
  /// \brief Lane `k` of `v` in every lane.
  PARPRIM_TARGET_AVX512 static __m512i lane(__m512i v, int k) {
    if constexpr (sizeof(U) == 4)
      return _mm512_maskz_permutexvar_epi32(0xffff, _mm512_set1_epi32(k), v);
    else
      return _mm512_maskz_permutexvar_epi64(0xff, _mm512_set1_epi64(k), v);
  }
  /// \brief The lanes of `m` packed to the front, zeros after them.
  PARPRIM_TARGET_AVX512 static __m512i compress(unsigned m, __m512i v) {
    if constexpr (sizeof(U) == 4)
      return _mm512_maskz_compress_epi32(static_cast<__mmask16>(m), v);
    else
      return _mm512_maskz_compress_epi64(static_cast<__mmask8>(m), v);
  }
  /// \brief `b` in the lanes of `m`, `a` in the others.
  PARPRIM_TARGET_AVX512 static __m512i select(__m512i a, unsigned m, __m512i b) {
    if constexpr (sizeof(U) == 4)
      return _mm512_mask_mov_epi32(a, static_cast<__mmask16>(m), b);
    else
      return _mm512_mask_mov_epi64(a, static_cast<__mmask8>(m), b);
  }
  PARPRIM_TARGET_AVX512 static U first(__m512i v) {
    const __m128i low = _mm512_maskz_extracti32x4_epi32(0xf, v, 0);
    if constexpr (sizeof(U) == 4)
      return static_cast<U>(_mm_cvtsi128_si32(low));
    else
      return static_cast<U>(_mm_cvtsi128_si64(low));
  }
};

/// \brief sum_tails_avx2 (segment_sums_avx2.hpp) on 512-bit vectors: the same contract, the same
/// slots and cursor. `Ahead`: each vector asks the cache for the element `ahead` further on and
/// its head (clamped to the input's last element, `n - 1`).
template <bool Differences, bool Ahead, class U, class Key>
PARPRIM_TARGET_AVX512 tails_cursor<U> sum_tails_avx512(const U* in, const unsigned char* flags,
                                                       const Key* keys, Key* keys_out, U* slot,
                                                       std::size_t e, U base, tails_cursor<U> c,
                                                       std::size_t ahead, std::size_t n) {
  using P = tails_vector512<U>;
  constexpr std::size_t width = P::width;
  const __m512i bases = P::set1(base);
  __m512i running = P::set1(c.running);
  __m512i closed = P::set1(c.closed);
  std::size_t i = c.i, j = c.j, left = c.heads_left;
  for (; i + width <= e && left >= width; i += width) {
    if constexpr (Ahead) {
      const std::size_t at = i + ahead < n ? i + ahead : n - 1;
      __builtin_prefetch(in + at);
      if constexpr (std::is_void_v<Key>)
        __builtin_prefetch(flags + at);
      else
        __builtin_prefetch(keys + at);
    }
    const __m512i v = _mm512_loadu_si512(in + i);
    __m512i here = _mm512_setzero_si512();
    const unsigned heads = heads_bits_avx512<U, Key>(flags, keys, i, here);
    const __m512i inclusive = P::prefix(v);
    const __m512i before_each = P::add(running, P::sub(inclusive, v));
    running = P::add(running, P::lane(inclusive, width - 1));
    // the running sums at the ends of the segments the heads close, in order
    const __m512i ends = P::compress(heads, before_each);
    if constexpr (Differences) {
      // each end's predecessor: the end before it, the first the last end closed before
      const __m512i starts = P::template move_up<1>(ends, closed);
      _mm512_storeu_si512(slot + j, P::add(bases, P::sub(ends, starts)));
    } else {
      _mm512_storeu_si512(slot + j, ends);
    }
    if constexpr (!std::is_void_v<Key>)
      _mm512_storeu_si512(keys_out + j + 1, P::compress(heads, here));
    const auto met = static_cast<unsigned>(std::popcount(heads));
    if constexpr (Differences)  // the last end packed, or the one before when no head was met
      closed = P::select(P::lane(ends, static_cast<int>(met) - 1), met == 0 ? P::all : 0u, closed);
    j += met;
    left -= met;
  }
  return {i, P::first(running), P::first(closed), j, left};
}

/// \brief sum_tails_avx512 where segment_folds_avx512_usable(), else sum_tails_avx2 (the caller
/// has asked sums_tails_avx2_usable()); `ahead` > 0: with the read-ahead.
template <bool Differences, class U, class Key>
tails_cursor<U> sum_tails_vectors(const U* in, const unsigned char* flags, const Key* keys,
                                  Key* keys_out, U* slot, std::size_t e, U base, tails_cursor<U> c,
                                  std::size_t ahead, std::size_t n) {
  if (segment_folds_avx512_usable())
    return ahead > 0 ? sum_tails_avx512<Differences, true>(in, flags, keys, keys_out, slot, e, base,
                                                           c, ahead, n)
                     : sum_tails_avx512<Differences, false>(in, flags, keys, keys_out, slot, e,
                                                            base, c, 0, n);
  return sum_tails_avx2<Differences, U, Key>(in, flags, keys, keys_out, slot, e, base, c, ahead, n);
}

#endif

}  // namespace parprim::openmp::detail
