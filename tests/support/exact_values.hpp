#pragma once
/// \file
/// \brief Inputs that make exact sums hard, for the host and MPI suites of parprim::exact_plus.
/// Each `mix` is a family of float / double sequences; `Rng` is any generator of 64-bit words.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "special_values.hpp"

namespace parprim_test {

enum class exact_mix {
  uniform,        ///< [-1, 1): the chunk path with one or two slices
  mixed_scale,    ///< [-1, 1) scaled by 2^-k, k in {0, 25, 45, 70, 100}: two, three slices or more
  spread,         ///< [-1, 1) scaled by 2^k, k in -20..20: two float or three double slices a
                  ///< tile, prefixes wider than two doubles (proved one by one)
  wide,           ///< every finite exponent (subnormals included), random sign and significand
  cancellation,   ///< triples (B, x, -B), |B| up to 2^(max - 2): prefixes jump and come back
  subnormal,      ///< subnormals and the smallest normals
  signed_zeros,   ///< +0 and -0, mostly -0: the sign of an exact zero
  special,        ///< NaNs with payloads, both infinities, zeros, numbers (special_values.hpp)
  overflow,       ///< magnitudes in [max / 2, max): sums beyond the largest finite value
  ties,           ///< powers of two around 1 and half its last place: exact halfway cases
  integers,       ///< small integers: every partial sum exact in plain arithmetic too
  zero_prefixes,  ///< -0, -0, -0, then pairs (k, -k): the running sum returns to zero every
                  ///< other element (the sign of a zero prefix, inside the fast path)
};

inline constexpr exact_mix all_exact_mixes[] = {
    exact_mix::uniform,      exact_mix::mixed_scale,  exact_mix::spread,
    exact_mix::wide,         exact_mix::cancellation, exact_mix::subnormal,
    exact_mix::signed_zeros, exact_mix::special,      exact_mix::overflow,
    exact_mix::ties,         exact_mix::integers,     exact_mix::zero_prefixes};

inline const char* exact_mix_name(exact_mix m) {
  switch (m) {
    case exact_mix::uniform:
      return "uniform [-1, 1)";
    case exact_mix::mixed_scale:
      return "mixed scales";
    case exact_mix::spread:
      return "exponents -20..20";
    case exact_mix::wide:
      return "every exponent";
    case exact_mix::cancellation:
      return "cancellation (B, x, -B)";
    case exact_mix::subnormal:
      return "subnormals";
    case exact_mix::signed_zeros:
      return "signed zeros";
    case exact_mix::special:
      return "NaN, inf, zeros";
    case exact_mix::overflow:
      return "near the largest finite";
    case exact_mix::ties:
      return "halfway cases";
    case exact_mix::zero_prefixes:
      return "zero prefixes";
    case exact_mix::integers:
      return "small integers";
  }
  return "?";
}

/// \brief n values of one mix.
template <class F, class Rng>
std::vector<F> exact_input(exact_mix mix, Rng& r, std::size_t n) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr int stored = std::numeric_limits<F>::digits - 1;
  constexpr U max_field = sizeof(F) == 4 ? 254 : 2046;
  constexpr U sign = U{1} << (8 * sizeof(F) - 1);
  const auto word = [&r] { return static_cast<std::uint64_t>(r()); };
  const auto unit = [&] {  // [-1, 1)
    return static_cast<F>(static_cast<double>(word() >> 11) * 0x1.0p-52 - 1.0);
  };
  const auto make = [](U s, U field, U mantissa) {
    return std::bit_cast<F>(
        static_cast<U>(s | (field << stored) | (mantissa & ((U{1} << stored) - 1))));
  };
  std::vector<F> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const U s = (word() & 1) != 0 ? sign : U{0};
    switch (mix) {
      case exact_mix::uniform:
        v[i] = unit();
        break;
      case exact_mix::mixed_scale: {
        constexpr int shifts[] = {0, 0, 0, 25, 45, 70, 100};
        const int k = shifts[word() % 7];
        v[i] = std::ldexp(unit(), -k);
        break;
      }
      case exact_mix::spread:
        v[i] = std::ldexp(unit(), static_cast<int>(word() % 41) - 20);
        break;
      case exact_mix::wide:
        v[i] = make(s, static_cast<U>(word() % (max_field + 1)), static_cast<U>(word()));
        break;
      case exact_mix::cancellation: {
        if (i % 3 == 1) {
          v[i] = unit();
        } else if (i % 3 == 2) {
          v[i] = -v[i - 2];
        } else {
          const U field = max_field - 1 - static_cast<U>(word() % (max_field / 2));
          v[i] = make(s, field, static_cast<U>(word()));
        }
        break;
      }
      case exact_mix::subnormal:
        v[i] = make(s, word() % 8 == 0 ? U{1} : U{0}, static_cast<U>(word()));
        break;
      case exact_mix::signed_zeros:
        v[i] = word() % 32 == 0 ? F(0) : -F(0);
        break;
      case exact_mix::special:
        v[i] = special_value<F>(r);
        break;
      case exact_mix::overflow:
        v[i] = make(s, max_field - (word() % 2), static_cast<U>(word()));
        break;
      case exact_mix::ties: {
        constexpr int p = std::numeric_limits<F>::digits;
        const int exponents[] = {0, 0, -p, -p, -(p + 1), -(2 * p + 3), 1};
        const int e = exponents[word() % 7];
        v[i] = std::ldexp(s != 0 ? F(-1) : F(1), e);
        break;
      }
      case exact_mix::integers:
        v[i] = static_cast<F>(static_cast<int>(word() % 7) - 3);
        break;
      case exact_mix::zero_prefixes:
        if (i < 3)
          v[i] = -F(0);
        else if (i % 2 == 1)
          v[i] = static_cast<F>(1 + static_cast<int>(word() % 8));
        else
          v[i] = -v[i - 1];
        break;
    }
  }
  return v;
}

/// \brief `zeros` copies of -0, then `half` uniform values, then the same values negated in
/// reverse (the last prefix an exact zero): prefixes of -0 only, long enough for the chunk path.
template <class F, class Rng>
std::vector<F> leading_negative_zeros(Rng& r, std::size_t zeros, std::size_t half) {
  std::vector<F> v(zeros, F(-0.0));
  const std::vector<F> values = exact_input<F>(exact_mix::uniform, r, half);
  v.insert(v.end(), values.begin(), values.end());
  for (std::size_t i = half; i-- > 0;) v.push_back(-values[i]);
  return v;
}

}  // namespace parprim_test
