/// \file
/// \brief The ordered keys of parprim/detail/ordered_keys.hpp, on which the GPU backend runs
/// float and double minimum / maximum: each map is a bijection onto the unsigned integers of its
/// width (every sampled bit pattern comes back from its key, and the keys of distinct patterns
/// differ), and the operator's result has the smaller key (operators.hpp): on values sorted by
/// key, the operator on each neighbour pair gives the first, and on random pairs the value of
/// the smaller key is the operator's result, bit for bit. Samples: every pattern near the class
/// boundaries (zeros, subnormals, infinities, the NaNs' first and last patterns of each sign),
/// patterns at a stride over the whole range, and random patterns and special values (NaNs of both
/// signs with random payloads, zeros, numbers).

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/detail/ordered_keys.hpp>
#include <parprim/operators.hpp>

#include "support/harness.hpp"
#include "support/special_values.hpp"

namespace {

using namespace parprim_test;

template <class F>
using bits_t = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;

/// \brief Bit patterns of F: within 300 of every class boundary, a stride over the range, and
/// random ones.
template <class F>
std::vector<bits_t<F>> sample_patterns(rng_t& r) {
  using U = bits_t<F>;
  using key = parprim::detail::ordered_key<false, F>;
  const U sign = key::sign;
  const U inf = key::infinity;
  const U edges[] = {U{0},
                     U{1} << key::mantissa_bits,  // the smallest normal
                     inf - 1,
                     inf,
                     inf + key::nans_of_a_sign,  // the last positive NaN
                     sign,
                     sign | inf,
                     static_cast<U>(~U{0})};
  std::vector<U> out;
  for (const U e : edges)
    for (U d = 0; d < 600; ++d) out.push_back(static_cast<U>(e + d - 300));
  const U stride = static_cast<U>(std::numeric_limits<U>::max() / 250000 | 1);
  for (U u = static_cast<U>(r() % stride);; u += stride) {
    out.push_back(u);
    if (u > std::numeric_limits<U>::max() - stride) break;
  }
  for (int i = 0; i < 200000; ++i) out.push_back(static_cast<U>(r()));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <class F, class Op>
void check_keys(rng_t& r) {
  using key = parprim::detail::ordered_key<std::is_same_v<Op, parprim::maximum>, F>;
  using U = bits_t<F>;
  const std::vector<U> patterns = sample_patterns<F>(r);
  // a bijection: every pattern returns from its key, distinct patterns get distinct keys
  std::vector<std::pair<U, U>> by_key;
  by_key.reserve(patterns.size());
  for (const U u : patterns) {
    const U k = key::of_bits(u);
    ASSERT_EQ(key::bits(k), u) << "pattern " << u << ", key " << k;
    by_key.emplace_back(k, u);
  }
  std::sort(by_key.begin(), by_key.end());
  for (std::size_t i = 1; i < by_key.size(); ++i) {
    ASSERT_NE(by_key[i - 1].first, by_key[i].first)
        << "patterns " << by_key[i - 1].second << " and " << by_key[i].second;
    // the operator gives the smaller key's value
    const F a = std::bit_cast<F>(by_key[i - 1].second);
    const F b = std::bit_cast<F>(by_key[i].second);
    ASSERT_TRUE(exact_equal(Op{}(a, b), a) && exact_equal(Op{}(b, a), a))
        << "keys " << by_key[i - 1].first << " < " << by_key[i].first << ": patterns "
        << by_key[i - 1].second << ", " << by_key[i].second;
  }
  // the NaN with every bit set, the operators' identity, has the largest key
  EXPECT_EQ(key::of(parprim::identity_v<Op, F>()), static_cast<U>(~U{0}));
  // random pairs of special values and patterns: the operator on keys is the operator
  for (int i = 0; i < 200000; ++i) {
    const F a = i % 2 ? special_value<F>(r) : std::bit_cast<F>(static_cast<U>(r()));
    const F b = i % 3 ? special_value<F>(r) : std::bit_cast<F>(static_cast<U>(r()));
    const U ka = key::of(a);
    const U kb = key::of(b);
    const U k = kb < ka ? kb : ka;
    ASSERT_TRUE(exact_equal(key::value(k), Op{}(a, b)))
        << "patterns " << std::bit_cast<U>(a) << ", " << std::bit_cast<U>(b);
  }
}

template <class F, class Op>
void check_keys_on_a_fresh_seed() {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r(seed);
  check_keys<F, Op>(r);
}

TEST(OrderedKeys, FloatMinimum) {
  check_keys_on_a_fresh_seed<float, parprim::minimum>();
}
TEST(OrderedKeys, FloatMaximum) {
  check_keys_on_a_fresh_seed<float, parprim::maximum>();
}
TEST(OrderedKeys, DoubleMinimum) {
  check_keys_on_a_fresh_seed<double, parprim::minimum>();
}
TEST(OrderedKeys, DoubleMaximum) {
  check_keys_on_a_fresh_seed<double, parprim::maximum>();
}

}  // namespace
