#pragma once
/// \file
/// \brief The AVX2 loop of fold_block_by_vectors (segments.hpp): per-segment results of the
/// library's operators that are associative and commutative exactly on 4- or 8-byte values,
/// without a branch on the heads and without one operator application per element on a chain:
/// integer `minimum`, `maximum`, `bit_and`, `bit_or`, `bit_xor`, 4-byte integer `multiplies`
/// (wrapping), and float / double `minimum` and `maximum`, taken on their ordered keys
/// (ordered_keys.hpp) with the unsigned minimum. A vector of W elements (8 of 4 bytes, 4 of 8)
/// at a time:
/// - the heads among them as a W-bit mask (flags: a byte compare; keys: each key against the
///   one before it), as the running-sum loop of segment_sums_avx2.hpp reads them;
/// - the vector's segmented scan: log2(W) steps, the step of distance d combining each lane with
///   the lane d before it where no head lies between them (the lanes' masks from the head bits
///   through a table);
/// - the open segment's value before the vector combined into the lanes before its first head;
/// - the value before each head (its lane's predecessor, or the value before the vector for a
///   head in the first lane) is the result of the segment the head closes: those values packed
///   to the front by segment_sums_avx2.hpp's table and stored at the next free slots; by key,
///   the heads' keys likewise, one slot further on; `init` is combined into each result as it
///   is stored (`init op x_first op ... op x_last` in any grouping: the operators commute);
/// - the last lane's value carried to the next vector.
/// The operators combine exactly in any order, so the results are the sequence-order fold's,
/// bit for bit. A store writes all W lanes, past the ones it packs; the loop runs only while the
/// block has at least W heads left, so every lane lands in a slot of this block that a later
/// store (or the stitching, for the block's last segment) writes again.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/backends/openmp/detail/segmented_sums_avx2.hpp>
#include <parprim/detail/cpu_features.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/detail/ordered_keys.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief The lane form of values `T` under `Op` for the AVX2 fold: `ok` where the loop takes
/// them; `lane` the unsigned type of T's width; `of` / `value` the scalar maps to and from a
/// lane (T's bits, or its ordered key for float minimum / maximum).
template <class T, class Op>
struct segment_fold_lanes {
  static constexpr bool ok = false;
};

/// \brief Integers of 4 or 8 bytes under minimum, maximum and the bit operators; 4-byte
/// integers under multiplies (their low half is the same for signed and unsigned operands).
template <class T, class Op>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8) &&
         (std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum> ||
          std::is_same_v<Op, bit_and> || std::is_same_v<Op, bit_or> ||
          std::is_same_v<Op, bit_xor> ||
          (std::is_same_v<Op, multiplies> && sizeof(T) == 4))) struct segment_fold_lanes<T, Op> {
  static constexpr bool ok = true;
  static constexpr bool ordered_keys = false;
  using lane = std::make_unsigned_t<T>;
  static lane of(T x) { return static_cast<lane>(x); }
  static T value(lane k) { return static_cast<T>(k); }
};

/// \brief float and double under minimum and maximum: on their ordered keys, with the unsigned
/// minimum.
template <class T, class Op>
requires(std::is_floating_point_v<T>&& parprim::detail::ieee_bits_v<T> &&
         (std::is_same_v<Op, minimum> ||
          std::is_same_v<Op, maximum>)) struct segment_fold_lanes<T, Op> {
  static constexpr bool ok = true;
  static constexpr bool ordered_keys = true;
  using key = parprim::detail::ordered_key<std::is_same_v<Op, maximum>, T>;
  using lane = typename key::key_type;
  static lane of(T x) { return key::of(x); }
  static T value(lane k) { return key::value(k); }
};

/// \brief For each mask of W lanes, the vector with all bits set in the masked lanes of `Size`
/// bytes.
template <std::size_t Size>
constexpr auto lane_masks_table() {
  constexpr std::size_t width = 32 / Size;
  constexpr std::size_t words = Size / 4;
  std::array<std::array<std::uint32_t, 8>, std::size_t{1} << width> table{};
  for (std::size_t mask = 0; mask < table.size(); ++mask)
    for (std::size_t lane = 0; lane < width; ++lane)
      for (std::size_t w = 0; w < words; ++w)
        table[mask][lane * words + w] = (mask >> lane) & 1 ? ~std::uint32_t{0} : 0;
  return table;
}

