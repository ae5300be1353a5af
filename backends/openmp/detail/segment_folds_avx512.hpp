#pragma once
/// \file
/// \brief The AVX-512 form of segment_folds_avx2.hpp's loops (per-segment results and segmented
/// scans of the operators that combine exactly in any order), taken where the processor has
/// AVX-512 (F, DQ, VL): 16 elements of 4 bytes (8 of 8) a vector. The same steps; the masks are
/// mask registers, so each step of the segmented scan is one permutation and one masked
/// operator application (no lane-mask table, no blend), and the values before the heads are
/// packed by a compress instruction (no packing table).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <parprim/backends/openmp/detail/segment_folds_avx2.hpp>
#include <parprim/detail/cpu_features.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether the AVX-512 forms run: avx512_supported() and sums_tails_avx2_usable()
/// (`PARPRIM_SEGMENT_SIMD=portable` turns both forms off; `=avx2` keeps the AVX2 one).
inline bool segment_folds_avx512_usable() {
  static const bool usable = [] {
    const char* choice = std::getenv("PARPRIM_SEGMENT_SIMD");
    return sums_tails_avx2_usable() && parprim::detail::avx512_supported() &&
           !(choice != nullptr && std::string_view(choice) == "avx2");
  }();
  return usable;
}

#if PARPRIM_HOST_AVX2

/// \brief The heads of the W elements of `U` (16 of 4 bytes, 8 of 8) from `i` (i >= 1) as a
/// W-bit mask: `flags[k] != 0`, or (`Key` not void) `keys[k] != keys[k - 1]`, the keys (of U's
/// size) loaded into `here`. (The per-segment folds', sums' and head counts' AVX-512 loops.)
template <class U, class Key>
PARPRIM_TARGET_AVX512 unsigned heads_bits_avx512(const unsigned char* flags, const Key* keys,
                                                 std::size_t i, __m512i& here) {
  if constexpr (!std::is_void_v<Key>) {
    here = _mm512_loadu_si512(keys + i);
    const __m512i before = _mm512_loadu_si512(keys + i - 1);
    if constexpr (sizeof(U) == 4)
      return _mm512_cmpneq_epi32_mask(here, before);
    else
      return _mm512_cmpneq_epi64_mask(here, before);
  } else {
    __m128i bytes;
    if constexpr (sizeof(U) == 4) {
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(flags + i));
    } else {
      std::int64_t w;
      std::memcpy(&w, flags + i, 8);
      bytes = _mm_cvtsi64_si128(w);
    }
    const auto zero =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128())));
    return ~zero & (sizeof(U) == 4 ? 0xffffu : 0xffu);
  }
}

/// \brief The operations of the AVX-512 fold on vectors of segment_fold_lanes<T, Op>::lane.
template <class T, class Op>
struct segment_fold_vectors512 {
  using lanes = segment_fold_lanes<T, Op>;
  using U = typename lanes::lane;
  static constexpr bool four = sizeof(U) == 4;
  static constexpr unsigned width = 64 / sizeof(U);
  static constexpr unsigned full = width == 16 ? 0xffffu : 0xffu;
  static constexpr U sign = U{1} << (8 * sizeof(U) - 1);
  // every lane: the zero-masked forms of the intrinsics whose unmasked forms GCC 12 writes from
  // an undefined vector (which its -Wuninitialized reports); the same instructions
  static constexpr __mmask16 all16 = 0xffff;
  static constexpr __mmask8 all8 = 0xff;

  PARPRIM_TARGET_AVX512 static __m512i all(U x) {
    return four ? _mm512_set1_epi32(static_cast<int>(x))
                : _mm512_set1_epi64(static_cast<long long>(x));
  }
  PARPRIM_TARGET_AVX512 static __m512i load_bits(const void* p) { return _mm512_loadu_si512(p); }

