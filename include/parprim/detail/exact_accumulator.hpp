#pragma once
/// \file
/// \brief The superaccumulator behind parprim::exact_plus: a fixed-point integer wide enough to
/// hold the exact sum of up to 2^64 finite floats (or doubles), plus flags for infinities, NaN
/// and the sign of zero. Adding to it and combining two of them are integer operations, hence
/// exact, associative and commutative; `round<G>()` rounds the exact value once, to nearest
/// even. So any grouping of the same operands, on any backend, gives the same bits.
///
/// Layout (`F` = float / double): `limb[0..limb_count)` is a two's complement integer of
/// 64-bit limbs, least significant first, counting units of the smallest subnormal of `F`
/// (2^-149 / 2^-1074). It spans every finite value of `F` (2^128 / 2^1024) times 2^64 operands
/// and a sign: 342 / 2163 bits, so 6 / 34 limbs (56 / 280 bytes with the flags). Carries are
/// propagated when a value is added (a few limbs, rarely more), so the value has exactly one
/// representation and two accumulators holding the same sum compare equal bit for bit.
///
/// The type is trivially copyable and trivially default-constructible (value-initialisation,
/// `exact_accumulator<F>{}`, is the empty sum); every member function is `PARPRIM_HOST_DEVICE`
/// and uses integer arithmetic and bit casts only (no library calls, no floating-point
/// arithmetic), so it runs unchanged in CUDA kernels and travels through a decoupled look-back
/// or between MPI ranks as plain bytes.

#include <cstdint>

#include <parprim/detail/macros.hpp>

namespace parprim::detail {

/// \brief The IEEE 754 binary formats exact_accumulator knows: float (binary32) and double
/// (binary64).
template <class F>
struct ieee_format;
template <>
struct ieee_format<float> {
  using bits_type = std::uint32_t;
  static constexpr int precision = 24;        ///< significand bits, the implicit one included
  static constexpr int exponent_mask = 0xff;  ///< the biased exponent field's all-ones value
  static constexpr int bias = 127;
  static constexpr int max_exponent = 127;   ///< the largest finite value is below 2^128
  static constexpr int min_exponent = -149;  ///< the smallest subnormal is 2^-149
  static constexpr bits_type quiet_nan = 0x7fc00000u;
};
template <>
struct ieee_format<double> {
  using bits_type = std::uint64_t;
  static constexpr int precision = 53;
  static constexpr int exponent_mask = 0x7ff;
  static constexpr int bias = 1023;
  static constexpr int max_exponent = 1023;
  static constexpr int min_exponent = -1074;
  static constexpr bits_type quiet_nan = 0x7ff8000000000000ull;
};

/// \brief Index of the most significant set bit of `x != 0`.
PARPRIM_HOST_DEVICE inline int highest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(x));
#else
  return 63 - __builtin_clzll(x);
#endif
}

/// \brief The exact sum of float or double operands (see the file comment).
template <class F>
struct exact_accumulator {
  using format = ieee_format<F>;
  using bits_type = typename format::bits_type;

  /// Weight of bit 0 of the fixed-point value: the smallest subnormal of `F`.
  static constexpr int lsb_exponent = format::min_exponent;
  /// Bits of the value: every finite `F` times 2^64 operands, and a sign.
  static constexpr int value_bits = (format::max_exponent + 1 - lsb_exponent) + 64 + 1;
  static constexpr int limb_count = (value_bits + 63) / 64;

  /// \name Flags (`state`)
  /// @{
  static constexpr std::uint64_t positive_infinity = 1;  ///< a +inf was added
  static constexpr std::uint64_t negative_infinity = 2;  ///< a -inf was added
  static constexpr std::uint64_t not_a_number = 4;       ///< a NaN was added
  /// An operand other than -0 was added: an exact sum of zero is then +0, else -0 (as IEEE
  /// addition in round-to-nearest gives for any grouping of the same operands).
  static constexpr std::uint64_t not_only_negative_zeros = 8;
  /// @}

  std::uint64_t limb[limb_count];  ///< two's complement, least significant limb first
  std::uint64_t state;             ///< the flags above

  /// \brief Uninitialised (trivial); `exact_accumulator<F>{}` is the empty sum (rounds to -0).
  exact_accumulator() = default;
  /// \brief The sum of one operand, `x`.
  PARPRIM_HOST_DEVICE explicit exact_accumulator(F x) : limb{}, state{0} { add(x); }

