/// \file
/// \brief parprim::reduce_by_key, parprim::inclusive_scan_by_key and
/// parprim::exclusive_scan_by_key on every backend of support/backends.hpp and every policy it
/// lists: the per-segment cases of support/cases.hpp, every size of harness.hpp, keys whose
/// runs are the segments of every density of harness.hpp (equal keys recur in runs that are not
/// adjacent), int32 keys and 16-bit keys; outputs poisoned and guarded, exactly as large as the
/// number of runs or larger, compared whole with the reference of harness.hpp; the scans also
/// in place. Keys compared with ==: float keys with signed zeros and NaNs.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/harness.hpp"
#include "support/scan_check.hpp"
#include "support/sweep.hpp"

namespace parprim_test {
namespace {

/// reduce_by_key with outputs of `room` >= k elements.
template <class B, class Case, class Key, class Policy>
void check_reduce_by_key(const named_policy<Policy>& p,
                         std::span<const typename Case::in_t> host_in,
                         const std::vector<Key>& host_keys, const std::vector<std::size_t>& begins,
                         std::size_t room) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  SCOPED_TRACE("reduce_by_key, outputs of " + std::to_string(room) + " elements");
  const std::size_t k = begins.size() - 1;
  const auto want = reference<Case>::segments(host_in, begins, nullptr, room);
  expectation<Key> want_keys;
  want_keys.exact = poisoned<Key>(room);
  for (std::size_t s = 0; s < k; ++s) want_keys.exact[guard + s] = host_keys[begins[s]];
  typename B::template buffer<In> in(host_in);
  typename B::template buffer<Key> keys(host_keys);
  typename B::template buffer<Key> keys_out(room, byte_pattern<Key>(poison_byte));
  typename B::template buffer<Acc> out(room, byte_pattern<Acc>(poison_byte));
  const std::size_t got = parprim::reduce_by_key(p.policy, std::span<const Key>(keys.range()),
                                                 std::span<const In>(in.range()), keys_out.range(),
                                                 out.range(), typename Case::op_t{});
  ASSERT_EQ(got, k) << "number of runs";
  ASSERT_TRUE(matches(want_keys, keys_out.read_all())) << "keys_out";
  ASSERT_TRUE(matches(want, out.read_all())) << "out";
  ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
  ASSERT_TRUE(unchanged(keys.read_all(), std::span<const Key>(host_keys))) << "the keys changed";
}

/// A scan by key, out of place or (when the types allow) in place.
template <class B, class Case, class Key, class Policy>
void check_scan_by_key(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                       const std::vector<Key>& host_keys, bool exclusive, typename Case::acc_t init,
                       const expectation<typename Case::acc_t>& want, bool in_place) {
  SCOPED_TRACE(exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key");
  const typename Case::op_t op{};
  typename B::template buffer<Key> keys(host_keys);
  const std::span<const Key> k(keys.range());
  check_scan_call<B, Case>(host_in, want, in_place, [&](auto in, auto out) {
    if (exclusive)
      parprim::exclusive_scan_by_key(p.policy, k, in, out, init, op);
    else
      parprim::inclusive_scan_by_key(p.policy, k, in, out, op);
  });
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(unchanged(keys.read_all(), std::span<const Key>(host_keys))) << "the keys changed";
}

template <class B, class Case>
void run_by_key(const std::vector<std::size_t>& sizes, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    for_each_density(segment_densities, "key runs: ", [&](density d, std::size_t di) {
      rng_t fr = make_rng(s.seed, s.n, 1 + di);
      const auto flags = make_flags(fr, s.n, d);
      const auto begins = segment_begins(flags);
      const auto keys32 = make_keys<std::int32_t>(fr, flags);
      const auto keys16 = make_keys<std::uint16_t>(fr, flags, 3);
      // keys of the results' size where it is 8 bytes (the OpenMP sums' AVX2 loop compares
      // them whole), differing only in their upper halves
      using Acc = typename Case::acc_t;
      using WideKey = std::conditional_t<sizeof(Acc) == 8, std::int64_t, std::int32_t>;
      std::vector<WideKey> wide_keys(keys32.size());
      for (std::size_t i = 0; i < keys32.size(); ++i)
        wide_keys[i] = sizeof(WideKey) == 8
                           ? static_cast<WideKey>(static_cast<std::uint64_t>(keys32[i]) << 40 | 5u)
                           : static_cast<WideKey>(keys32[i]);
      const auto inclusive = reference<Case>::scan(s.input, flags.data(), false, s.init);
      const auto exclusive = reference<Case>::scan(s.input, flags.data(), true, s.init);
      for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
        if (!runs_variant(s.n, s.index, i, di, std::size(segment_densities))) return;
        const bool variant = runs_variant(s.n, s.index + di, i, 0, 2);
        const std::size_t k = begins.size() - 1;
        // outputs of k, k + 2 or n + 1 (room for any number of runs: backends may then count
        // while they reduce)
        const bool room_n = (s.index + di + i) % 2 == 0;
        if (variant)
          check_reduce_by_key<B, Case>(p, s.input, wide_keys, begins, room_n ? s.n + 1 : k);
        else
          check_reduce_by_key<B, Case>(p, s.input, keys16, begins, room_n ? k + 2 : s.n + 1);
        if (::testing::Test::HasFatalFailure()) return;
        if (variant)  // (keys of the results' size: the OpenMP sums' AVX2 scan reads them)
          check_scan_by_key<B, Case>(p, s.input, wide_keys, false, s.init, inclusive, false);
        else
          check_scan_by_key<B, Case>(p, s.input, keys32, false, s.init, inclusive, true);
        if (::testing::Test::HasFatalFailure()) return;
        if (variant)
          check_scan_by_key<B, Case>(p, s.input, keys16, true, s.init, exclusive, true);
        else  // (keys of the results' size: the OpenMP sums' AVX2 scan reads them)
          check_scan_by_key<B, Case>(p, s.input, wide_keys, true, s.init, exclusive, false);
      });
    });
  });
}