  /// \brief Lanes of `m` take `a op b` (a the earlier operand), the others keep `src`.
  PARPRIM_TARGET_AVX512 static __m512i combine(__m512i src, unsigned m, __m512i a, __m512i b) {
    const auto k16 = static_cast<__mmask16>(m);
    const auto k8 = static_cast<__mmask8>(m);
    if constexpr (lanes::ordered_keys) {
      return four ? _mm512_mask_min_epu32(src, k16, a, b) : _mm512_mask_min_epu64(src, k8, a, b);
    } else if constexpr (std::is_same_v<Op, bit_and>) {
      return four ? _mm512_mask_and_epi32(src, k16, a, b) : _mm512_mask_and_epi64(src, k8, a, b);
    } else if constexpr (std::is_same_v<Op, bit_or>) {
      return four ? _mm512_mask_or_epi32(src, k16, a, b) : _mm512_mask_or_epi64(src, k8, a, b);
    } else if constexpr (std::is_same_v<Op, bit_xor>) {
      return four ? _mm512_mask_xor_epi32(src, k16, a, b) : _mm512_mask_xor_epi64(src, k8, a, b);
    } else if constexpr (std::is_same_v<Op, multiplies>) {
      return _mm512_mask_mullo_epi32(src, k16, a, b);  // (4-byte values only)
    } else if constexpr (std::is_same_v<Op, maximum>) {
      if constexpr (four)
        return std::is_signed_v<T> ? _mm512_mask_max_epi32(src, k16, a, b)
                                   : _mm512_mask_max_epu32(src, k16, a, b);
      else
        return std::is_signed_v<T> ? _mm512_mask_max_epi64(src, k8, a, b)
                                   : _mm512_mask_max_epu64(src, k8, a, b);
    } else {
      if constexpr (four)
        return std::is_signed_v<T> ? _mm512_mask_min_epi32(src, k16, a, b)
                                   : _mm512_mask_min_epu32(src, k16, a, b);
      else
        return std::is_signed_v<T> ? _mm512_mask_min_epi64(src, k8, a, b)
                                   : _mm512_mask_min_epu64(src, k8, a, b);
    }
  }

  /// \brief The lanes whose value, as unsigned, exceeds `bound`.
  PARPRIM_TARGET_AVX512 static unsigned above(__m512i v, U bound) {
    return four ? _mm512_cmpgt_epu32_mask(v, all(bound)) : _mm512_cmpgt_epu64_mask(v, all(bound));
  }
  /// \brief `v` with `x` exclusive-or'd into the lanes of `m`.
  PARPRIM_TARGET_AVX512 static __m512i flip(__m512i v, unsigned m, U x) {
    return four ? _mm512_mask_xor_epi32(v, static_cast<__mmask16>(m), v, all(x))
                : _mm512_mask_xor_epi64(v, static_cast<__mmask8>(m), v, all(x));
  }
  /// \brief ordered_key::negate_numbers on each lane: numbers' signs flipped, NaNs kept.
  PARPRIM_TARGET_AVX512 static __m512i negate_numbers(__m512i u) {
    const unsigned nan = above(_mm512_and_si512(u, all(~sign)), lanes::key::infinity);
    return flip(u, ~nan & full, sign);
  }
  /// \brief ordered_key::of_bits on each lane (the bits themselves for integers).
  PARPRIM_TARGET_AVX512 static __m512i load(__m512i u) {
    if constexpr (!lanes::ordered_keys) {
      return u;
    } else {
      using key = typename lanes::key;
      if constexpr (std::is_same_v<Op, maximum>) u = negate_numbers(u);
      const __m512i negative =
          four ? _mm512_maskz_srai_epi32(all16, u, 31) : _mm512_maskz_srai_epi64(all8, u, 63);
      const __m512i sortable = _mm512_xor_si512(u, _mm512_or_si512(negative, all(sign)));
      const __m512i shifted = four ? _mm512_sub_epi32(sortable, all(key::nans_of_a_sign))
                                   : _mm512_sub_epi64(sortable, all(key::nans_of_a_sign));
      const unsigned negative_nan = above(u, sign | key::infinity);
      return four ? _mm512_mask_mov_epi32(shifted, static_cast<__mmask16>(negative_nan), u)
                  : _mm512_mask_mov_epi64(shifted, static_cast<__mmask8>(negative_nan), u);
    }
  }
  /// \brief The inverse of `load` (ordered_key::bits).
  PARPRIM_TARGET_AVX512 static __m512i unload(__m512i k) {
    if constexpr (!lanes::ordered_keys) {
      return k;
    } else {
      using key = typename lanes::key;
      const __m512i s = four ? _mm512_add_epi32(k, all(key::nans_of_a_sign))
                             : _mm512_add_epi64(k, all(key::nans_of_a_sign));
      // unsortable: s ^ sign where s has the sign bit, else ~s
      const unsigned has_sign = above(s, sign - 1);
      const __m512i unsorted =
          flip(flip(s, has_sign, sign), ~has_sign & full, static_cast<U>(~U{0}));
      const unsigned negative_nan = above(k, sign | key::infinity);
      __m512i u = four ? _mm512_mask_mov_epi32(unsorted, static_cast<__mmask16>(negative_nan), k)
                       : _mm512_mask_mov_epi64(unsorted, static_cast<__mmask8>(negative_nan), k);
      if constexpr (std::is_same_v<Op, maximum>) u = negate_numbers(u);
      return u;
    }
  }