template <std::size_t Size>
alignas(32) inline constexpr auto lane_masks_table_v = lane_masks_table<Size>();

/// \brief Where the AVX2 fold left off: the next element, the open segment's value in lanes
/// (through the element before it), the open segment's slot and the heads not yet met.
template <class U>
struct fold_cursor {
  std::size_t i;
  U open;
  std::size_t j;
  std::size_t heads_left;
};

/// \brief One element of the segmented scans' vector forms (segmented_folds_avx2 and its
/// AVX-512 twin) taken alone, before the first aligned vector and after the last: `out[k]` and
/// the running value `acc` after it (inclusive: the element itself at a head; exclusive: `init`
/// stored at a head and `init op x` carried).
template <bool Exclusive, class Out, class Op, class Flags>
struct segmented_fold_element {
  Out* out;
  const Out* in;
  const Flags& flags;
  Out init;
  Op op;
  Out acc;
  void operator()(std::size_t k) {
    const bool head = parprim::detail::head_after_first(flags, k);
    const Out before = head ? init : acc;
    acc = head && !Exclusive ? in[k] : parprim::detail::apply_wrapping<Out>(op, before, in[k]);
    out[k] = Exclusive ? before : acc;
  }
  /// \brief The elements from `k` up to the first whose output lies on an `align`-byte boundary
  /// (or `e`); returns that element.
  std::size_t to_boundary(std::size_t k, std::size_t e, std::size_t align) {
    for (; k < e && reinterpret_cast<std::uintptr_t>(out + k) % align != 0; ++k) (*this)(k);
    return k;
  }
};

#if PARPRIM_HOST_AVX2

/// \brief The operations of the fold on vectors of segment_fold_lanes<T, Op>::lane: `combine` (the
/// operator on lanes), `load` (T's bits to lanes) and `unload` (back).
template <class T, class Op>
struct segment_fold_vectors {
  using lanes = segment_fold_lanes<T, Op>;
  using U = typename lanes::lane;
  static constexpr bool four = sizeof(U) == 4;
  static constexpr U sign = U{1} << (8 * sizeof(U) - 1);

