#pragma once
/// \file
/// \brief Where segments start, as views the host backends read in place of a flag array:
/// `flag_heads` over one-byte head flags, `key_heads` over keys (a head wherever a key differs,
/// by `==`, from the one before it, so runs of equal keys are segments without flags being
/// materialised). Element 0 of the sequence a view was made for is always a head.
///
/// Both views share the interface the segmented backends use (as `std::span` of flags does,
/// so they can be passed to the segmented scans): `size()`, `operator[](i)` (true at a head),
/// `subspan(offset, count)` and `first(count)` (which keep the position in the whole sequence,
/// so a subview's element 0 is a head only where the sequence has one), and
/// - `inner(i)`: as `operator[]`, for an element that is not the sequence's first;
/// - `count(b, e)`: the number of heads among elements [b, e);
/// - `next(b, e)`: the first head in [b, e), or e.
/// `flag_heads` counts eight flags per step; both views search for the next head 64 bytes of
/// flags or keys a test where they can (SSE2 on x86-64: the first few one by one, then whole
/// groups with no head skipped with one branch each).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
/// Host code on x86-64 (SSE2 is its baseline): the searches for the next head skip 64 bytes of
/// flags or keys with a few vector instructions and one branch.
#define PARPRIM_HEADS_SSE2 1
#else
#define PARPRIM_HEADS_SSE2 0
#endif

namespace parprim::detail {

/// \brief The plan of a backend that needs nothing but the number of segments (or key runs)
/// between counting them and reducing them (dispatch.hpp: `plan_flags`, `plan`).
struct segment_count {
  std::size_t count = 0;
  std::size_t segments() const noexcept { return count; }
};

#if PARPRIM_HEADS_SSE2
/// \brief `i` advanced over whole groups of 64 bytes of `p[i, e)` that are all zero: the
/// first non-zero byte lies at or after the result, within 64 bytes of it or at e.
inline std::size_t skip_zero_bytes_sse2(const unsigned char* p, std::size_t i, std::size_t e) {
  const __m128i zero = _mm_setzero_si128();
  for (; i + 64 <= e; i += 64) {
    const auto* q = reinterpret_cast<const __m128i*>(p + i);
    const __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(q), _mm_loadu_si128(q + 1)),
                                     _mm_or_si128(_mm_loadu_si128(q + 2), _mm_loadu_si128(q + 3)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, zero)) != 0xffff) break;
  }
  return i;
}

/// \brief `i` (>= 1 into the sequence) advanced over whole groups of 64 bytes of integer keys
/// `keys[i, e)` each equal to the one before it: the first key that differs from its
/// predecessor lies at or after the result, within 64 bytes of it or at e. (Keys are compared
/// in 32-bit lanes: two keys are equal exactly when all their lanes are.)
template <class Key>
std::size_t skip_equal_keys_sse2(const Key* keys, std::size_t i, std::size_t e) {
  static_assert(std::is_integral_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8));
  constexpr std::size_t group = 64 / sizeof(Key);
  constexpr std::size_t step = 16 / sizeof(Key);
  for (; i + group <= e; i += group) {
    __m128i same = _mm_set1_epi32(-1);
    for (std::size_t j = 0; j < group; j += step) {
      const __m128i now = _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys + i + j));
      const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys + i + j - 1));
      same = _mm_and_si128(same, _mm_cmpeq_epi32(now, before));
    }
    if (_mm_movemask_epi8(same) != 0xffff) break;
  }
  return i;
}
#endif

/// \brief The first non-zero byte of `p[b, e)`, or e.
inline std::size_t first_set_byte(const unsigned char* p, std::size_t b, std::size_t e) {
  std::size_t i = b;
#if PARPRIM_HEADS_SSE2
  if constexpr (std::endian::native == std::endian::little) {
    if (i + 8 <= e) {  // a head among the first eight (dense heads) without the vector search
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w != 0) return i + static_cast<std::size_t>(std::countr_zero(w)) / 8;
      i += 8;
    }
  }
  i = skip_zero_bytes_sse2(p, i, e);
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= e; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w != 0) return i + static_cast<std::size_t>(std::countr_zero(w)) / 8;
    }
  }
  for (; i < e; ++i)
    if (p[i] != 0) return i;
  return e;
}

/// \brief The number of non-zero bytes in `p[b, e)`: per 8-byte word, the top bit of each byte
/// of `((w & 0x7f..) + 0x7f..) | w` says whether the byte is non-zero; the bits are summed in
/// 8-bit lanes (at most 255 words at a time), then across the lanes.
inline std::size_t count_set_bytes(const unsigned char* p, std::size_t b, std::size_t e) {
  constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
  constexpr std::uint64_t ones = 0x0101010101010101ull;
  std::size_t count = 0;
  std::size_t i = b;
  while (i + 8 <= e) {
    const std::size_t words = (e - i) / 8 < 255 ? (e - i) / 8 : 255;
    std::uint64_t lanes = 0;
    for (std::size_t k = 0; k < words; ++k, i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      lanes += ((((w & low7) + low7) | w) >> 7) & ones;
    }
    const std::uint64_t pairs =
        (lanes & 0x00ff00ff00ff00ffull) + ((lanes >> 8) & 0x00ff00ff00ff00ffull);
    count += static_cast<std::size_t>((pairs * 0x0001000100010001ull) >> 48);
  }
  for (; i < e; ++i) count += p[i] != 0 ? 1 : 0;
  return count;
}