  /// \brief Lane i of `v` moved to lane i + D, lanes below D from `low` (its last lanes).
  template <unsigned D>
  PARPRIM_TARGET_AVX512 static __m512i up(__m512i v, __m512i low) {
    return four ? _mm512_maskz_alignr_epi32(all16, v, low, 16 - D)
                : _mm512_maskz_alignr_epi64(all8, v, low, 8 - D);
  }
  /// \brief The last lane in every lane.
  PARPRIM_TARGET_AVX512 static __m512i last(__m512i v) {
    return four ? _mm512_maskz_permutexvar_epi32(all16, _mm512_set1_epi32(15), v)
                : _mm512_maskz_permutexvar_epi64(all8, _mm512_set1_epi64(7), v);
  }
  /// \brief The first lane.
  PARPRIM_TARGET_AVX512 static U first_lane(__m512i v) {
    alignas(64) U lanes_of_v[width];
    _mm512_store_si512(lanes_of_v, v);
    return lanes_of_v[0];
  }
  /// \brief The lanes of `m` packed to the front (the rest zero).
  PARPRIM_TARGET_AVX512 static __m512i pack(unsigned m, __m512i v) {
    return four ? _mm512_maskz_compress_epi32(static_cast<__mmask16>(m), v)
                : _mm512_maskz_compress_epi64(static_cast<__mmask8>(m), v);
  }

  /// \brief The segmented scan of `v` within the vector (heads at the lanes of `heads`), the
  /// lanes before the first head continuing the open segment, `open` in every lane.
  PARPRIM_TARGET_AVX512 static __m512i scan(__m512i v, unsigned heads, __m512i open) {
    unsigned window = heads;  // the lanes with a head in (i - d, i]
    const auto step = [](unsigned d, unsigned w) { return ~w & (full << d) & full; };
    v = combine(v, step(1, window), up<1>(v, v), v);
    window |= window << 1;
    v = combine(v, step(2, window), up<2>(v, v), v);
    window |= window << 2;
    v = combine(v, step(4, window), up<4>(v, v), v);
    window |= window << 4;
    if constexpr (four) {
      v = combine(v, step(8, window), up<8>(v, v), v);
      window |= window << 8;
    }
    return combine(v, ~window & full, open, v);
  }

  /// \brief The heads of the W elements from `i` (i >= 1) as a W-bit mask: `flags[k] != 0`, or
  /// (`Key` not void) `keys[k] != keys[k - 1]`, the keys (of U's size) loaded into `here`.
  template <class Key>
  PARPRIM_TARGET_AVX512 static unsigned heads_bits(const unsigned char* flags, const Key* keys,
                                                   std::size_t i, __m512i& here) {
    return heads_bits_avx512<U, Key>(flags, keys, i, here);
  }
  /// \brief Heads from the segmented scans' flags (one-byte span or integer keys).
  template <class Flags>
  PARPRIM_TARGET_AVX512 static unsigned heads_bits(const Flags& flags, std::size_t i) {
    __m512i here;
    if constexpr (byte_flag_span_v<Flags>)
      return heads_bits<void>(reinterpret_cast<const unsigned char*>(flags.data()), nullptr, i,
                              here);
    else
      return heads_bits(static_cast<const unsigned char*>(nullptr), flags.data(), i, here);
  }
};

/// \brief fold_tails_avx2 (segment_folds_avx2.hpp) a 512-bit vector at a time: the same
/// contract, with W = 16 (4-byte values) or 8.
template <bool With_init, class T, class Op, class Key, bool Ahead = false>
PARPRIM_TARGET_AVX512 fold_cursor<typename segment_fold_lanes<T, Op>::lane> fold_tails_avx512(
    const T* in, const unsigned char* flags, const Key* keys, Key* keys_out, T* slot, std::size_t e,
    T init, fold_cursor<typename segment_fold_lanes<T, Op>::lane> c, std::size_t ahead = 0,
    std::size_t n = 0) {
  using V = segment_fold_vectors512<T, Op>;
  constexpr std::size_t width = V::width;
  constexpr bool by_key = !std::is_void_v<Key>;
  const __m512i inits = V::all(segment_fold_lanes<T, Op>::of(init));
  __m512i open = V::all(c.open);
  std::size_t i = c.i, j = c.j, left = c.heads_left;
  for (; i + width <= e && left >= width; i += width) {
    if constexpr (Ahead && by_key)
      read_ahead_element(in, keys, i, ahead, n);
    else if constexpr (Ahead)
      read_ahead_element(in, flags, i, ahead, n);
    __m512i here{};
    const unsigned heads = V::heads_bits(flags, keys, i, here);
    const __m512i v = V::scan(V::load(V::load_bits(in + i)), heads, open);
    // the values before the heads: the results of the segments they close, packed
    __m512i ends = V::pack(heads, V::template up<1>(v, open));
    if constexpr (With_init) ends = V::combine(ends, V::full, inits, ends);
    _mm512_storeu_si512(slot + j, V::unload(ends));
    if constexpr (by_key) _mm512_storeu_si512(keys_out + j + 1, V::pack(heads, here));
    open = V::last(v);
    const auto met = static_cast<unsigned>(_mm_popcnt_u32(heads));
    j += met;
    left -= met;
  }
  return {i, V::first_lane(open), j, left};
}

