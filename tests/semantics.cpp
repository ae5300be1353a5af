/// \file
/// \brief One numeric semantics on every backend and policy, on the inputs that used to tell
/// backends apart: NaN and signed zeros under minimum / maximum (one total order, see
/// operators.hpp), elements of another type than the accumulator (converted before they meet
/// the operator), signed sums that a regrouped fold could overflow, and operators that throw
/// (the exception reaches the caller). Each result is compared bit for bit with the left fold
/// written out here.

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>
#endif

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

template <class B>
class Semantics : public ::testing::Test {};
TYPED_TEST_SUITE(Semantics, backends);

template <class T, class Op>
std::vector<T> left_scan(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = i == 0 ? in[0] : op(out[i - 1], in[i]);
  return out;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!exact_equal(got[i], want[i]))
      return ::testing::AssertionFailure()
             << "out[" << i << "] = " << show(got[i]) << ", expected " << show(want[i]);
  return ::testing::AssertionSuccess();
}

// A NaN at the start of a thread's block used to make that block's minimum NaN, which the
// combine then dropped with every number in the block.
TYPED_TEST(Semantics, NanInMinimumScan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = {5, 4, 3, nan, -7, 2, 1, 0, 6};
  const auto want = left_scan(v, parprim::minimum{});
  EXPECT_EQ(want.back(), -7.0);
  for_each_policy<TypeParam>([&](const auto& p) {
    std::vector<double> out(v.size());
    parprim::inclusive_scan(p.policy, v, out, parprim::minimum{});
    EXPECT_TRUE(same_bits(out, want));
    EXPECT_EQ(parprim::reduce(p.policy, std::vector<double>{nan, 1.0},
                              std::numeric_limits<double>::infinity(), parprim::minimum{}),
              1.0);
  });
}

// NaN loses to every number; -0 < +0; a NaN comes out only when every operand is one. Long
// inputs, so the OpenMP lane fold (32 and more elements) runs.
TYPED_TEST(Semantics, SignedZerosAndNanRuns) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t n : {std::size_t{31}, std::size_t{64}, std::size_t{1000}, std::size_t{100003}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<double> zeros(n, 0.0);
    for (std::size_t i = 0; i < n; i += 3) zeros[i] = -0.0;
    std::vector<double> nans(n, nan);
    nans[n / 2] = -nan;
    for_each_policy<TypeParam>([&](const auto& p) {
      const double lo = parprim::reduce(p.policy, zeros, 0.0, parprim::minimum{});
      const double hi = parprim::reduce(p.policy, zeros, -0.0, parprim::maximum{});
      EXPECT_TRUE(lo == 0 && std::signbit(lo)) << show(lo);
      EXPECT_TRUE(hi == 0 && !std::signbit(hi)) << show(hi);
      const double all_nan = parprim::reduce(p.policy, nans, nan, parprim::minimum{});
      const double want = parprim::reduce(parprim::seq, nans, nan, parprim::minimum{});
      EXPECT_TRUE(std::isnan(all_nan));
      EXPECT_TRUE(exact_equal(all_nan, want)) << "the NaN kept depends on the order";
      std::vector<double> out(n);
      parprim::inclusive_scan(p.policy, zeros, out, parprim::maximum{});
      EXPECT_TRUE(same_bits(out, left_scan(zeros, parprim::maximum{})));
    });
  }
}

// Elements meet the operator as the accumulator type: -0.6 becomes int 0 before it is added.
TYPED_TEST(Semantics, ElementsConvertedToAccumulator) {
  std::vector<double> w(100003, -0.6);
  w[0] = 10;
  w[50000] = 7.9;
  for_each_policy<TypeParam>([&](const auto& p) {
    EXPECT_EQ(parprim::reduce(p.policy, w, 0, parprim::plus{}), 17);
    std::vector<int> out(w.size());
    parprim::inclusive_scan(p.policy, w, out, parprim::plus{});
    EXPECT_EQ(out[49999], 10);
    EXPECT_EQ(out.back(), 17);
    parprim::exclusive_scan(p.policy, w, out, 1, parprim::plus{});
    EXPECT_EQ(out[1], 11);
    EXPECT_EQ(out.back(), 18);
  });
}

// The left fold never overflows here; a regrouped signed fold would (INT_MAX + 1 in a lane):
// the backends regroup in the unsigned type. (UBSan, in the asan preset, checks the rest.)
TYPED_TEST(Semantics, RegroupedSignedSumsDoNotOverflow) {
  std::vector<int> v(100, 0);
  v[0] = INT_MAX;
  v[1] = -1;
  v[32] = 1;
  v[64] = -5;
  v[96] = 5;
  for_each_policy<TypeParam>(
      [&](const auto& p) { EXPECT_EQ(parprim::reduce(p.policy, v, 0, parprim::plus{}), INT_MAX); });
}