template <class B>
class ByKey : public ::testing::Test {};
TYPED_TEST_SUITE(ByKey, backends);
/// Runs long where a block starts and short after (a backend that guesses a block's density
/// from its start must still count right), 4- and 8-byte keys, outputs of n elements and of
/// exactly k, int64 sums.
template <class B, class Key>
void run_long_then_short_runs() {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const std::size_t n : {std::size_t{9000}, std::size_t{40000}, std::size_t{100003}}) {
    rng_t r = make_rng(seed, n, sizeof(Key));
    std::vector<std::int64_t> x(n);
    for (auto& v : x) v = uniform_int<std::int64_t>(r, -1000, 1000);
    for (const std::size_t from : {n / 4, n / 2 + 1}) {
      std::vector<Key> keys(n);
      Key key = 0;
      Key step = Key{1} << 8;
      if constexpr (sizeof(Key) == 8) step = Key{1} << 40;  // (differing in the upper half)
      for (std::size_t i = 0; i < n; ++i) {
        if (i >= from && r() % 3 == 0) key = static_cast<Key>(key + step);
        keys[i] = key;
      }
      std::vector<Key> want_keys;
      std::vector<std::int64_t> want;
      for (std::size_t i = 0; i < n; ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) want_keys.push_back(keys[i]), want.push_back(0);
        want.back() += x[i];
      }
      for (const auto& p : B::policies()) {
        SCOPED_TRACE(p.name + ", n " + std::to_string(n) + ", short runs from " +
                     std::to_string(from));
        for (const std::size_t room : {n, want.size()}) {
          std::vector<Key> keys_out(room, Key{3});
          std::vector<std::int64_t> out(room, -1);
          const std::size_t k =
              parprim::reduce_by_key(p.policy, keys, x, keys_out, out, parprim::plus{});
          ASSERT_EQ(k, want.size()) << "out of " << room;
          ASSERT_TRUE(std::equal(want.begin(), want.end(), out.begin())) << "out of " << room;
          ASSERT_TRUE(std::equal(want_keys.begin(), want_keys.end(), keys_out.begin()))
              << "keys_out of " << room;
          ASSERT_TRUE(std::all_of(out.begin() + k, out.end(), [](auto v) { return v == -1; }));
          ASSERT_TRUE(
              std::all_of(keys_out.begin() + k, keys_out.end(), [](Key v) { return v == Key{3}; }));
        }
      }
    }
  }
}

TYPED_TEST(ByKey, LongThenShortRuns) {
  run_long_then_short_runs<TypeParam, std::int32_t>();
  if (::testing::Test::HasFatalFailure()) return;
  run_long_then_short_runs<TypeParam, std::uint64_t>();
}

template <class B>
class ByKeyLarge : public ::testing::Test {};
TYPED_TEST_SUITE(ByKeyLarge, backends);

#define PARPRIM_BY_KEY_TESTS(C)                            \
  TYPED_TEST(ByKey, C) {                                   \
    run_by_key<TypeParam, cases::C>(small_sizes(), false); \
  }
PARPRIM_TEST_CASES_SEGMENTS(PARPRIM_BY_KEY_TESTS)

#define PARPRIM_BY_KEY_LARGE_TESTS(C)                             \
  TYPED_TEST(ByKeyLarge, C) {                                     \
    run_by_key<TypeParam, cases::C>(segment_large_sizes(), true); \
  }
PARPRIM_TEST_CASES_SEGMENTS_LARGE(PARPRIM_BY_KEY_LARGE_TESTS)

