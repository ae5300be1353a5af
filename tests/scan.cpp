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

namespace parprim_test {
namespace {

template <class B, class Case, class Policy>
void check_scan(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                bool exclusive, typename Case::acc_t init,
                const expectation<typename Case::acc_t>& want, bool in_place) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  const typename Case::op_t op{};
  if (!in_place) {
    typename B::template buffer<In> in(host_in);
    typename B::template buffer<Acc> out(host_in.size(), byte_pattern<Acc>(poison_byte));
    const std::span<const In> in_range(in.range());
    if (exclusive)
      parprim::exclusive_scan(p.policy, in_range, out.range(), init, op);
    else
      parprim::inclusive_scan(p.policy, in_range, out.range(), op);
    ASSERT_TRUE(matches(want, out.read_all())) << "out of place";
    ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
  } else if constexpr (std::is_same_v<In, Acc>) {
    typename B::template buffer<In> io(host_in);
    if (exclusive)
      parprim::exclusive_scan(p.policy, io.range(), io.range(), init, op);
    else
      parprim::inclusive_scan(p.policy, io.range(), io.range(), op);
    ASSERT_TRUE(matches(want, io.read_all())) << "in place";
  }
}

template <class B, class Case>
void run_scan(const std::vector<std::size_t>& sizes, bool exclusive, bool large) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::size_t size_index = 0;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    rng_t r = make_rng(seed, n);
    const auto input = make_input<Case>(r, n);
    const auto init = Case::init(r);
    const auto want = reference<Case>::scan(input, nullptr, exclusive, init);
    const auto list = [&] { return large ? B::large_policies() : B::policies(); };
    const std::size_t policies = list().size();
    for_each_policy<B>(
        list,
        [&](const auto& p, std::size_t i) {
          if (!runs_policy(large, size_index, i, policies)) return;
          check_scan<B, Case>(p, input, exclusive, init, want, false);
          // in place: every policy up to full_cross_max, every other one above; at large sizes
          // half the policies run (runs_policy)
          if (!::testing::Test::HasFatalFailure() && runs_variant(n, size_index, i, 0, 2))
            check_scan<B, Case>(p, input, exclusive, init, want, true);
        },
        n);
    ++size_index;
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
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
  for_each_policy<TypeParam>(
      [] { return TypeParam::policies(); },
      [](const auto& p) {
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
