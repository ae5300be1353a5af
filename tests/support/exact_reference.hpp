#pragma once
/// \file
/// \brief An exact reference for parprim::exact_plus, written independently of the library's
/// superaccumulator: the positive and the negative operands are summed separately as unsigned
/// big integers of 32-bit digits (units of 2^-1200, below every double's last place), each
/// operand split with std::frexp; the difference is rounded by handing its top 64 bits, with
/// every lower bit folded into the last one (sticky), to long double (exact: 64-bit
/// significand, 15-bit exponent) and converting that to F, which the hardware rounds once, to
/// nearest even. Special values follow docs/reproducible.md: NaN (the default quiet NaN) for a
/// NaN or both infinities, else the infinity present; an exact zero is -0 only when every
/// operand is -0. Shared by the host suite (tests/exact_plus.cpp) and the MPI suite.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace parprim_test {

template <class F>
class exact_reference {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);

 public:
  static constexpr int unit = -1200;         // weight of bit 0: frexp's 53-bit integer
                                             // significands of subnormals end above it
  static constexpr std::size_t digits = 80;  // 2560 bits: 2^1024 * 2^64 / 2^-1200 fits

  exact_reference() : pos_(digits, 0), neg_(digits, 0) {}

  /// \brief Adds one operand.
  void add(F x) {
    if (std::isnan(x)) {
      nan_ = true;
    } else if (std::isinf(x)) {
      (x > 0 ? pos_inf_ : neg_inf_) = true;
    } else if (x != 0) {
      int e = 0;
      const long double m = std::frexp(static_cast<long double>(x), &e);  // x = m 2^e
      constexpr int p = std::numeric_limits<F>::digits;
      const auto mant = static_cast<std::uint64_t>(std::fabs(std::ldexp(m, p)));  // < 2^p
      add_magnitude(x > 0 ? pos_ : neg_, mant, e - p - unit);
    }
    if (!(x == 0 && std::signbit(x))) not_only_negative_zeros_ = true;
  }

  /// \brief The exact sum rounded once to F.
  F rounded() const {
    if (nan_ || (pos_inf_ && neg_inf_)) return std::numeric_limits<F>::quiet_NaN();
    if (pos_inf_) return std::numeric_limits<F>::infinity();
    if (neg_inf_) return -std::numeric_limits<F>::infinity();
    const int c = compare(pos_, neg_);
    if (c == 0) return not_only_negative_zeros_ ? F(0) : -F(0);
    std::vector<std::uint32_t>& d = scratch_;
    d = c > 0 ? pos_ : neg_;
    subtract(d, c > 0 ? neg_ : pos_);
    // the top 64 bits, and a sticky bit for everything below them
    std::size_t top_digit = digits - 1;
    while (d[top_digit] == 0) --top_digit;
    const int top_bit = static_cast<int>(top_digit) * 32 + 31 - std::countl_zero(d[top_digit]);
    const int low = top_bit - 63;  // index of the last of the 64 bits kept (>= 0: see unit)
    const auto low_digit = static_cast<std::size_t>(low / 32);
    const int sh = low % 32;
    const auto digit = [&](std::size_t k) -> std::uint64_t { return k < digits ? d[k] : 0; };
    std::uint64_t top64 = (digit(low_digit) >> sh) | (digit(low_digit + 1) << (32 - sh));
    if (sh != 0) top64 |= digit(low_digit + 2) << (64 - sh);
    bool sticky = (d[low_digit] & ((std::uint32_t{1} << (low % 32)) - 1)) != 0;
    for (std::size_t k = 0; k < low_digit && !sticky; ++k) sticky = d[k] != 0;
    if (sticky) top64 |= 1;
    const long double v = std::ldexp(static_cast<long double>(top64), low + unit);
    const F r = static_cast<F>(v);
    return c > 0 ? r : -r;
  }

  /// \brief The bits of `rounded()`.
  auto bits() const {
    const F r = rounded();
    if constexpr (sizeof(F) == 4)
      return std::bit_cast<std::uint32_t>(r);
    else
      return std::bit_cast<std::uint64_t>(r);
  }

 private:
  static void add_magnitude(std::vector<std::uint32_t>& a, std::uint64_t mant, int shift) {
    // mant * 2^shift (mant < 2^53, shift >= 0): 32-bit pieces of mant at digit shift / 32
    std::size_t k = static_cast<std::size_t>(shift / 32);
    const int s = shift % 32;
    const std::uint64_t piece[3] = {(mant << s) & 0xffffffffu,
                                    (s == 0 ? mant >> 32 : mant >> (32 - s)) & 0xffffffffu,
                                    s == 0 ? 0 : mant >> (64 - s)};
    std::uint64_t carry = 0;
    for (int j = 0; j < 3 || carry != 0; ++j, ++k) {
      const std::uint64_t sum = a[k] + (j < 3 ? piece[j] : 0) + carry;
      a[k] = static_cast<std::uint32_t>(sum);
      carry = sum >> 32;
    }
  }
  static int compare(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    for (std::size_t k = digits; k-- > 0;)
      if (a[k] != b[k]) return a[k] > b[k] ? 1 : -1;
    return 0;
  }
  static void subtract(std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    std::int64_t borrow = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      std::int64_t v = static_cast<std::int64_t>(a[k]) - b[k] - borrow;
      borrow = v < 0 ? 1 : 0;
      if (v < 0) v += std::int64_t{1} << 32;
      a[k] = static_cast<std::uint32_t>(v);
    }
  }

  std::vector<std::uint32_t> pos_, neg_;
  mutable std::vector<std::uint32_t> scratch_;
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false, not_only_negative_zeros_ = false;
};

/// \brief The reference results of every primitive on `in` (each element converted to F).
template <class F>
struct exact_expected {
  /// the exact sum of init and in[0..n), rounded
  template <class In>
  static F reduce(const std::vector<In>& in, F init) {
    exact_reference<F> r;
    r.add(init);
    for (const In& x : in) r.add(static_cast<F>(x));
    return r.rounded();
  }
  /// one result per segment (element 0 and every element with a non-zero flag start one): the
  /// exact sum of `*init` (when given) and the segment's elements, rounded
  template <class In>
  static std::vector<F> segments(const std::vector<In>& in, const std::vector<std::uint8_t>& flags,
                                 const F* init) {
    std::vector<F> out;
    exact_reference<F> r;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (i == 0 || flags[i] != 0) {
        if (i > 0) out.push_back(r.rounded());
        r = exact_reference<F>();
        if (init != nullptr) r.add(*init);
      }
      r.add(static_cast<F>(in[i]));
    }
    if (!in.empty()) out.push_back(r.rounded());
    return out;
  }
  /// inclusive (no init) or exclusive (init) scan, restarting at non-zero flags if given
  template <class In>
  static std::vector<F> scan(const std::vector<In>& in, const std::uint8_t* flags, bool exclusive,
                             F init) {
    std::vector<F> out(in.size());
    exact_reference<F> r;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (i == 0 || (flags != nullptr && flags[i] != 0)) {
        r = exact_reference<F>();
        if (exclusive) r.add(init);
      }
      if (exclusive) out[i] = r.rounded();
      r.add(static_cast<F>(in[i]));
      if (!exclusive) out[i] = r.rounded();
    }
    return out;
  }
};

/// \brief Whether `got` equals `want` bit for bit; else how many differ and the first.
template <class F>
::testing::AssertionResult same_bits(const std::vector<F>& got, const std::vector<F>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(F)) != 0 && bad++ == 0) first = i;
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " elements differ, first at " << first << ": "
         << got[first] << " instead of " << want[first];
}

}  // namespace parprim_test
