#pragma once
/// \file
/// \brief The AVX2 form of the running-sum loop of sum_block_by_prefix (segments.hpp): integer
/// sums of 4- or 8-byte values, heads read from one-byte flags or from integer keys of the
/// values' size. A vector of W elements (8 of 4 bytes, 4 of 8) at a time:
/// - the heads among them as a W-bit mask (flags: a byte compare; keys: each key against the
///   one before it);
/// - the running sum before each element (the vector's own prefix sum plus the sum before it);
/// - the sums before the heads, packed to the front of the vector by a table of lane
///   permutations (one per mask) and stored at the next free slots: the sum before a head is the
///   running sum at the last element of the segment it closes, which is what each slot holds in
///   the portable loop; by key, the heads' keys likewise, one slot further on (a run's key is
///   the one at its head: integer keys equal by `==` are the same bits);
/// - in blocks denser than three heads in four (`Differences`), where a second pass over the
///   slots would read and write every result again, each packed end less the one before it
///   (the previous vector's last end kept in a register) plus `init`: the finished results.
/// A store writes all W lanes, past the ones it packs; the loop runs only while the block has
/// at least W heads left, so every lane lands in a slot of this block that a later store (or
/// the stitching, for the block's last segment) writes again. No branch depends on the heads.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <parprim/detail/cpu_features.hpp>

namespace parprim::openmp::detail {

/// \brief Whether the AVX2 running-sum loop takes values of type `U` (the unsigned sum type)
/// with heads from keys of type `Key` (`void`: from one-byte flags) written to `KeyOut`.
template <class U, class Key, class KeyOut = Key>
constexpr bool sums_tails_avx2_types() {
  if constexpr (!PARPRIM_HOST_AVX2 || (sizeof(U) != 4 && sizeof(U) != 8))
    return false;
  else if constexpr (std::is_void_v<Key>)
    return true;
  else
    return std::is_integral_v<Key> && !std::is_same_v<Key, bool> && sizeof(Key) == sizeof(U) &&
           std::is_same_v<std::remove_cv_t<Key>, std::remove_cv_t<KeyOut>>;
}
template <class U, class Key, class KeyOut = Key>
inline constexpr bool sums_tails_avx2_v = sums_tails_avx2_types<U, Key, KeyOut>();

/// \brief Whether the AVX2 loop runs: `avx2_supported()`, unless the environment variable
/// `PARPRIM_SEGMENT_SIMD` is `portable` (read once; the test suite runs the OpenMP per-segment
/// sums both ways). Both forms give the same results.
inline bool sums_tails_avx2_usable() {
  static const bool usable = [] {
    const char* choice = std::getenv("PARPRIM_SEGMENT_SIMD");
    return parprim::detail::avx2_supported() &&
           !(choice != nullptr && std::string_view(choice) == "portable");
  }();
  return usable;
}

/// \brief For each mask of W heads, the 32-bit lane indices that pack the masked elements of
/// `Size` bytes to the front of a 256-bit vector (the rest: 0).
template <std::size_t Size>
constexpr auto packing_table() {
  constexpr std::size_t width = 32 / Size;  // elements per vector
  constexpr std::size_t words = Size / 4;   // 32-bit lanes per element
  std::array<std::array<std::uint32_t, 8>, std::size_t{1} << width> table{};
  for (std::size_t mask = 0; mask < table.size(); ++mask) {
    std::size_t k = 0;
    for (std::size_t lane = 0; lane < width; ++lane)
      if ((mask >> lane) & 1) {
        for (std::size_t w = 0; w < words; ++w)
          table[mask][k * words + w] = static_cast<std::uint32_t>(lane * words + w);
        ++k;
      }
  }
  return table;
}

template <std::size_t Size>
alignas(32) inline constexpr auto packing_table_v = packing_table<Size>();

/// \brief Where the AVX2 loop left off: the next element, the running sum through the one
/// before it, the running sum at the end of the last segment it closed (0 before any), the
/// current segment's slot and the heads not yet met.
template <class U>
struct tails_cursor {
  std::size_t i;
  U running;
  U closed;
  std::size_t j;
  std::size_t heads_left;
};

#if PARPRIM_HOST_AVX2

/// \brief `x` in every lane of a vector of `U`.
template <class U>
PARPRIM_TARGET_AVX2 __m256i broadcast(U x) {
  if constexpr (sizeof(U) == 4)
    return _mm256_set1_epi32(static_cast<int>(x));
  else
    return _mm256_set1_epi64x(static_cast<long long>(x));
}

/// \brief Lane-wise a + b and a - b on lanes of `U`.
template <class U>
PARPRIM_TARGET_AVX2 __m256i add(__m256i a, __m256i b) {
  return sizeof(U) == 4 ? _mm256_add_epi32(a, b) : _mm256_add_epi64(a, b);
}
template <class U>
PARPRIM_TARGET_AVX2 __m256i sub(__m256i a, __m256i b) {
  return sizeof(U) == 4 ? _mm256_sub_epi32(a, b) : _mm256_sub_epi64(a, b);
}

/// \brief The heads of the W elements of `U` from `i` (i >= 1) as a W-bit mask: `flags[k] != 0`,
/// or (`Key` not void) `keys[k] != keys[k - 1]`, the keys (of U's size) loaded into `here`.
template <class U, class Key>
PARPRIM_TARGET_AVX2 unsigned heads_bits_avx2(const unsigned char* flags, const Key* keys,
                                             std::size_t i, __m256i& here) {
  constexpr std::size_t width = 32 / sizeof(U);
  constexpr unsigned full = (1u << width) - 1;
  if constexpr (!std::is_void_v<Key>) {
    here = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i));
    const __m256i before = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i - 1));
    if constexpr (sizeof(U) == 4)
      return ~static_cast<unsigned>(
                 _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(here, before)))) &
             full;
    else
      return ~static_cast<unsigned>(
                 _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(here, before)))) &
             full;
  } else {
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, flags + i, width);
    const __m128i zero =
        _mm_cmpeq_epi8(_mm_cvtsi64_si128(static_cast<long long>(bytes)), _mm_setzero_si128());
    return ~static_cast<unsigned>(_mm_movemask_epi8(zero)) & full;
  }
}

