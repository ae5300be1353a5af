/// \file
/// \brief parprim::reduce on every backend of support/backends.hpp, every case of
/// support/cases.hpp (type x operator matrix documented there), every size of
/// support/harness.hpp, every policy the backend lists. Compared with an independent left
/// fold: integers and min/max exactly, float sums within the bound stated in harness.hpp.

#include <array>
#include <cmath>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/harness.hpp"
#include "support/sweep.hpp"

namespace parprim_test {
namespace {

template <class B, class Case, class Policy>
void check_reduce(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                  typename Case::acc_t init) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  typename B::template buffer<In> in(host_in);
  const Acc got =
      parprim::reduce(p.policy, std::span<const In>(in.range()), init, typename Case::op_t{});
  if constexpr (Case::approximate) {
    long double want = 0, abs_sum = 0;
    reference<Case>::reduce_wide(host_in, init, want, abs_sum);
    const long double bound = 2.0L * static_cast<long double>(host_in.size() + 1) *
                              static_cast<long double>(std::numeric_limits<Acc>::epsilon()) *
                              abs_sum;
    ASSERT_TRUE(std::isfinite(got));
    ASSERT_LE(std::fabs(static_cast<long double>(got) - want), bound)
        << "got " << show(got) << ", reference " << show(want);
  } else {
    const Acc want = reference<Case>::reduce(host_in, init);
    ASSERT_TRUE(exact_equal(got, want)) << "got " << show(got) << ", expected " << show(want);
  }
  ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
}

template <class B, class Case>
void run_reduce(const std::vector<std::size_t>& sizes, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t) {
      check_reduce<B, Case>(p, s.input, s.init);
    });
  });
}

template <class B>
class Reduce : public ::testing::Test {};
TYPED_TEST_SUITE(Reduce, backends);

template <class B>
class ReduceLarge : public ::testing::Test {};
TYPED_TEST_SUITE(ReduceLarge, backends);

#define PARPRIM_REDUCE_TEST(C)                             \
  TYPED_TEST(Reduce, C) {                                  \
    run_reduce<TypeParam, cases::C>(small_sizes(), false); \
  }
PARPRIM_TEST_CASES(PARPRIM_REDUCE_TEST)

#define PARPRIM_REDUCE_LARGE_TEST(C)                      \
  TYPED_TEST(ReduceLarge, C) {                            \
    run_reduce<TypeParam, cases::C>(large_sizes(), true); \
  }
PARPRIM_TEST_CASES_LARGE(PARPRIM_REDUCE_LARGE_TEST)

// The documented edge: n == 0 returns init unchanged, even with null data.
TYPED_TEST(Reduce, EmptyReturnsInit) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::span<const int> none(static_cast<const int*>(nullptr), 0);
    EXPECT_EQ(parprim::reduce(p.policy, none, 42L, parprim::plus{}), 42L);
    const std::vector<double> empty;
    EXPECT_EQ(parprim::reduce(p.policy, empty, -1.5, parprim::plus{}), -1.5);
  });
}

// Ranges other than std::vector / std::span: std::array and a C array; default operator.
TYPED_TEST(Reduce, OtherRangesAndDefaultOperator) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::array<int, 5> a = {3, 1, 4, 1, 5};
    EXPECT_EQ(parprim::reduce(p.policy, a, 0), 14);
    const int c[7] = {1, -2, 3, -4, 5, -6, 7};
    EXPECT_EQ(parprim::reduce(p.policy, c, 100, parprim::plus{}), 104);
    EXPECT_EQ(parprim::reduce(p.policy, c, 0, parprim::maximum{}), 7);
  });
}

}  // namespace
}  // namespace parprim_test