  PARPRIM_TARGET_AVX2 static __m256i all(U x) { return broadcast<U>(x); }
  /// \brief Lanes where a > b as signed integers.
  PARPRIM_TARGET_AVX2 static __m256i greater(__m256i a, __m256i b) {
    return four ? _mm256_cmpgt_epi32(a, b) : _mm256_cmpgt_epi64(a, b);
  }
  /// \brief All bits of the lanes whose sign bit is set.
  PARPRIM_TARGET_AVX2 static __m256i negative(__m256i a) {
    return four ? _mm256_srai_epi32(a, 31) : _mm256_cmpgt_epi64(_mm256_setzero_si256(), a);
  }
  /// \brief The unsigned minimum of each lane.
  PARPRIM_TARGET_AVX2 static __m256i min_unsigned(__m256i a, __m256i b) {
    if constexpr (four) {
      return _mm256_min_epu32(a, b);
    } else {
      const __m256i s = all(sign);
      const __m256i a_greater = greater(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));
      return _mm256_blendv_epi8(a, b, a_greater);
    }
  }

  /// \brief `a op b`, a the earlier operand (the operators commute, exactly).
  PARPRIM_TARGET_AVX2 static __m256i combine(__m256i a, __m256i b) {
    if constexpr (lanes::ordered_keys) {
      return min_unsigned(a, b);
    } else if constexpr (std::is_same_v<Op, bit_and>) {
      return _mm256_and_si256(a, b);
    } else if constexpr (std::is_same_v<Op, bit_or>) {
      return _mm256_or_si256(a, b);
    } else if constexpr (std::is_same_v<Op, bit_xor>) {
      return _mm256_xor_si256(a, b);
    } else if constexpr (std::is_same_v<Op, multiplies>) {
      return _mm256_mullo_epi32(a, b);
    } else {
      constexpr bool max = std::is_same_v<Op, maximum>;
      if constexpr (four && std::is_signed_v<T>) {
        return max ? _mm256_max_epi32(a, b) : _mm256_min_epi32(a, b);
      } else if constexpr (four) {
        return max ? _mm256_max_epu32(a, b) : _mm256_min_epu32(a, b);
      } else {
        const __m256i flip = std::is_signed_v<T> ? _mm256_setzero_si256() : all(sign);
        const __m256i a_greater = greater(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip));
        return max ? _mm256_blendv_epi8(b, a, a_greater) : _mm256_blendv_epi8(a, b, a_greater);
      }
    }
  }

  /// \brief ordered_key::negate_numbers on each lane: numbers' signs flipped, NaNs kept.
  PARPRIM_TARGET_AVX2 static __m256i negate_numbers(__m256i u) {
    const __m256i nan = greater(_mm256_and_si256(u, all(~sign)), all(lanes::key::infinity));
    return _mm256_xor_si256(u, _mm256_andnot_si256(nan, all(sign)));
  }
  /// \brief For float minimum (maximum): each lane's bits u to its key (ordered_key::of_bits):
  /// u for NaNs of the sign bit, else u in sortable form less the NaNs of one sign; for maximum,
  /// numbers' signs flipped first.
  PARPRIM_TARGET_AVX2 static __m256i load(__m256i u) {
    if constexpr (!lanes::ordered_keys) {
      return u;
    } else {
      using key = typename lanes::key;
      const __m256i infinity = all(key::infinity);
      if constexpr (std::is_same_v<Op, maximum>) u = negate_numbers(u);
      const __m256i sortable = _mm256_xor_si256(u, _mm256_or_si256(negative(u), all(sign)));
      const __m256i shifted = four ? _mm256_sub_epi32(sortable, all(key::nans_of_a_sign))
                                   : _mm256_sub_epi64(sortable, all(key::nans_of_a_sign));
      // u > (sign | infinity) as unsigned: u ^ sign > infinity as signed
      const __m256i negative_nan = greater(_mm256_xor_si256(u, all(sign)), infinity);
      return _mm256_blendv_epi8(shifted, u, negative_nan);
    }
  }
  /// \brief The inverse of `load` (ordered_key::bits).
  PARPRIM_TARGET_AVX2 static __m256i unload(__m256i k) {
    if constexpr (!lanes::ordered_keys) {
      return k;
    } else {
      using key = typename lanes::key;
      const __m256i infinity = all(key::infinity);
      const __m256i s = four ? _mm256_add_epi32(k, all(key::nans_of_a_sign))
                             : _mm256_add_epi64(k, all(key::nans_of_a_sign));
      // unsortable: s ^ sign where s has the sign bit, else ~s
      const __m256i flip = _mm256_or_si256(_mm256_xor_si256(negative(s), all(~U{0})), all(sign));
      const __m256i negative_nan = greater(_mm256_xor_si256(k, all(sign)), infinity);
      __m256i u = _mm256_blendv_epi8(_mm256_xor_si256(s, flip), k, negative_nan);
      if constexpr (std::is_same_v<Op, maximum>) u = negate_numbers(u);
      return u;
    }
  }

  /// \brief Lane i of `v` moved to lane i + d (lanes below d keep theirs: masked off).
  template <std::size_t D>
  PARPRIM_TARGET_AVX2 static __m256i up(__m256i v) {
    if constexpr (four) {
      constexpr auto at = [](int i) {
        return i >= static_cast<int>(D) ? i - static_cast<int>(D) : i;
      };
      return _mm256_permutevar8x32_epi32(
          v, _mm256_setr_epi32(at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)));
    } else if constexpr (D == 1) {
      return _mm256_permute4x64_epi64(v, 0x90);  // lanes 0, 0, 1, 2
    } else {
      return _mm256_permute4x64_epi64(v, 0x44);  // lanes 0, 1, 0, 1
    }
  }
  /// \brief The last lane in every lane.
  PARPRIM_TARGET_AVX2 static __m256i last(__m256i v) {
    return four ? _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7))
                : _mm256_permute4x64_epi64(v, 0xff);
  }
  /// \brief The vector with all bits set in the lanes of mask `m`.
  PARPRIM_TARGET_AVX2 static __m256i lanes_of(unsigned m) {
    return _mm256_load_si256(
        reinterpret_cast<const __m256i*>(lane_masks_table_v<sizeof(U)>[m].data()));
  }
  /// \brief The segmented scan of `v` within the vector, heads at the lanes of mask `heads`,
  /// the lanes before the first head continuing the open segment, `open` in every lane.
  PARPRIM_TARGET_AVX2 static __m256i scan(__m256i v, unsigned heads, __m256i open) {
    constexpr unsigned full = (1u << (32 / sizeof(U))) - 1;
    unsigned window = heads;
    v = step<1>(v, window);
    v = step<2>(v, window);
    if constexpr (four) v = step<4>(v, window);
    return _mm256_blendv_epi8(v, combine(open, v), lanes_of(~window & full));
  }
  /// \brief The lanes before each lane of `v`, `open` before the first.
  PARPRIM_TARGET_AVX2 static __m256i before_each(__m256i v, __m256i open) {
    return _mm256_blend_epi32(up<1>(v), open, four ? 0x01 : 0x03);
  }
  /// \brief The segmented scan's step of distance D: lane i of `v` takes lane i - D where no
  /// head lies in (i - D, i] (`window`: the lanes with a head in (i - D, i]; then those with
  /// one in (i - 2D, i]).
  template <std::size_t D>
  PARPRIM_TARGET_AVX2 static __m256i step(__m256i v, unsigned& window) {
    constexpr unsigned full = (1u << (32 / sizeof(U))) - 1;
    const unsigned joins = ~window & (full << D) & full;
    window |= window << D;
    return _mm256_blendv_epi8(v, combine(up<D>(v), v), lanes_of(joins));
  }
};