TYPED_TEST(ByKey, DocumentedExamples) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::vector<int> user = {7, 7, 3, 3, 3, 7};
    const std::vector<long> bytes = {10, 20, 1, 2, 3, 5};
    std::vector<int> users(user.size(), -1);
    std::vector<long> totals(user.size(), -1);
    EXPECT_EQ(parprim::reduce_by_key(p.policy, user, bytes, users, totals), 3u);
    EXPECT_EQ(users, (std::vector<int>{7, 3, 7, -1, -1, -1}));
    EXPECT_EQ(totals, (std::vector<long>{30, 6, 5, -1, -1, -1}));

    const std::vector<int> key = {1, 1, 2, 2, 2};
    std::vector<int> v = {1, 2, 3, 4, 5};
    parprim::inclusive_scan_by_key(p.policy, key, v, v, parprim::plus{});
    EXPECT_EQ(v, (std::vector<int>{1, 3, 3, 7, 12}));
    std::vector<long> e(v.size());
    parprim::exclusive_scan_by_key(p.policy, key, v, e, 10L, parprim::plus{});
    EXPECT_EQ(e, (std::vector<long>{10, 11, 10, 13, 20}));
  });
}

// Keys are compared with ==: -0.0 == +0.0 continue a run (keys_out holds its first key), a NaN
// equals nothing, so each NaN is a run of its own. Keys may be the input itself.
TYPED_TEST(ByKey, FloatKeysCompareWithEquals) {
  for_each_policy<TypeParam>([](const auto& p) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> key = {-0.0, 0.0, 0.0, nan, nan, 1.5, 1.5, nan};
    const std::vector<int> v = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<double> keys_out(key.size(), 9.0);
    std::vector<int> out(key.size(), -1);
    ASSERT_EQ(parprim::reduce_by_key(p.policy, key, v, keys_out, out, parprim::plus{}), 5u);
    EXPECT_EQ(out, (std::vector<int>{6, 4, 5, 13, 8, -1, -1, -1}));
    EXPECT_TRUE(std::signbit(keys_out[0]) && keys_out[0] == 0.0) << "the run's first key";
    EXPECT_TRUE(std::isnan(keys_out[1]) && std::isnan(keys_out[2]) && std::isnan(keys_out[4]));
    EXPECT_EQ(keys_out[3], 1.5);
    std::vector<int> scanned(v.size());
    parprim::inclusive_scan_by_key(p.policy, key, v, scanned, parprim::plus{});
    EXPECT_EQ(scanned, (std::vector<int>{1, 3, 6, 4, 5, 6, 13, 8}));
    // keys that are the input: runs of equal values, summed
    const std::vector<int> runs = {4, 4, 4, 1, 1, 4};
    std::vector<int> run_keys(runs.size()), run_sums(runs.size());
    ASSERT_EQ(parprim::reduce_by_key(p.policy, runs, runs, run_keys, run_sums), 3u);
    EXPECT_EQ(run_sums[0], 12);
    EXPECT_EQ(run_sums[1], 2);
    EXPECT_EQ(run_sums[2], 4);
  });
}

// Random float keys at sizes where every thread's block holds many runs: keys from {-0.0, +0.0,
// 1.0, -1.0, NaN} (runs of zeros of either sign, each NaN a run of its own; about two heads in
// three elements, so the OpenMP integer sums take their running-sum loop), int sums. Each run's
// key must be the bits of the key at its head, its sum exact: against a plain loop here.
TYPED_TEST(ByKey, RunKeysAreTheirHeadsBitsAtScale) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double pick[] = {-0.0, 0.0, 1.0, -1.0, nan};
  for (const std::size_t n : {std::size_t{4099}, std::size_t{100003}}) {
    rng_t r = make_rng(seed, n);
    std::vector<double> key(n);
    std::vector<int> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      key[i] = pick[uniform_int<int>(r, 0, 4)];
      v[i] = uniform_int<int>(r, -100, 100);
    }
    std::vector<double> want_keys;
    std::vector<int> want_sums;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || !(key[i] == key[i - 1])) {
        want_keys.push_back(key[i]);
        want_sums.push_back(0);
      }
      want_sums.back() += v[i];
    }
    for_each_policy<TypeParam>([&](const auto& p) {
      SCOPED_TRACE("n = " + std::to_string(n));
      std::vector<double> keys_out(n, 9.0);
      std::vector<int> out(n, -1);
      ASSERT_EQ(parprim::reduce_by_key(p.policy, key, v, keys_out, out, parprim::plus{}),
                want_sums.size());
      for (std::size_t s = 0; s < want_sums.size(); ++s) {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(keys_out[s]),
                  std::bit_cast<std::uint64_t>(want_keys[s]))
            << "run " << s << ": its key is not the bits of the key at its head";
        ASSERT_EQ(out[s], want_sums[s]) << "run " << s;
      }
    });
  }
}

}  // namespace
}  // namespace parprim_test