  /// \brief Adds one operand, exactly.
  PARPRIM_HOST_DEVICE void add(F x) {
    constexpr int stored = format::precision - 1;
    constexpr int total_bits = 8 * static_cast<int>(sizeof(F));
    const auto u = __builtin_bit_cast(bits_type, x);
    const bool negative = (u >> (total_bits - 1)) != 0;
    const int field =
        static_cast<int>((u >> stored) & static_cast<bits_type>(format::exponent_mask));
    std::uint64_t m = u & ((bits_type{1} << stored) - 1);
    if (u != (bits_type{1} << (total_bits - 1))) state |= not_only_negative_zeros;
    if (field == format::exponent_mask) {
      state |= m != 0 ? not_a_number : (negative ? negative_infinity : positive_infinity);
      return;
    }
    if (field != 0) m |= std::uint64_t{1} << stored;
    if (m != 0) deposit(m, field == 0 ? 0 : field - 1, negative);
  }

  /// \brief Adds a finite double that is a whole multiple of 2^lsb_exponent, exactly (the
  /// host folds add their exact partial sums this way). Leaves the flags alone.
  PARPRIM_HOST_DEVICE void add_exact_double(double d) {
    const auto u = __builtin_bit_cast(std::uint64_t, d);
    const int field = static_cast<int>((u >> 52) & 0x7ff);
    std::uint64_t m = u & ((std::uint64_t{1} << 52) - 1);
    if (field != 0) m |= std::uint64_t{1} << 52;
    if (m == 0) return;
    // d = m * 2^((field ? field : 1) - 1075)
    int pos = (field != 0 ? field : 1) - 1075 - lsb_exponent;
    if (pos < 0) {  // the bits shifted out are zero (d is a multiple of 2^lsb_exponent)
      m = -pos < 64 ? m >> -pos : 0;
      pos = 0;
    }
    deposit(m, pos, (u >> 63) != 0);
  }

  /// \brief Adds another accumulator: the sum of both operand lists.
  PARPRIM_HOST_DEVICE void merge(const exact_accumulator& o) {
    std::uint64_t carry = 0;
    for (int k = 0; k < limb_count; ++k) {
      const std::uint64_t s = limb[k] + o.limb[k];
      const std::uint64_t c1 = s < limb[k] ? 1 : 0;
      limb[k] = s + carry;
      carry = c1 | (limb[k] < s ? 1 : 0);
    }
    state |= o.state;
  }

  /// \brief Whether the finite part of the sum is zero (flags aside).
  PARPRIM_HOST_DEVICE bool holds_zero() const {
    std::uint64_t any = 0;
    for (int k = 0; k < limb_count; ++k) any |= limb[k];
    return any == 0;
  }

  /// \brief Whether an infinity or a NaN was added (the sum then is one of them).
  PARPRIM_HOST_DEVICE bool special() const {
    return (state & (positive_infinity | negative_infinity | not_a_number)) != 0;
  }

