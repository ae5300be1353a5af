/// \file
/// \brief The transforms on every backend of support/backends.hpp and every policy it lists,
/// every size of support/harness.hpp, random inputs (seed printed on failure): each result is
/// compared with the plain primitive's reference applied to the transformed elements, computed
/// here by hand. Integers and non-commutative operators exactly, float sums within the bound
/// of harness.hpp; outputs checked with their guards (nothing written outside them), inputs
/// unchanged. Also reduce_into and transform_reduce_into (a one-element host result).

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

struct square_wide {
  std::int64_t operator()(std::int32_t x) const { return std::int64_t{x} * x; }
};
struct times {
  std::int64_t operator()(std::int32_t a, std::int32_t b) const { return std::int64_t{a} * b; }
};
/// uint32 -> an affine map: the non-commutative operator over transformed elements.
struct to_affine {
  affine operator()(std::uint32_t x) const { return {x | 1u, x >> 3}; }
};
struct half_plus_one {
  double operator()(float x) const { return 0.5 * x + 1.0; }
};

template <class B>
class Transform : public ::testing::Test {};
TYPED_TEST_SUITE(Transform, backends);

/// Runs `body(policy, n, rng)` for every size and policy (the rng depends on the seed and n).
template <class B, class Body>
void for_sizes(Body body) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (std::size_t n : small_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for_each_policy<B>([] { return B::policies(); },
                       [&](const auto& p) {
                         rng_t r = make_rng(seed, n);
                         body(p.policy, n, r);
                       },
                       n);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

template <class T>
std::vector<T> random_ints(rng_t& r, std::size_t n, T lo, T hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = uniform_int<T>(r, lo, hi);
  return v;
}

TYPED_TEST(Transform, ReduceSumOfSquares) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto v = random_ints<std::int32_t>(r, n, -40000, 40000);
    std::int64_t want = 7;
    for (auto x : v) want += std::int64_t{x} * x;
    host_buffer<std::int32_t> in(v);
    const std::int64_t got =
        parprim::transform_reduce(policy, std::span<const std::int32_t>(in.range()),
                                  std::int64_t{7}, parprim::plus{}, square_wide{});
    ASSERT_EQ(got, want);
    ASSERT_TRUE(unchanged(in.read_all(), std::span<const std::int32_t>(v))) << "the input changed";
  });
}

TYPED_TEST(Transform, ReduceDotProduct) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto a = random_ints<std::int32_t>(r, n, -100000, 100000);
    const auto b = random_ints<std::int32_t>(r, n, -100000, 100000);
    std::int64_t want = -3;
    for (std::size_t i = 0; i < n; ++i) want += std::int64_t{a[i]} * b[i];
    ASSERT_EQ(parprim::transform_reduce(policy, a, b, std::int64_t{-3}, parprim::plus{}, times{}),
              want);
    // the standard operator objects, as std::transform_reduce is often called: int * int is
    // an int (values below 40000 in magnitude, so each product fits), summed as int64
    const auto c = random_ints<std::int32_t>(r, n, -40000, 40000);
    std::int64_t want_c = 0;
    for (std::size_t i = 0; i < n; ++i) want_c += std::int64_t{c[i]} * (a[i] % 40000);
    std::vector<std::int32_t> a_small(n);
    for (std::size_t i = 0; i < n; ++i) a_small[i] = a[i] % 40000;
    ASSERT_EQ(parprim::transform_reduce(policy, c, a_small, std::int64_t{0}, parprim::plus{},
                                        parprim::multiplies{}),
              want_c);
  });
}

TYPED_TEST(Transform, ReduceNonCommutativeInSequenceOrder) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto v = random_ints<std::uint32_t>(r, n, 0, 0xffffffffu);
    affine want{3, 5};
    for (auto x : v) want = affine_compose{}(want, to_affine{}(x));
    ASSERT_EQ(parprim::transform_reduce(policy, v, affine{3, 5}, affine_compose{}, to_affine{}),
              want);
  });
}

TYPED_TEST(Transform, ReduceFloatWithinBound) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform_real<float>(r, -1.0f, 1.0f);
    long double want = 0.25L;
    long double magnitude = 0.25L;
    for (float x : v) {
      want += 0.5L * x + 1.0L;
      magnitude += std::fabs(0.5L * x + 1.0L);
    }
    const double got = parprim::transform_reduce(policy, v, 0.25, parprim::plus{}, half_plus_one{});
    const long double bound =
        2.0L * static_cast<long double>(n + 1) * std::numeric_limits<double>::epsilon() * magnitude;
    ASSERT_LE(std::fabs(static_cast<long double>(got) - want), bound);
  });
}

