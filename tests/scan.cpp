/// \file
/// \brief parprim::inclusive_scan and parprim::exclusive_scan on every backend of
/// support/backends.hpp, every case of support/cases.hpp, every size and policy; out of place
/// and in place (when input and output types agree). The output (with guards around it) is
/// poisoned before each call and compared whole with an independent sequential scan.

#include <array>
#include <span>
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

template <class B, class Case, class Policy>
void check_scan(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                bool exclusive, typename Case::acc_t init,
                const expectation<typename Case::acc_t>& want, bool in_place) {
  const typename Case::op_t op{};
  check_scan_call<B, Case>(host_in, want, in_place, [&](auto in, auto out) {
    if (exclusive)
      parprim::exclusive_scan(p.policy, in, out, init, op);
    else
      parprim::inclusive_scan(p.policy, in, out, op);
  });
}

template <class B, class Case>
void run_scan(const std::vector<std::size_t>& sizes, bool exclusive, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    const auto want = reference<Case>::scan(s.input, nullptr, exclusive, s.init);
    for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
      check_scan<B, Case>(p, s.input, exclusive, s.init, want, false);
      // in place: every policy up to full_cross_max, every other one above; at large sizes
      // half the policies run (runs_policy)
      if (!::testing::Test::HasFatalFailure() && runs_variant(s.n, s.index, i, 0, 2))
        check_scan<B, Case>(p, s.input, exclusive, s.init, want, true);
    });
  });
}

template <class B>
class InclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(InclusiveScan, backends);
template <class B>
class ExclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(ExclusiveScan, backends);
template <class B>
class InclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(InclusiveScanLarge, backends);
template <class B>
class ExclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(ExclusiveScanLarge, backends);

#define PARPRIM_SCAN_TESTS(C)                                   \
  TYPED_TEST(InclusiveScan, C) {                                \
    run_scan<TypeParam, cases::C>(small_sizes(), false, false); \
  }                                                             \
  TYPED_TEST(ExclusiveScan, C) {                                \
    run_scan<TypeParam, cases::C>(small_sizes(), true, false);  \
  }
PARPRIM_TEST_CASES(PARPRIM_SCAN_TESTS)

#define PARPRIM_SCAN_LARGE_TESTS(C)                            \
  TYPED_TEST(InclusiveScanLarge, C) {                          \
    run_scan<TypeParam, cases::C>(large_sizes(), false, true); \
  }                                                            \
  TYPED_TEST(ExclusiveScanLarge, C) {                          \
    run_scan<TypeParam, cases::C>(large_sizes(), true, true);  \
  }
PARPRIM_TEST_CASES_LARGE(PARPRIM_SCAN_LARGE_TESTS)

// std::array, a C array, the default operator, and an exclusive init of another type.
TYPED_TEST(InclusiveScan, OtherRangesAndDefaultOperator) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::array<int, 5> a = {3, 1, 4, 1, 5};
    std::array<long, 5> out{};
    parprim::inclusive_scan(p.policy, a, out);
    EXPECT_EQ(out, (std::array<long, 5>{3, 4, 8, 9, 14}));
    int c[4] = {1, 2, 3, 4};
    parprim::exclusive_scan(p.policy, c, c, 10);
    EXPECT_EQ(std::vector<int>(c, c + 4), (std::vector<int>{10, 11, 13, 16}));
  });
}

}  // namespace
}  // namespace parprim_test
