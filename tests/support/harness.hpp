#pragma once
/// \file
/// \brief What every test body shares: the seed, sizes, head-flag patterns, poisoned buffers
/// with guards, the independent reference folds (written here, not taken from parprim::seq,
/// so the seq backend is tested too) and whole-array comparison.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>  // std::random_device
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "backends.hpp"
#include "buffer.hpp"
#include "special_values.hpp"

namespace parprim_test {

/// \brief xoshiro256** (Blackman, Vigna): fast, and identical on every platform (unlike the
/// std distributions), so a printed seed reproduces anywhere. Seeded through splitmix64.
class rng_t {
 public:
  using result_type = std::uint64_t;
  explicit rng_t(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t s_[4];
};

/// \brief The seed of this test: fresh from std::random_device on every run, or the value of
/// the environment variable PARPRIM_TEST_SEED (to reproduce a failure).
inline std::uint64_t test_seed() {
  if (const char* s = std::getenv("PARPRIM_TEST_SEED"); s != nullptr && *s != '\0')
    return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// \brief The trace line every failure carries.
inline std::string seed_trace(std::uint64_t seed) {
  return "seed " + std::to_string(seed) + " (rerun with PARPRIM_TEST_SEED=" + std::to_string(seed) +
         ")";
}

/// \brief A generator for one (seed, size, salt): each size's data depends only on these, so a
/// failure reproduces from the printed seed whatever ran before it.
inline rng_t make_rng(std::uint64_t seed, std::size_t n, std::uint64_t salt = 0) {
  std::uint64_t x = seed;
  const std::uint64_t a = rng_t::splitmix64(x);
  x ^= static_cast<std::uint64_t>(n) * 0xD1B54A32D192ED03ull;
  const std::uint64_t b = rng_t::splitmix64(x);
  x ^= salt * 0x8CB92BA72F3D8DD7ull;
  return rng_t(a ^ b ^ rng_t::splitmix64(x));
}

/// \brief Uniform integer in [lo, hi] of any integer type (bias <= (hi - lo) / 2^64: nil for
/// the ranges used here).
template <class I>
I uniform_int(rng_t& r, I lo, I hi) {
  using U = std::make_unsigned_t<I>;
  const auto span =
      static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
  const std::uint64_t x = r();
  const std::uint64_t off = span == ~std::uint64_t{0} ? x : x % (span + 1);
  return static_cast<I>(static_cast<U>(static_cast<U>(lo) + static_cast<U>(off)));
}

/// \brief Uniform real in [lo, hi).
template <class F>
F uniform_real(rng_t& r, F lo, F hi) {
  const double u = static_cast<double>(r() >> 11) * 0x1.0p-53;  // [0, 1)
  const F v = static_cast<F>(static_cast<double>(lo) +
                             u * (static_cast<double>(hi) - static_cast<double>(lo)));
  return v < hi ? v : lo;
}

// ---------------------------------------------------------------------------------------------
// Sizes

/// \brief Sizes every case runs: the edges {0..3}, around warp/word/SIMD widths and powers of
/// two (2^k - 1, 2^k, 2^k + 1 up to 2^16), some primes, and 2 * default_grain +- 1 (where the
/// default OpenMP policy switches from sequential to parallel).
inline std::vector<std::size_t> small_sizes() {
  std::vector<std::size_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int k = 3; k <= 16; ++k) {
    const std::size_t p = std::size_t{1} << k;
    for (std::size_t s : {p - 1, p, p + 1})
      if (k <= 11 || s != p) v.push_back(s);
  }
  for (std::size_t prime : {13, 97, 251, 1009, 4099, 10007, 32749, 65521}) v.push_back(prime);
  for (std::size_t s : {32767, 32768, 32769}) v.push_back(s);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// \brief Sizes of the `large` tests: 2^k +- 1 for k = 17..22, 2^22 and a prime.
inline std::vector<std::size_t> large_sizes() {
  std::vector<std::size_t> v;
  for (int k = 17; k <= 22; ++k) {
    const std::size_t p = std::size_t{1} << k;
    v.push_back(p - 1);
    v.push_back(p + 1);
  }
  v.push_back(std::size_t{1} << 22);
  v.push_back(1000003);
  return v;
}

/// \brief Sizes of the per-segment results' `large` tests: about 10^6, odd and prime.
inline std::vector<std::size_t> segment_large_sizes() {
  return {(std::size_t{1} << 17) + 1, (std::size_t{1} << 20) - 1, 1000003};
}

/// \brief Up to this size every policy runs every variant (in place, each flag density). Above
/// it, variants rotate over the policies (policy i of size s runs variant (i + s) mod count),
/// so each variant still meets every policy over the sizes, at a fraction of the cost.
inline constexpr std::size_t full_cross_max = 4097;

/// \brief Whether policy `policy_index` runs variant `variant` of `variants` at size number
/// `size_index` (of value `n`); see full_cross_max.
inline bool runs_variant(std::size_t n, std::size_t size_index, std::size_t policy_index,
                         std::size_t variant, std::size_t variants) {
  return n <= full_cross_max || (policy_index + size_index) % variants == variant;
}

/// \brief At the `large` sizes, a backend with several large_policies() runs half of them on
/// each size, alternating, so each policy still sees half of the large sizes.
inline bool runs_policy(bool large, std::size_t size_index, std::size_t policy_index,
                        std::size_t policies) {
  return !large || policies <= 1 || (policy_index + size_index) % 2 == 0;
}

// ---------------------------------------------------------------------------------------------
// Head flags

enum class density { none, every, third, thousandth, last_only, short_ends, regions };

inline const char* density_name(density d) {
  switch (d) {
    case density::none:
      return "no flags";
    case density::every:
      return "flag on every element";
    case density::third:
      return "random flags, 1/3";
    case density::thousandth:
      return "random flags, 1/1000";
    case density::last_only:
      return "one flag, on the last element";
    case density::short_ends:
      return "first and last segments of one element, random flags 1/64 between";
    case density::regions:
      return "regions of 3000 elements, random flags 1/3 and 1/1000 in turn";
  }
  return "?";
}

/// (`regions`: a backend that picks its loop by the density it meets must switch back and
/// forth.)
inline constexpr density all_densities[] = {density::none,      density::every,
                                            density::third,     density::thousandth,
                                            density::last_only, density::regions};
/// \brief The densities of the per-segment results (segmented_reduce, by key): all of the
/// above, and segments of one element at both ends.
inline constexpr density segment_densities[] = {
    density::none,      density::every,      density::third,  density::thousandth,
    density::last_only, density::short_ends, density::regions};

/// \brief Flags of one density. Set flags are random non-zero bytes (any non-zero value
/// starts a segment); flags[0] is random (element 0 starts a segment whatever it holds)
/// except for `none`, where every byte is 0.
inline std::vector<std::uint8_t> make_flags(rng_t& r, std::size_t n, density d) {
  std::vector<std::uint8_t> f(n, 0);
  const auto nonzero = [&] { return uniform_int<std::uint8_t>(r, 1, 255); };
  for (std::size_t i = 0; i < n; ++i) {
    switch (d) {
      case density::none:
        break;
      case density::every:
        f[i] = nonzero();
        break;
      case density::third:
        if (uniform_int<int>(r, 0, 2) == 0) f[i] = nonzero();
        break;
      case density::thousandth:
        if (uniform_int<int>(r, 0, 999) == 0) f[i] = nonzero();
        break;
      case density::last_only:
        f[i] = (i + 1 == n) ? nonzero() : std::uint8_t{0};
        break;
      case density::short_ends:
        if (i == 1 || i + 1 == n || uniform_int<int>(r, 0, 63) == 0) f[i] = nonzero();
        break;
      case density::regions:
        if (uniform_int<int>(r, 0, (i / 3000) % 2 == 0 ? 2 : 999) == 0) f[i] = nonzero();
        break;
    }
  }
  if (n > 0 && d != density::none && d != density::every && d != density::last_only)
    f[0] = uniform_int<std::uint8_t>(r, 0, 1) ? nonzero() : std::uint8_t{0};
  return f;
}

/// \brief Where the segments `flags` marks begin (element 0 always), then n: the CSR begin
/// offsets of those segments.
inline std::vector<std::size_t> segment_begins(std::span<const std::uint8_t> flags) {
  std::vector<std::size_t> begins;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (i == 0 || flags[i] != 0) begins.push_back(i);
  begins.push_back(flags.size());
  return begins;
}

/// \brief `begins` (CSR offsets, as segment_begins makes) with empty segments added, as offsets
/// of type I: with `empties` > 0, that many repeated offsets at random places, the first and
/// the last among them (empty segments before the first element and after the last).
template <class I>
std::vector<I> with_empty_segments(rng_t& r, const std::vector<std::size_t>& begins,
                                   std::size_t empties) {
  std::vector<std::size_t> all = begins;
  for (std::size_t k = 0; k < empties; ++k) {
    const std::size_t at = k == 0   ? 0
                           : k == 1 ? all.size() - 1
                                    : uniform_int<std::size_t>(r, 0, all.size() - 1);
    all.insert(all.begin() + static_cast<std::ptrdiff_t>(at), all[at]);
  }
  std::vector<I> out(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) out[i] = static_cast<I>(all[i]);
  return out;
}

/// \brief Keys whose runs are the segments `flags` marks: each head after element 0 takes a key
/// other than the one before it, drawn from `distinct` values, so equal keys recur in runs that
/// are not adjacent (which must stay separate runs).
template <class K>
std::vector<K> make_keys(rng_t& r, std::span<const std::uint8_t> flags, int distinct = 5) {
  std::vector<K> keys(flags.size());
  int key = uniform_int<int>(r, 0, distinct - 1);
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (i > 0 && flags[i] != 0) key = (key + uniform_int<int>(r, 1, distinct - 1)) % distinct;
    keys[i] = static_cast<K>(key);
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------
// Poison and guards

/// \brief guard + n poisoned elements + guard.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> all(n + 2 * guard, byte_pattern<T>(poison_byte));
  std::fill(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(guard),
            byte_pattern<T>(guard_byte));
  std::fill(all.end() - static_cast<std::ptrdiff_t>(guard), all.end(), byte_pattern<T>(guard_byte));
  return all;
}

// ---------------------------------------------------------------------------------------------
// Printing and exact comparison

template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    os.precision(std::numeric_limits<T>::max_digits10);
    os << v;
  } else {
    os << v;  // user structs provide operator<<
  }
  return os.str();
}

/// \brief Exact equality: bitwise for floating point (so -0 != +0), == otherwise.
template <class T>
bool exact_equal(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

/// \brief What an output buffer must hold after the call.
template <class Acc>
struct expectation {
  std::vector<Acc> exact;          // guards included; for approximate cases only the guards
                                   // are compared exactly, the body is printed for context
  std::vector<long double> wide;   // approximate: the reference in long double (body only)
  std::vector<long double> bound;  // approximate: |got - wide| must be <= bound (body only)
  bool approximate = false;
};

/// \brief Compares the full buffer (guards included) with the expectation; lists up to 8
/// mismatches.
template <class Acc>
::testing::AssertionResult matches(const expectation<Acc>& want, std::span<const Acc> got) {
  if (got.size() != want.exact.size())
    return ::testing::AssertionFailure()
           << "buffer size " << got.size() << ", expected " << want.exact.size();
  const std::size_t n = got.size() - 2 * guard;
  std::size_t bad = 0;
  std::ostringstream msg;
  for (std::size_t j = 0; j < got.size(); ++j) {
    const bool in_body = j >= guard && j < guard + n;
    bool ok;
    if (in_body && want.approximate) {
      if constexpr (std::is_floating_point_v<Acc>) {
        const long double g = static_cast<long double>(got[j]);
        ok = std::isfinite(g) && std::fabs(g - want.wide[j - guard]) <= want.bound[j - guard];
      } else {
        ok = false;
      }
    } else {
      ok = exact_equal(got[j], want.exact[j]);
    }
    if (!ok) {
      if (++bad <= 8) {
        if (in_body) {
          msg << "\n  out[" << (j - guard) << "] = " << show(got[j]) << ", expected ";
          if (want.approximate)
            msg << show(want.wide[j - guard]) << " +- " << show(want.bound[j - guard]);
          else
            msg << show(want.exact[j]);
        } else {
          msg << "\n  guard element " << (j < guard ? "before" : "after") << " the output ["
              << (j < guard ? j : j - guard - n) << "] was overwritten with " << show(got[j]);
        }
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << n << " elements (+ " << 2 * guard << " guards) differ:" << msg.str();
}

// ---------------------------------------------------------------------------------------------
// Reference folds. Exact cases fold in the accumulator type, in sequence order. Approximate
// cases (floating-point plus) fold in long double and carry an error bound for each element:
//
//   |result - reference| <= 2 * m * eps * (|x_1| + ... + |x_m|)
//
// where m is the number of operands of that element's fold (init included) and eps the
// machine epsilon of the accumulator type. Justification: ANY parenthesisation of a sum of m
// terms has error <= gamma_{m-1} * sum|x_i| with gamma_k = k*u/(1-k*u), u = eps/2 (Higham,
// Accuracy and Stability, 4.2); for k*u <= 1/4 (m <= 2^22 for float) gamma_k <= 1.34*k*u, and
// rounding the result to the accumulator type adds u*sum|x_i|: total <= m * eps * sum|x_i|.
// The factor 2 covers the reference's own rounding where long double is no wider than double
// (x86-64's 64-bit mantissa makes it negligible). The bound holds for every combination tree
// a parallel backend may use, so it never flags a correct backend; bugs in the combination
// logic are caught exactly by the integer cases and the integer-valued float cases, whose
// partial sums are all exact.

template <class Acc>
void set_bound(expectation<Acc>& e, std::size_t i, long double wide, long double abs_sum,
               std::size_t operands) {
  e.wide[i] = wide;
  e.bound[i] = 2.0L * static_cast<long double>(operands) *
               static_cast<long double>(std::numeric_limits<Acc>::epsilon()) * abs_sum;
  e.exact[guard + i] = static_cast<Acc>(wide);
}

template <class Case>
expectation<typename Case::acc_t> make_expectation(std::size_t n) {
  using Acc = typename Case::acc_t;
  expectation<Acc> e;
  e.exact = poisoned<Acc>(n);
  e.approximate = Case::approximate;
  if (Case::approximate) {
    e.wide.assign(n, 0.0L);
    e.bound.assign(n, 0.0L);
  }
  return e;
}

/// \brief Segmented fold state: resets at heads when `flags` is non-null.
template <class Case>
struct reference {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  using Op = typename Case::op_t;

  static Acc reduce(std::span<const In> in, Acc init) {
    Acc acc = init;
    for (const In& x : in) acc = static_cast<Acc>(Op{}(acc, static_cast<Acc>(x)));
    return acc;
  }
  /// long double fold of init and in, and sum |.| (approximate cases)
  static void reduce_wide(std::span<const In> in, Acc init, long double& value,
                          long double& abs_sum) {
    value = static_cast<long double>(init);
    abs_sum = std::fabs(value);
    for (const In& x : in) {
      value += static_cast<long double>(x);
      abs_sum += std::fabs(static_cast<long double>(x));
    }
  }

  /// One result per segment [begins[s], begins[s + 1]): the fold of `*init` (when given) and
  /// the segment's elements, as an output of `size` >= k elements whose others stay poisoned.
  /// Approximate cases: each result within the bound for its operands; the untouched elements
  /// exactly (their bound is 0).
  static expectation<Acc> segments(std::span<const In> in, const std::vector<std::size_t>& begins,
                                   const Acc* init, std::size_t size) {
    const std::size_t k = begins.size() - 1;
    expectation<Acc> e = make_expectation<Case>(size);
    for (std::size_t s = 0; s < k; ++s) {
      const auto part = in.subspan(begins[s], begins[s + 1] - begins[s]);
      if constexpr (Case::approximate) {
        long double value = 0, abs_sum = 0;
        if (init != nullptr) {
          reduce_wide(part, *init, value, abs_sum);
        } else {
          reduce_wide(part.subspan(1), static_cast<Acc>(part[0]), value, abs_sum);
        }
        set_bound(e, s, value, abs_sum, part.size() + (init != nullptr ? 1 : 0));
      } else {
        e.exact[guard + s] = init != nullptr ? reduce(part, *init)
                                             : reduce(part.subspan(1), static_cast<Acc>(part[0]));
      }
    }
    if constexpr (Case::approximate)
      for (std::size_t s = k; s < size; ++s)
        e.wide[s] = static_cast<long double>(e.exact[guard + s]);
    return e;
  }

  /// Inclusive (init absent) or exclusive (init present) scan, segmented when flags given.
  static expectation<Acc> scan(std::span<const In> in, const std::uint8_t* flags, bool exclusive,
                               Acc init) {
    const std::size_t n = in.size();
    expectation<Acc> e = make_expectation<Case>(n);
    if constexpr (Case::approximate) {
      long double acc = 0, abs_sum = 0;
      std::size_t m = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const bool head = i == 0 || (flags != nullptr && flags[i] != 0);
        const long double x = static_cast<long double>(in[i]);
        if (exclusive) {
          if (head) {
            acc = static_cast<long double>(init);
            abs_sum = std::fabs(acc);
            m = 1;
          }
          set_bound(e, i, acc, abs_sum, m);
          acc += x;
          abs_sum += std::fabs(x);
          ++m;
        } else {
          if (head) {
            acc = x;
            abs_sum = std::fabs(x);
            m = 1;
          } else {
            acc += x;
            abs_sum += std::fabs(x);
            ++m;
          }
          set_bound(e, i, acc, abs_sum, m);
        }
      }
    } else {
      Acc acc{};
      for (std::size_t i = 0; i < n; ++i) {
        const bool head = i == 0 || (flags != nullptr && flags[i] != 0);
        if (exclusive) {
          if (head) acc = init;
          e.exact[guard + i] = acc;
          acc = static_cast<Acc>(Op{}(acc, static_cast<Acc>(in[i])));
        } else {
          acc =
              head ? static_cast<Acc>(in[i]) : static_cast<Acc>(Op{}(acc, static_cast<Acc>(in[i])));
          e.exact[guard + i] = acc;
        }
      }
    }
    return e;
  }
};

/// \brief Input of one case: n elements from the case's generator.
template <class Case>
std::vector<typename Case::in_t> make_input(rng_t& r, std::size_t n) {
  std::vector<typename Case::in_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = Case::gen(r, i);
  return v;
}

/// \brief Bitwise equality of two whole arrays (the determinism tests).
template <class T>
bool bitwise_equal(std::span<const T> a, std::span<const T> b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return bitwise_equal(std::span<const T>(a), std::span<const T>(b));
}

/// \brief Whether a buffer's full contents are still guards around `body`, bit for bit (the
/// input and the flags must not change).
template <class T>
::testing::AssertionResult unchanged(std::span<const T> all, std::span<const T> body) {
  const T g = byte_pattern<T>(guard_byte);
  if (all.size() != body.size() + 2 * guard)
    return ::testing::AssertionFailure() << "buffer size changed";
  for (std::size_t j = 0; j < guard; ++j)
    if (std::memcmp(&all[j], &g, sizeof(T)) != 0 ||
        std::memcmp(&all[all.size() - 1 - j], &g, sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "a guard element changed";
  if (!bitwise_equal(all.subspan(guard, body.size()), body)) {
    std::size_t i = 0;
    while (std::memcmp(&all[guard + i], &body[i], sizeof(T)) == 0) ++i;
    return ::testing::AssertionFailure() << "element " << i << " changed";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace parprim_test