  /// \brief The exact sum rounded once, to nearest even, to `G` (float or double):
  /// - NaN if a NaN was added or both infinities were (always the default quiet NaN, whatever
  ///   payload the operands had); otherwise the infinity that was added;
  /// - an exact sum of zero: -0 if every operand was -0 (the empty sum included), else +0;
  /// - otherwise the correctly rounded value; beyond the largest finite `G` (after rounding),
  ///   the infinity of its sign.
  template <class G>
  PARPRIM_HOST_DEVICE G round() const {
    using out = ieee_format<G>;
    using out_bits = typename out::bits_type;
    constexpr int p = out::precision;
    constexpr int total_bits = 8 * static_cast<int>(sizeof(G));
    constexpr out_bits sign_bit = out_bits{1} << (total_bits - 1);
    constexpr out_bits infinity = static_cast<out_bits>(out::exponent_mask) << (p - 1);
    constexpr std::uint64_t both = positive_infinity | negative_infinity;
    if ((state & not_a_number) != 0 || (state & both) == both)
      return __builtin_bit_cast(G, out::quiet_nan);
    if ((state & positive_infinity) != 0) return __builtin_bit_cast(G, infinity);
    if ((state & negative_infinity) != 0) return __builtin_bit_cast(G, infinity | sign_bit);

    // sign and magnitude
    const bool negative = (limb[limb_count - 1] >> 63) != 0;
    std::uint64_t mag[limb_count];
    std::uint64_t borrow = negative ? 1 : 0;  // -x = ~x + 1
    for (int k = 0; k < limb_count; ++k) {
      const std::uint64_t v = negative ? ~limb[k] : limb[k];
      mag[k] = v + borrow;
      borrow = (borrow != 0 && mag[k] == 0) ? 1 : 0;
    }
    const out_bits sign = negative ? sign_bit : out_bits{0};
    int t = limb_count - 1;
    while (t >= 0 && mag[t] == 0) --t;
    if (t < 0)
      return __builtin_bit_cast(G, (state & not_only_negative_zeros) != 0 ? out_bits{0} : sign_bit);

    const int top = 64 * t + highest_bit(mag[t]);  // index of the leading one
    const int e_top = top + lsb_exponent;          // the value is in [2^e_top, 2^(e_top + 1))
    if (e_top > out::max_exponent) return __builtin_bit_cast(G, infinity | sign);
    int e_lsb = e_top - (p - 1);  // weight of the result's last place
    if (e_lsb < out::min_exponent) e_lsb = out::min_exponent;
    const int shift = e_lsb - lsb_exponent;  // index of that place in mag
    std::uint64_t mant;
    if (shift <= 0) {
      mant = mag[0] << -shift;  // exact: the value has fewer than p bits, all in limb 0
    } else {
      const int a = shift >> 6;
      const int off = shift & 63;
      mant = mag[a] >> off;
      if (off != 0 && a + 1 < limb_count) mant |= mag[a + 1] << (64 - off);
      const int h = shift - 1;  // the first bit below the last place
      const bool half = ((mag[h >> 6] >> (h & 63)) & 1) != 0;
      bool sticky = (mag[h >> 6] & ((std::uint64_t{1} << (h & 63)) - 1)) != 0;
      for (int k = 0; k < (h >> 6) && !sticky; ++k) sticky = mag[k] != 0;
      if (half && (sticky || (mant & 1) != 0)) ++mant;
      if ((mant >> p) != 0) {  // rounded up to the next power of two
        mant >>= 1;
        ++e_lsb;
      }
    }
    if (e_lsb + (p - 1) > out::max_exponent) return __builtin_bit_cast(G, infinity | sign);
    out_bits bits;
    if ((mant >> (p - 1)) != 0) {
      const auto field = static_cast<out_bits>(e_lsb + (p - 1) + out::bias);
      bits = (field << (p - 1)) | (static_cast<out_bits>(mant) & ((out_bits{1} << (p - 1)) - 1));
    } else {
      bits = static_cast<out_bits>(mant);  // subnormal (e_lsb == min_exponent)
    }
    return __builtin_bit_cast(G, bits | sign);
  }

 private:
  /// \brief Adds (or subtracts, `negative`) m * 2^pos, m < 2^63, in units of 2^lsb_exponent;
  /// the carry (borrow) runs up as far as it must.
  PARPRIM_HOST_DEVICE void deposit(std::uint64_t m, int pos, bool negative) {
    const int j = pos >> 6;
    const int s = pos & 63;
    const std::uint64_t lo = m << s;
    const std::uint64_t hi = s != 0 ? m >> (64 - s) : 0;
    // Every value passed here is below 2^(max_exponent + 64), far below the top limb.
    if (!negative) {
      const std::uint64_t a = limb[j] + lo;
      std::uint64_t carry = a < lo ? 1 : 0;
      limb[j] = a;
      const std::uint64_t b = limb[j + 1] + hi;
      const std::uint64_t c = b + carry;
      carry = (b < hi ? 1 : 0) | (c < b ? 1 : 0);
      limb[j + 1] = c;
      for (int k = j + 2; carry != 0 && k < limb_count; ++k) carry = ++limb[k] == 0 ? 1 : 0;
    } else {
      const std::uint64_t a = limb[j];
      std::uint64_t borrow = a < lo ? 1 : 0;
      limb[j] = a - lo;
      const std::uint64_t b = limb[j + 1];
      const std::uint64_t c = b - hi;
      const std::uint64_t d = c - borrow;
      borrow = (b < hi ? 1 : 0) | (c < borrow ? 1 : 0);
      limb[j + 1] = d;
      for (int k = j + 2; borrow != 0 && k < limb_count; ++k) borrow = limb[k]-- == 0 ? 1 : 0;
    }
  }
};

}  // namespace parprim::detail
