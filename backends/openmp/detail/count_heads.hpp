#pragma once
/// \file
/// \brief The number of heads in [b, e) of a head view (parprim/detail/heads.hpp's `count`)
/// with vectors where the processor has them: one-byte flags 32 a step (a byte compare, a mask
/// of their top bits and a count of its bits, AVX2), integer keys of 4 or 8 bytes each against
/// the key before it, 16 or 8 a step (a compare into a mask register and a count of its bits,
/// AVX-512), or 8 or 4 (AVX2). The per-segment calls count every block's heads before they
/// reduce it; the views' own loops take 4 keys or 8 flags a step. The same count.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/detail/cpu_features.hpp>
#include <parprim/detail/heads.hpp>

namespace parprim::openmp::detail {

/// \brief Whether a head view is parprim::detail::flag_heads (one-byte flags).
template <class Heads>
inline constexpr bool is_flag_heads_v = false;
template <class Flag>
inline constexpr bool is_flag_heads_v<parprim::detail::flag_heads<Flag>> = true;

#if PARPRIM_HOST_AVX2
/// \brief The non-zero bytes of `p[b, e)`, 32 a step.
PARPRIM_TARGET_AVX2 inline std::size_t count_set_bytes_avx2(const unsigned char* p, std::size_t b,
                                                            std::size_t e) {
  std::size_t c = 0;
  std::size_t i = b;
  const __m256i zero = _mm256_setzero_si256();
  for (; i + 32 <= e; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    c += 32 - static_cast<std::size_t>(std::popcount(
                  static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, zero)))));
  }
  return c + parprim::detail::count_set_bytes(p, i, e);
}

/// \brief The elements i of [b, e) (b >= 1) whose key differs from key i - 1, keys of 4 or 8
/// bytes: the heads' masks of segment_sums_avx2.hpp, 8 or 4 keys a step, counted.
template <class Key>
PARPRIM_TARGET_AVX2 std::size_t count_key_changes_avx2(const Key* k, std::size_t b, std::size_t e) {
  constexpr std::size_t width = 32 / sizeof(Key);
  std::size_t c = 0;
  std::size_t i = b;
  __m256i here;
  for (; i + width <= e; i += width)
    c += static_cast<std::size_t>(
        std::popcount(heads_bits_avx2<std::make_unsigned_t<Key>, Key>(nullptr, k, i, here)));
  for (; i < e; ++i) c += k[i] != k[i - 1] ? 1 : 0;
  return c;
}

/// \brief count_key_changes_avx2 with the masks of segment_folds_avx512.hpp: 16 or 8 keys a step.
template <class Key>
PARPRIM_TARGET_AVX512 std::size_t count_key_changes_avx512(const Key* k, std::size_t b,
                                                           std::size_t e) {
  constexpr std::size_t width = 64 / sizeof(Key);
  std::size_t c = 0;
  std::size_t i = b;
  __m512i here;
  for (; i + width <= e; i += width)
    c += static_cast<std::size_t>(
        std::popcount(heads_bits_avx512<std::make_unsigned_t<Key>, Key>(nullptr, k, i, here)));
  for (; i < e; ++i) c += k[i] != k[i - 1] ? 1 : 0;
  return c;
}
#endif

/// \brief `heads.count(b, e)`, by the vector loops above where the view holds one-byte flags or
/// integer keys of 4 or 8 bytes and the processor has AVX2 (PARPRIM_SEGMENT_SIMD=portable keeps
/// the view's own loop).
template <class Heads>
std::size_t count_heads(const Heads& heads, std::size_t b, std::size_t e) {
#if PARPRIM_HOST_AVX2
  if (b < e && sums_tails_avx2_usable()) {
    // (element b: a head where the sequence starts, else its flag or key test)
    if constexpr (is_flag_heads_v<Heads>) {
      return (heads[b] ? 1 : 0) + count_set_bytes_avx2(heads.data(), b + 1, e);
    } else if constexpr (requires { heads.data(); }) {
      using Key = std::remove_cv_t<std::remove_pointer_t<decltype(heads.data())>>;
      if constexpr (std::is_integral_v<Key> && !std::is_same_v<Key, bool> &&
                    (sizeof(Key) == 4 || sizeof(Key) == 8))
        return (heads[b] ? 1 : 0) + (segment_folds_avx512_usable()
                                         ? count_key_changes_avx512(heads.data(), b + 1, e)
                                         : count_key_changes_avx2(heads.data(), b + 1, e));
    }
  }
#endif
  return heads.count(b, e);
}

}  // namespace parprim::openmp::detail