/// \brief The loop of the file comment over elements [c.i, e) of `in` (their heads at
/// `flags[i]`, or where `keys[i] != keys[i - 1]`; c.i >= 1), while W elements remain and the
/// block has at least W heads left: each segment it closes gets its result at `slot[j]`, `init`
/// combined into it (With_init; `c.open` and the values the loop carries are without it), and
/// (by key) `keys_out[j + 1]` the key of the segment after it. `Ahead`: each vector asks the cache
/// for the element `ahead` further on and its head (read_ahead_element; `n` the input's size).
template <bool With_init, class T, class Op, class Key, bool Ahead = false>
PARPRIM_TARGET_AVX2 fold_cursor<typename segment_fold_lanes<T, Op>::lane> fold_tails_avx2(
    const T* in, const unsigned char* flags, const Key* keys, Key* keys_out, T* slot, std::size_t e,
    T init, fold_cursor<typename segment_fold_lanes<T, Op>::lane> c, std::size_t ahead = 0,
    std::size_t n = 0) {
  using V = segment_fold_vectors<T, Op>;
  using U = typename V::U;
  constexpr std::size_t width = 32 / sizeof(U);
  constexpr bool by_key = !std::is_void_v<Key>;
  const auto& packing = packing_table_v<sizeof(U)>;
  const __m256i inits = V::all(segment_fold_lanes<T, Op>::of(init));
  __m256i open = V::all(c.open);
  std::size_t i = c.i, j = c.j, left = c.heads_left;
  for (; i + width <= e && left >= width; i += width) {
    if constexpr (Ahead && by_key)
      read_ahead_element(in, keys, i, ahead, n);
    else if constexpr (Ahead)
      read_ahead_element(in, flags, i, ahead, n);
    __m256i here{};
    const unsigned heads = heads_bits_avx2<U>(flags, keys, i, here);
    const __m256i v =
        V::scan(V::load(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))), heads, open);
    // the value before each lane: the results of the segments the heads close, packed
    const __m256i pack = _mm256_load_si256(reinterpret_cast<const __m256i*>(packing[heads].data()));
    __m256i ends = _mm256_permutevar8x32_epi32(V::before_each(v, open), pack);
    if constexpr (With_init) ends = V::combine(inits, ends);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + j), V::unload(ends));
    if constexpr (by_key)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys_out + j + 1),
                          _mm256_permutevar8x32_epi32(here, pack));
    open = V::last(v);
    const auto met = static_cast<unsigned>(_mm_popcnt_u32(heads));
    j += met;
    left -= met;
  }
  return {i, first_lane<U>(open), j, left};
}

