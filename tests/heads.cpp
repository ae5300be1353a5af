/// \file
/// \brief The head views of parprim/detail/heads.hpp, which the host backends read instead of
/// flags: `next` and `count` over runs of equal keys and over one-byte flags, against a plain
/// loop, on random sequences whose runs are short and long (past the 64-byte groups the
/// searches skip at once), from every start, to ends short of and past the next head, and on
/// subviews (whose first element reads the key before it).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <parprim/detail/heads.hpp>

#include "support/harness.hpp"

namespace {

using namespace parprim_test;

const std::size_t view_sizes[] = {0, 1, 2, 15, 16, 17, 63, 64, 65, 129, 1000, 4099};

/// \brief A run length: mostly short, often past a 64-byte group of keys or flags.
std::size_t run_length(rng_t& r) {
  switch (r() % 4) {
    case 0:
      return uniform_int<std::size_t>(r, 1, 3);
    case 1:
      return uniform_int<std::size_t>(r, 4, 40);
    default:
      return uniform_int<std::size_t>(r, 41, 400);
  }
}

/// \brief n keys in runs (run_length); each run's key differs from the one before it. 8-byte
/// integer keys differ in their upper half only; float keys also hold runs mixing -0.0 and 0.0
/// (equal: one run) and NaNs (each its own run).
template <class K>
std::vector<K> run_keys(rng_t& r, std::size_t n) {
  std::vector<K> keys(n);
  int key = 0;
  for (std::size_t i = 0; i < n;) {
    const std::size_t len = run_length(r);
    key = (key + uniform_int<int>(r, 1, 4)) % 5;
    for (std::size_t j = 0; j < len && i < n; ++j, ++i) {
      keys[i] = static_cast<K>(key);
      if constexpr (std::is_integral_v<K> && sizeof(K) == 8)
        keys[i] = static_cast<K>(static_cast<std::uint64_t>(key) << 36);
      if constexpr (std::is_floating_point_v<K>) {
        if (key == 0 && r() % 2 == 0) keys[i] = static_cast<K>(-0.0);
        if (key == 4 && r() % 64 == 0) keys[i] = std::nan("");
      }
    }
  }
  return keys;
}

/// \brief n one-byte flags in runs of zeros (run_length), each run's head any non-zero byte.
std::vector<std::uint8_t> run_flags(rng_t& r, std::size_t n) {
  std::vector<std::uint8_t> flags(n, 0);
  for (std::size_t i = run_length(r) - 1; i < n; i += run_length(r))
    flags[i] = static_cast<std::uint8_t>(uniform_int<int>(r, 1, 255));
  return flags;
}

/// \brief Checks view.next and view.count against `head(i)` (element i of the view is a head)
/// from every start b, to the view's end and to a random end, and over random ranges.
template <class View, class Head>
void expect_like_a_loop(const View& view, Head head, rng_t& r, const char* what) {
  const std::size_t n = view.size();
  for (std::size_t b = 0; b < n; ++b) {
    std::size_t want = b;
    while (want < n && !head(want)) ++want;
    ASSERT_EQ(view.next(b, n), want) << what << ": next(" << b << ", " << n << "), n " << n;
    const std::size_t e = std::min(n, b + uniform_int<std::size_t>(r, 0, 300));
    ASSERT_EQ(view.next(b, e), std::min(want, e)) << what << ": next(" << b << ", " << e << ")";
  }
  for (int t = 0; t < 200 && n > 0; ++t) {
    std::size_t b = uniform_int<std::size_t>(r, 0, n);
    std::size_t e = uniform_int<std::size_t>(r, 0, n);
    if (b > e) std::swap(b, e);
    std::size_t want = 0;
    for (std::size_t i = b; i < e; ++i) want += head(i) ? 1 : 0;
    ASSERT_EQ(view.count(b, e), want) << what << ": count(" << b << ", " << e << ")";
  }
}

template <class K>
class KeyHeads : public ::testing::Test {};
using key_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t,
                                   std::int16_t, float, double>;
TYPED_TEST_SUITE(KeyHeads, key_types);

TYPED_TEST(KeyHeads, NextAndCountAsALoop) {
  using K = TypeParam;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const std::size_t n : view_sizes) {
    rng_t r = make_rng(seed, n);
    const std::vector<K> keys = run_keys<K>(r, n);
    const parprim::detail::key_heads<K> whole{std::span<const K>(keys)};
    const auto head = [&](std::size_t i) { return i == 0 || !(keys[i] == keys[i - 1]); };
    expect_like_a_loop(whole, head, r, "keys");
    // a subview keeps its place: its element 0 is a head only where the sequence has one
    for (const std::size_t offset : {std::size_t{1}, std::size_t{7}, n / 3}) {
      if (offset == 0 || offset >= n) continue;
      const auto sub = whole.subspan(offset);
      expect_like_a_loop(
          sub, [&](std::size_t i) { return head(offset + i); }, r, "keys, subview");
    }
  }
}

TEST(FlagHeads, NextAndCountAsALoop) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const std::size_t n : view_sizes) {
    rng_t r = make_rng(seed, n);
    std::vector<std::uint8_t> flags = run_flags(r, n);
    if (n > 0 && r() % 2 == 0) flags[0] = 0;  // element 0 is a head either way
    const parprim::detail::flag_heads<std::uint8_t> whole{std::span<const std::uint8_t>(flags)};
    const auto head = [&](std::size_t i) { return i == 0 || flags[i] != 0; };
    expect_like_a_loop(whole, head, r, "flags");
    for (const std::size_t offset : {std::size_t{1}, std::size_t{9}, n / 3}) {
      if (offset == 0 || offset >= n) continue;
      expect_like_a_loop(
          whole.subspan(offset), [&](std::size_t i) { return head(offset + i); }, r,
          "flags, subview");
    }
    // the byte search itself, from unaligned starts
    for (std::size_t b = 0; b < n; b += 1 + r() % 5) {
      std::size_t want = b;
      while (want < n && flags[want] == 0) ++want;
      ASSERT_EQ(parprim::detail::first_set_byte(flags.data(), b, n), want) << "from " << b;
    }
  }
}

}  // namespace