/// \brief The first lane of a vector of `U`.
template <class U>
PARPRIM_TARGET_AVX2 U first_lane(__m256i v) {
  if constexpr (sizeof(U) == 4)
    return static_cast<U>(_mm256_cvtsi256_si32(v));
  else
    return static_cast<U>(_mm256_extract_epi64(v, 0));
}

/// \brief The loop of the file comment over elements [c.i, e) of `in` (their heads at
/// `flags[i]`, or where `keys[i] != keys[i - 1]`; c.i >= 1), while W elements remain and the
/// block has at least W heads left: each segment it closes gets its result,
/// `slot[j] = base + (running sum at its end - running sum at the previous one's)`, and (by
/// key) `keys_out[j + 1]` the key of the segment after it. `ahead` > 0: each vector also asks
/// the cache for the element `ahead` further on and its head (clamped to the input's last
/// element, `n - 1`), which a later block of the same thread reads (segments_in_rounds.hpp).
template <bool Differences, class U, class Key>
PARPRIM_TARGET_AVX2 tails_cursor<U> sum_tails_avx2(const U* in, const unsigned char* flags,
                                                   const Key* keys, Key* keys_out, U* slot,
                                                   std::size_t e, U base, tails_cursor<U> c,
                                                   std::size_t ahead, std::size_t n) {
  constexpr std::size_t width = 32 / sizeof(U);
  constexpr bool by_key = !std::is_void_v<Key>;
  constexpr bool four = sizeof(U) == 4;
  const auto& table = packing_table_v<sizeof(U)>;
  // lane k of a packed vector moved to lane k + 1 (its 32-bit lanes), the first lane kept
  const __m256i one_up =
      four ? _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6) : _mm256_setr_epi32(0, 1, 0, 1, 2, 3, 4, 5);
  const __m256i bases = broadcast<U>(base);
  __m256i running = broadcast<U>(c.running);
  __m256i closed = broadcast<U>(c.closed);
  std::size_t i = c.i, j = c.j, left = c.heads_left;
  for (; i + width <= e && left >= width; i += width) {
    if (ahead > 0) {  // (a test the compiler hoists out of the loop)
      const std::size_t at = i + ahead < n ? i + ahead : n - 1;
      __builtin_prefetch(in + at);
      if constexpr (by_key)
        __builtin_prefetch(keys + at);
      else
        __builtin_prefetch(flags + at);
    }
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    __m256i here{};
    const unsigned heads = heads_bits_avx2<U>(flags, keys, i, here);
    __m256i inclusive, last;
    if constexpr (four) {
      __m256i x = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
      x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
      const __m256i low_total = _mm256_shuffle_epi32(x, 0xff);  // each half's last, broadcast
      inclusive = _mm256_add_epi32(x, _mm256_permute2x128_si256(low_total, low_total, 0x08));
      last = _mm256_permutevar8x32_epi32(inclusive, _mm256_set1_epi32(7));
    } else {
      const __m256i x = _mm256_add_epi64(v, _mm256_slli_si256(v, 8));
      const __m256i low_total = _mm256_permute4x64_epi64(x, 0x55);
      inclusive = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_setzero_si256(), low_total, 0xf0));
      last = _mm256_permute4x64_epi64(inclusive, 0xff);
    }
    const __m256i before_each = add<U>(running, sub<U>(inclusive, v));
    running = add<U>(running, last);
    // the running sums at the ends of the segments the heads close, in order, and each one's
    // predecessor (the first: the last segment closed before this vector)
    const __m256i pack = _mm256_load_si256(reinterpret_cast<const __m256i*>(table[heads].data()));
    const __m256i ends = _mm256_permutevar8x32_epi32(before_each, pack);
    if constexpr (Differences) {
      const __m256i starts =
          _mm256_blend_epi32(_mm256_permutevar8x32_epi32(ends, one_up), closed, four ? 0x01 : 0x03);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + j),
                          add<U>(bases, sub<U>(ends, starts)));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + j), ends);
    }
    if constexpr (by_key)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys_out + j + 1),
                          _mm256_permutevar8x32_epi32(here, pack));
    const auto met = static_cast<unsigned>(_mm_popcnt_u32(heads));
    if constexpr (Differences) {
      // the last end packed, or the one before when no head was met
      const __m256i last_end =
          four ? _mm256_permutevar8x32_epi32(ends, _mm256_set1_epi32(static_cast<int>(met) - 1))
               : _mm256_permutevar8x32_epi32(
                     ends, _mm256_setr_epi32(2 * static_cast<int>(met) - 2,
                                             2 * static_cast<int>(met) - 1, 0, 0, 0, 0, 0, 0));
      const __m256i none = _mm256_set1_epi32(-static_cast<int>(met == 0));  // (no branch)
      closed = _mm256_blendv_epi8(last_end, closed, none);
    }
    j += met;
    left -= met;
  }
  return {i, first_lane<U>(running), first_lane<U>(closed), j, left};
}

#endif

}  // namespace parprim::openmp::detail
