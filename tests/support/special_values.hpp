#pragma once
/// \file
/// \brief Values that make minimum / maximum hard, for every suite (host, MPI, CUDA): NaNs of
/// both signs and random payloads, both zeros, both infinities, and ordinary numbers in
/// [-100, 100). Every backend must give the left fold's bits on them (operators.hpp: one total
/// order). `Rng` is any generator of 64-bit words (the suites' own).

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace parprim_test {

/// \brief A NaN of either sign with a random payload (any of the mantissa's bits).
template <class F, class Rng>
F any_nan(Rng& r) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr U exponent = std::bit_cast<U>(std::numeric_limits<F>::infinity());
  constexpr U sign = U{1} << (8 * sizeof(F) - 1);
  constexpr U mantissa = (exponent & (~exponent + 1)) - 1;  // the bits below the exponent's
  return std::bit_cast<F>(
      static_cast<U>(exponent | (static_cast<U>(r()) & (sign | mantissa)) | U{1}));
}

template <class F, class Rng>
F special_value(Rng& r) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  const std::uint64_t word = static_cast<std::uint64_t>(r());
  switch (word % 12) {
    case 0:
      return std::numeric_limits<F>::quiet_NaN();
    case 1:
      return -std::numeric_limits<F>::quiet_NaN();
    case 2:  // a NaN with a random payload and sign
      return any_nan<F>(r);
    case 3:
    case 4:
      return F(0);
    case 5:
    case 6:
      return -F(0);
    case 7:
      return std::numeric_limits<F>::infinity();
    case 8:
      return -std::numeric_limits<F>::infinity();
    default:  // 53 random bits scaled to [-100, 100)
      return static_cast<F>(
          static_cast<double>(static_cast<std::uint64_t>(r()) >> 11) * 0x1.0p-53 * 200.0 - 100.0);
  }
}

}  // namespace parprim_test
