#pragma once
/// \file
/// \brief The checks of CSR begin offsets (segmented_reduce with parprim::offsets), shared by
/// the backends that run them: k + 1 offsets, the first 0, the last n, none smaller than the
/// one before it. A backend finds the first offending index (in parallel where it can) and
/// raises through these, so every backend words the error alike.

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <parprim/detail/cpu_features.hpp>
#include <parprim/error.hpp>

namespace parprim::detail {

#if PARPRIM_HOST_AVX2
/// \brief Whether `o[i] < o[i - 1]` for some i in [b, e) (b >= 1), integers of 4 or 8 bytes: a
/// vector compare of each W offsets against the W before them, no branch until the end.
template <class I>
PARPRIM_TARGET_AVX2 bool decreases_avx2(const I* o, std::size_t b, std::size_t e) {
  constexpr bool four = sizeof(I) == 4;
  constexpr std::size_t width = 32 / sizeof(I);
  // unsigned offsets compared as signed with the sign bit flipped
  const __m256i flip = std::is_signed_v<I>
                           ? _mm256_setzero_si256()
                           : (four ? _mm256_set1_epi32(static_cast<int>(0x80000000u))
                                   : _mm256_set1_epi64x(static_cast<long long>(1ull << 63)));
  __m256i down = _mm256_setzero_si256();
  std::size_t i = b;
  for (; i + width <= e; i += width) {
    const __m256i here =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(o + i)), flip);
    const __m256i before =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(o + i - 1)), flip);
    down = _mm256_or_si256(
        down, four ? _mm256_cmpgt_epi32(before, here) : _mm256_cmpgt_epi64(before, here));
  }
  bool any = _mm256_testz_si256(down, down) == 0;
  for (; i < e; ++i) any |= o[i] < o[i - 1];
  return any;
}
#endif

/// \brief The first i in [b, e) (b >= 1) with `offsets[i] < offsets[i - 1]`, or e. Where the
/// processor has AVX2 and the offsets are integers of 4 or 8 bytes, chunks without a decrease
/// are passed over by decreases_avx2 (the loop below takes about a cycle an offset: 128 MiB of
/// 8-byte offsets in 15.0-17.6 ms on one thread of the 2-core development machine, against
/// 11.8-13.8 so, where the reads bound it).
template <class I>
std::size_t first_decrease(std::span<const I> offsets, std::size_t b, std::size_t e) {
#if PARPRIM_HOST_AVX2
  if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                (sizeof(I) == 4 || sizeof(I) == 8)) {
    if (avx2_supported()) {
      constexpr std::size_t chunk = 4096;
      for (; b < e; b = std::min(e, b + chunk))
        if (decreases_avx2(offsets.data(), b, std::min(e, b + chunk))) break;
    }
  }
#endif
  for (std::size_t i = b; i < e; ++i)
    if (offsets[i] < offsets[i - 1]) return i;
  return e;
}

/// \brief Raises parprim::invalid_argument: `offsets[i] < offsets[i - 1]`.
template <class I>
[[noreturn]] void throw_offsets_decrease(const char* fn, std::size_t i, const I& before,
                                         const I& at) {
  throw invalid_argument(std::string("parprim::") + fn +
                         ": offsets must not decrease, but offsets[" + std::to_string(i) +
                         "] = " + std::to_string(at) + " < offsets[" + std::to_string(i - 1) +
                         "] = " + std::to_string(before));
}

/// \brief Raises parprim::invalid_argument unless the first offset, `front`, is 0 and the last,
/// `back` (offsets[k]), is `n`.
template <class I>
void check_offset_ends(const I& front, const I& back, std::size_t k, std::size_t n,
                       const char* fn) {
  if (!std::cmp_equal(front, 0))
    throw invalid_argument(std::string("parprim::") + fn + ": offsets[0] must be 0, got " +
                           std::to_string(front));
  if (!std::cmp_equal(back, n))
    throw invalid_argument(std::string("parprim::") + fn + ": the last offset (offsets[" +
                           std::to_string(k) + "] = " + std::to_string(back) +
                           ") must be the number of elements, " + std::to_string(n));
}

/// \brief As above, for k + 1 offsets in host memory.
template <class I>
void check_offset_ends(std::span<const I> offsets, std::size_t n, const char* fn) {
  check_offset_ends(offsets.front(), offsets.back(), offsets.size() - 1, n, fn);
}

}  // namespace parprim::detail