TYPED_TEST(Transform, ScansIntoGuardedOutputs) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto v = random_ints<std::int32_t>(r, n, -40000, 40000);
    const std::int64_t init = uniform_int<std::int64_t>(r, -1000, 1000);
    std::vector<std::int64_t> incl(n + 2 * guard, byte_pattern<std::int64_t>(guard_byte));
    std::vector<std::int64_t> excl = incl;
    std::int64_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      excl[guard + i] = init + acc;
      acc += std::int64_t{v[i]} * v[i];
      incl[guard + i] = acc;
    }
    host_buffer<std::int64_t> out_i(n, byte_pattern<std::int64_t>(poison_byte));
    host_buffer<std::int64_t> out_e(n, byte_pattern<std::int64_t>(poison_byte));
    parprim::transform_inclusive_scan(policy, v, out_i.range(), parprim::plus{}, square_wide{});
    parprim::transform_exclusive_scan(policy, v, out_e.range(), init, parprim::plus{},
                                      square_wide{});
    ASSERT_TRUE(bitwise_equal(out_i.read_all(), std::span<const std::int64_t>(incl)))
        << "inclusive";
    ASSERT_TRUE(bitwise_equal(out_e.read_all(), std::span<const std::int64_t>(excl)))
        << "exclusive";
  });
}

TYPED_TEST(Transform, ScanInPlaceNonCommutative) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto v = random_ints<std::uint32_t>(r, n, 0, 0xffffffffu);
    // f changes each map, and the scan composes the changed maps (not commutative), in place
    std::vector<affine> maps(n);
    for (std::size_t i = 0; i < n; ++i) maps[i] = {v[i] | 1u, v[i]};
    std::vector<affine> want(n);
    affine acc{1, 0};
    for (std::size_t i = 0; i < n; ++i) {
      const affine fx{maps[i].a * 3u, maps[i].b + 1u};
      acc = i == 0 ? fx : affine_compose{}(acc, fx);
      want[i] = acc;
    }
    const auto f = [](const affine& m) { return affine{m.a * 3u, m.b + 1u}; };
    parprim::transform_inclusive_scan(policy, maps, maps, affine_compose{}, f);  // in place
    ASSERT_EQ(maps, want);
  });
}

TYPED_TEST(Transform, ReduceIntoOneElementResult) {
  for_sizes<TypeParam>([](const auto& policy, std::size_t n, rng_t& r) {
    const auto a = random_ints<std::int32_t>(r, n, -40000, 40000);
    const auto b = random_ints<std::int32_t>(r, n, -40000, 40000);
    std::vector<std::int64_t> result(4, -1);  // writes go to [1], [2], [3] only
    const std::span<std::int64_t> all(result);
    parprim::reduce_into(policy, a, all.subspan(1, 1), std::int64_t{9}, parprim::plus{});
    parprim::transform_reduce_into(policy, a, all.subspan(2, 1), std::int64_t{0}, parprim::plus{},
                                   square_wide{});
    parprim::transform_reduce_into(policy, a, b, all.subspan(3, 1), std::int64_t{1},
                                   parprim::plus{}, times{});
    ASSERT_EQ(result[0], -1);
    ASSERT_EQ(result[1], parprim::reduce(parprim::seq, a, std::int64_t{9}, parprim::plus{}));
    ASSERT_EQ(result[2], parprim::transform_reduce(parprim::seq, a, std::int64_t{0},
                                                   parprim::plus{}, square_wide{}));
    ASSERT_EQ(result[3], parprim::transform_reduce(parprim::seq, a, b, std::int64_t{1},
                                                   parprim::plus{}, times{}));
  });
}

TYPED_TEST(Transform, BadInputsRaiseBeforeWriting) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::vector<std::int32_t> a(10, 1), b(9, 1);
    EXPECT_THROW((void)parprim::transform_reduce(p.policy, a, b, 0LL, parprim::plus{}, times{}),
                 parprim::invalid_argument);
    std::vector<std::int64_t> out(9, -1);
    EXPECT_THROW(
        parprim::transform_inclusive_scan(p.policy, a, out, parprim::plus{}, square_wide{}),
        parprim::invalid_argument);
    EXPECT_EQ(out, std::vector<std::int64_t>(9, -1));
    const std::int32_t* volatile null_data = nullptr;  // opaque to the optimiser
    const std::span<const std::int32_t> null_in(null_data, 3);
    EXPECT_THROW(
        (void)parprim::transform_reduce(p.policy, null_in, 0LL, parprim::plus{}, square_wide{}),
        parprim::invalid_argument);
    const std::vector<std::int32_t> none;
    EXPECT_EQ(parprim::transform_reduce(p.policy, none, 5LL, parprim::plus{}, square_wide{}), 5);
    std::vector<long long> two(2, -1), zero;
    EXPECT_THROW(parprim::reduce_into(p.policy, a, two, 0LL, parprim::plus{}),
                 parprim::invalid_argument);
    EXPECT_THROW(parprim::reduce_into(p.policy, a, zero, 0LL, parprim::plus{}),
                 parprim::invalid_argument);
    EXPECT_THROW(parprim::transform_reduce_into(p.policy, a, b, std::span(two).first(1), 0LL,
                                                parprim::plus{}, times{}),
                 parprim::invalid_argument);
    EXPECT_EQ(two, std::vector<long long>(2, -1));
  });
}

}  // namespace
}  // namespace parprim_test