/// \brief Whether segmented_folds_avx2 takes a segmented scan with `Op` of `Input` into `Out`,
/// heads given by `Flags`: the operators and values of segment_fold_lanes, the input the
/// results' own type in memory, flags of one byte or integer keys of the results' size.
template <class Out, class Input, class Flags, class Op>
constexpr bool segmented_folds_avx2_ok() {
  if constexpr (!PARPRIM_HOST_AVX2 || !segment_fold_lanes<Out, Op>::ok ||
                !std::is_same_v<std::remove_cv_t<typename Input::value_type>, Out> ||
                !requires(const Input& x) { x.data(); })
    return false;
  else
    return byte_flag_span_v<Flags> || integer_key_heads_v<Flags, Out>;
}

/// \brief `out[k]` for k in [b, e) (b >= 1 in the sequence) of the segmented scan with `Op`
/// (segmented_folds_avx2_ok) whose running value before element b is `acc`: inclusive, each
/// element's segment folded through it; exclusive, `init` at a head and the running value
/// before the element elsewhere, the running value starting as `init op x` at a head (so `acc`
/// holds init already). A vector at a time: the segmented scan of the file comment, its
/// lanes stored (exclusive: the lanes before them, `init` at the heads). Streaming stores if
/// `stream` (then a store fence). Returns the running value after element e - 1.
template <bool Exclusive, class Out, class Op, class Flags>
PARPRIM_TARGET_AVX2 Out segmented_folds_avx2(Out* out, std::size_t b, std::size_t e, bool stream,
                                             Out acc, const Out* in, const Flags& flags, Out init,
                                             Op op) {
  using V = segment_fold_vectors<Out, Op>;
  using lanes = segment_fold_lanes<Out, Op>;
  constexpr std::size_t width = 32 / sizeof(Out);
  segmented_fold_element<Exclusive, Out, Op, Flags> one{out, in, flags, init, op, acc};
  // to a 32-byte boundary of the output, so that streaming stores are aligned
  std::size_t k = one.to_boundary(b, e, 32);
  if (k + width <= e) {
    const __m256i inits = V::all(lanes::of(init));
    __m256i open = V::all(lanes::of(one.acc));
    for (; k + width <= e; k += width) {
      const __m256i mask = heads_mask_avx2<typename V::U>(flags, k);
      const auto heads =
          static_cast<unsigned>(V::four ? _mm256_movemask_ps(_mm256_castsi256_ps(mask))
                                        : _mm256_movemask_pd(_mm256_castsi256_pd(mask)));
      __m256i v = V::load(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k)));
      if constexpr (Exclusive) v = _mm256_blendv_epi8(v, V::combine(inits, v), mask);
      v = V::scan(v, heads, open);
      const __m256i result =
          Exclusive ? _mm256_blendv_epi8(V::before_each(v, open), inits, mask) : v;
      open = V::last(v);
      auto* dst = reinterpret_cast<__m256i*>(out + k);
      if (stream)
        _mm256_stream_si256(dst, V::unload(result));
      else
        _mm256_store_si256(dst, V::unload(result));
    }
    one.acc = lanes::value(first_lane<typename V::U>(open));
  }
  for (; k < e; ++k) one(k);
  if (stream) _mm_sfence();
  return one.acc;
}

#endif

}  // namespace parprim::openmp::detail