/// \brief segmented_folds_avx2 (segment_folds_avx2.hpp) a 512-bit vector at a time: the same
/// contract (streaming stores aligned to 64 bytes).
template <bool Exclusive, class Out, class Op, class Flags>
PARPRIM_TARGET_AVX512 Out segmented_folds_avx512(Out* out, std::size_t b, std::size_t e,
                                                 bool stream, Out acc, const Out* in,
                                                 const Flags& flags, Out init, Op op) {
  using V = segment_fold_vectors512<Out, Op>;
  using lanes = segment_fold_lanes<Out, Op>;
  constexpr std::size_t width = V::width;
  segmented_fold_element<Exclusive, Out, Op, Flags> one{out, in, flags, init, op, acc};
  // to a 64-byte boundary of the output, so that streaming stores are aligned
  std::size_t k = one.to_boundary(b, e, 64);
  if (k + width <= e) {
    const __m512i inits = V::all(lanes::of(init));
    __m512i open = V::all(lanes::of(one.acc));
    for (; k + width <= e; k += width) {
      const unsigned heads = V::heads_bits(flags, k);
      __m512i v = V::load(V::load_bits(in + k));
      if constexpr (Exclusive) v = V::combine(v, heads, inits, v);
      v = V::scan(v, heads, open);
      __m512i result = v;
      if constexpr (Exclusive)
        result = V::four ? _mm512_mask_mov_epi32(V::template up<1>(v, open),
                                                 static_cast<__mmask16>(heads), inits)
                         : _mm512_mask_mov_epi64(V::template up<1>(v, open),
                                                 static_cast<__mmask8>(heads), inits);
      open = V::last(v);
      if (stream)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(out + k), V::unload(result));
      else
        _mm512_store_si512(out + k, V::unload(result));
    }
    one.acc = lanes::value(V::first_lane(open));
  }
  for (; k < e; ++k) one(k);
  if (stream) _mm_sfence();
  return one.acc;
}

/// \brief fold_tails_avx512 where segment_folds_avx512_usable(), else fold_tails_avx2 (the caller
/// has asked sums_tails_avx2_usable()).
template <bool With_init, class T, class Op, class Key>
fold_cursor<typename segment_fold_lanes<T, Op>::lane> fold_tails_vectors(
    const T* in, const unsigned char* flags, const Key* keys, Key* keys_out, T* slot, std::size_t e,
    T init, fold_cursor<typename segment_fold_lanes<T, Op>::lane> c, std::size_t ahead = 0,
    std::size_t n = 0) {
  if (segment_folds_avx512_usable())
    return ahead > 0 ? fold_tails_avx512<With_init, T, Op, Key, true>(in, flags, keys, keys_out,
                                                                      slot, e, init, c, ahead, n)
                     : fold_tails_avx512<With_init, T, Op, Key>(in, flags, keys, keys_out, slot, e,
                                                                init, c);
  return ahead > 0
             ? fold_tails_avx2<With_init, T, Op, Key, true>(in, flags, keys, keys_out, slot, e,
                                                            init, c, ahead, n)
             : fold_tails_avx2<With_init, T, Op, Key>(in, flags, keys, keys_out, slot, e, init, c);
}

/// \brief segmented_folds_avx512 where segment_folds_avx512_usable(), else segmented_folds_avx2
/// (the caller has asked sums_tails_avx2_usable()).
template <bool Exclusive, class Out, class Op, class Flags>
Out segmented_folds_vectors(Out* out, std::size_t b, std::size_t e, bool stream, Out acc,
                            const Out* in, const Flags& flags, Out init, Op op) {
  if (segment_folds_avx512_usable())
    return segmented_folds_avx512<Exclusive>(out, b, e, stream, acc, in, flags, init, op);
  return segmented_folds_avx2<Exclusive>(out, b, e, stream, acc, in, flags, init, op);
}

#endif

}  // namespace parprim::openmp::detail