/// \brief The heads marked by one-byte flags (`flags[i] != 0`), and element 0.
template <class Flag>
class flag_heads {
  static_assert(sizeof(Flag) == 1, "parprim: head flags are one byte each (std::uint8_t)");

 public:
  /// \brief The heads of `flags`, whose element 0 starts the sequence.
  explicit flag_heads(std::span<const Flag> flags) noexcept
      : bytes_(reinterpret_cast<const unsigned char*>(flags.data())), size_(flags.size()) {}

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  bool operator[](std::size_t i) const noexcept { return offset_ + i == 0 || bytes_[i] != 0; }
  bool inner(std::size_t i) const noexcept { return bytes_[i] != 0; }
  /// \brief The flags' bytes: `data()[i]` is element i's flag.
  const unsigned char* data() const noexcept { return bytes_; }
  std::size_t count(std::size_t b, std::size_t e) const noexcept {
    if (b >= e) return 0;
    const bool zero = offset_ + b == 0 && bytes_[0] == 0;  // element 0 without its flag set
    return count_set_bytes(bytes_, b, e) + (zero ? 1 : 0);
  }
  std::size_t next(std::size_t b, std::size_t e) const noexcept {
    if (b < e && offset_ + b == 0) return b;
    return first_set_byte(bytes_, b, e);
  }
  flag_heads subspan(std::size_t offset, std::size_t count = std::dynamic_extent) const noexcept {
    const std::size_t c = count == std::dynamic_extent ? size_ - offset : count;
    return flag_heads(bytes_ + offset, c, offset_ + offset);
  }
  flag_heads first(std::size_t count) const noexcept { return subspan(0, count); }

 private:
  flag_heads(const unsigned char* bytes, std::size_t size, std::size_t offset) noexcept
      : bytes_(bytes), size_(size), offset_(offset) {}
  const unsigned char* bytes_;
  std::size_t size_;
  std::size_t offset_ = 0;  // where bytes_[0] sits in the sequence
};

/// \brief The heads of runs of equal keys: element i > 0 is a head when
/// `!(keys[i] == keys[i - 1])`.
template <class Key>
class key_heads {
 public:
  /// \brief The run heads of `keys`, whose element 0 starts the sequence.
  explicit key_heads(std::span<const Key> keys) noexcept : keys_(keys.data()), size_(keys.size()) {}

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Reads the key before a subview's element 0, which the whole sequence holds.
  bool operator[](std::size_t i) const { return offset_ + i == 0 || inner(i); }
  bool inner(std::size_t i) const { return !(keys_[i] == keys_[i - 1]); }
  /// \brief The keys: `data()[i]` is element i's key.
  const Key* data() const noexcept { return keys_; }
  std::size_t count(std::size_t b, std::size_t e) const {
    if (b >= e) return 0;
    std::size_t c = 0;
    std::size_t i = b;
    if (offset_ + i == 0) c = 1, ++i;
    // the equal neighbours, counted in 32-bit lanes over at most 2^30 elements at a time: the
    // compiler vectorizes it for arithmetic keys without widening each lane's count to 64 bits
    while (i < e) {
      const std::size_t end = e - i > (std::size_t{1} << 30) ? i + (std::size_t{1} << 30) : e;
      std::uint32_t equal = 0;
      for (std::size_t k = i; k < end; ++k) equal += keys_[k] == keys_[k - 1] ? 1u : 0u;
      c += (end - i) - equal;
      i = end;
    }
    return c;
  }
  std::size_t next(std::size_t b, std::size_t e) const {
    std::size_t i = b;
    if (i < e && offset_ + i == 0) return i;
#if PARPRIM_HEADS_SSE2
    if constexpr (std::is_integral_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8)) {
      // a head among the first four (dense heads) without the vector search
      for (const std::size_t near = e - i < 4 ? e : i + 4; i < near; ++i)
        if (keys_[i] != keys_[i - 1]) return i;
      i = skip_equal_keys_sse2(keys_, i, e);
    }
#endif
    // Whole chunks with one test each, then the chunk that holds the head element by element.
    constexpr std::size_t chunk = 16;
    for (; i + chunk <= e; i += chunk) {
      bool differ = false;
      for (std::size_t j = 0; j < chunk; ++j) differ |= !(keys_[i + j] == keys_[i + j - 1]);
      if (differ) break;
    }
    while (i < e && keys_[i] == keys_[i - 1]) ++i;
    return i;
  }
  key_heads subspan(std::size_t offset, std::size_t count = std::dynamic_extent) const noexcept {
    const std::size_t c = count == std::dynamic_extent ? size_ - offset : count;
    return key_heads(keys_ + offset, c, offset_ + offset);
  }
  key_heads first(std::size_t count) const noexcept {
    return subspan(0, count);
  }

 private:
  key_heads(const Key* keys, std::size_t size, std::size_t offset) noexcept
      : keys_(keys), size_(size), offset_(offset) {}
  const Key* keys_;
  std::size_t size_;
  std::size_t offset_ = 0;  // where keys_[0] sits in the sequence
};

/// \brief Whether element i >= 1 starts a segment: the flag itself (a head view's `inner`,
/// which skips the test for the sequence's first element a view's `operator[]` makes), so the
/// segmented loops are the same few instructions wherever the compiler inlines them.
template <class Flags>
bool head_after_first(const Flags& flags, std::size_t i) {
  if constexpr (requires { flags.inner(i); })
    return flags.inner(i);
  else
    return flags[i] != 0;
}

}  // namespace parprim::detail