/// Thrown by the operator below.
struct operator_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Throws when it meets the marker value (never a partial result: inputs are small and
/// non-negative); `commutative` lets the OpenMP lane fold run it.
template <bool Commutative>
struct throwing_plus {
  static constexpr bool is_commutative = Commutative;
  static constexpr int marker = -1'000'000'000;
  int operator()(int a, int b) const {
    if (a == marker || b == marker) throw operator_failure("the operator refused its operand");
    return a + b;
  }
};

TYPED_TEST(Semantics, ThrowingOperatorReachesTheCaller) {
  for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{100003}}) {
    std::vector<int> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i % 10);
    v[n * 2 / 3] = throwing_plus<false>::marker;
    const std::vector<std::uint8_t> heads(n, 0);
    std::vector<int> out(n);
    std::vector<std::uint8_t> keys_out(n);
    const std::vector<std::size_t> two_segments = {0, n / 2, n};
    SCOPED_TRACE("n = " + std::to_string(n));
    for_each_policy<TypeParam>([&](const auto& p) {
      const throwing_plus<false> op;
      EXPECT_THROW((void)parprim::reduce(p.policy, v, 0, op), operator_failure);
      EXPECT_THROW((void)parprim::reduce(p.policy, v, 0, throwing_plus<true>{}), operator_failure);
      EXPECT_THROW(parprim::exclusive_scan(p.policy, v, out, 0, op), operator_failure);
      EXPECT_THROW(parprim::segmented_exclusive_scan(p.policy, v, heads, out, 0, op),
                   operator_failure);
      if (n > 1) {  // a one-element inclusive scan applies no op
        EXPECT_THROW(parprim::inclusive_scan(p.policy, v, out, op), operator_failure);
        EXPECT_THROW(parprim::segmented_inclusive_scan(p.policy, v, heads, out, op),
                     operator_failure);
        EXPECT_THROW(parprim::inclusive_scan_by_key(p.policy, heads, v, out, op), operator_failure);
        EXPECT_THROW((void)parprim::reduce_by_key(p.policy, heads, v, keys_out, out, op),
                     operator_failure);
      }
      EXPECT_THROW((void)parprim::segmented_reduce(p.policy, v, heads, out, 0, op),
                   operator_failure);
      EXPECT_THROW(
          (void)parprim::segmented_reduce(p.policy, v, heads, out, 0, throwing_plus<true>{}),
          operator_failure);
      EXPECT_THROW(parprim::segmented_reduce(p.policy, v, parprim::offsets(two_segments),
                                             std::span<int>(out).first(2), 0, op),
                   operator_failure);
      EXPECT_THROW(parprim::exclusive_scan_by_key(p.policy, heads, v, out, 0, op),
                   operator_failure);
    });
  }
}

// The operator checker is off unless PARPRIM_CHECK_OPERATORS is defined (the dev and asan
// presets define it for the whole build): a non-associative operator then runs unchecked.
TEST(OperatorChecker, OffUnlessDefined) {
  const std::vector<int> v = {5, 3, 1};
  const auto minus = [](int a, int b) { return a - b; };
#if defined(PARPRIM_CHECK_OPERATORS)
  EXPECT_THROW((void)parprim::reduce(parprim::seq, v, 0, minus), parprim::invalid_argument);
#else
  EXPECT_EQ(parprim::reduce(parprim::seq, v, 0, minus), -9);
#endif
}

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
TEST(OmpThreads, MoreThanTheProcessMayStartRaises) {
  EXPECT_THROW((void)parprim::omp.threads(parprim::omp_policy::max_threads + 1),
               parprim::invalid_argument);
  EXPECT_NO_THROW((void)parprim::omp.threads(parprim::omp_policy::max_threads));
#if defined(__unix__)
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NPROC, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 64;  // lowering the soft limit is always allowed
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < low.rlim_cur)
    low.rlim_cur = saved.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_NPROC, &low), 0);
  std::vector<int> v(1000, 1), out(1000, -1);
  const auto policy = parprim::omp.threads(static_cast<int>(low.rlim_cur) + 1).grain(1);
  bool thrown = false;
  try {
    (void)parprim::reduce(policy, v, 0);
  } catch (const parprim::invalid_argument& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("RLIMIT_NPROC"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parprim::inclusive_scan(policy, v, out), parprim::invalid_argument);
  EXPECT_EQ(out, std::vector<int>(1000, -1)) << "written before the error";
  ASSERT_EQ(setrlimit(RLIMIT_NPROC, &saved), 0);
  EXPECT_TRUE(thrown);
#endif
}
#endif

}  // namespace
}  // namespace parprim_test
