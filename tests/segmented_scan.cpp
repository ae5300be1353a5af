/// \file
/// \brief parprim::segmented_inclusive_scan and parprim::segmented_exclusive_scan on every
/// backend of support/backends.hpp, every case of support/cases.hpp, every size and policy,
/// head flags at every density of harness.hpp (none, every element, random 1/3, random
/// 1/1000, one flag on the last element); out of place and in place (every combination up to
/// harness.hpp's full_cross_max elements, rotated over the policies above it). Output poisoned,
/// guarded and compared whole with an independent sequential segmented scan.

#include <array>
#include <cstdint>
#include <optional>
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
void check_segmented(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                     std::span<const std::uint8_t> host_flags, bool exclusive,
                     typename Case::acc_t init, const expectation<typename Case::acc_t>& want,
                     bool in_place) {
  const typename Case::op_t op{};
  typename B::template buffer<std::uint8_t> flags(host_flags);
  const std::span<const std::uint8_t> f(flags.range());
  check_scan_call<B, Case>(host_in, want, in_place, [&](auto in, auto out) {
    if (exclusive)
      parprim::segmented_exclusive_scan(p.policy, in, f, out, init, op);
    else
      parprim::segmented_inclusive_scan(p.policy, in, f, out, op);
  });
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(unchanged(flags.read_all(), host_flags)) << "the flags changed";
}

template <class B, class Case>
void run_segmented(const std::vector<std::size_t>& sizes, bool exclusive, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    // Every density meets every policy up to full_cross_max; above it policy i runs density
    // (i + size) mod 5, and in place on every other policy.
    for_each_density(all_densities, "flags: ", [&](density d, std::size_t di) {
      std::vector<std::uint8_t> flags;                        // made when first needed
      std::optional<expectation<typename Case::acc_t>> want;  // computed when first needed
      for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
        if (!runs_variant(s.n, s.index, i, di, std::size(all_densities))) return;
        if (!want) {
          rng_t fr = make_rng(s.seed, s.n, 1 + di);
          flags = make_flags(fr, s.n, d);
          want = reference<Case>::scan(s.input, flags.data(), exclusive, s.init);
        }
        check_segmented<B, Case>(p, s.input, flags, exclusive, s.init, *want, false);
        if (!::testing::Test::HasFatalFailure() && runs_variant(s.n, s.index + di, i, 0, 2))
          check_segmented<B, Case>(p, s.input, flags, exclusive, s.init, *want, true);
      });
    });
  });
}

template <class B>
class SegmentedInclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedInclusiveScan, backends);
template <class B>
class SegmentedExclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedExclusiveScan, backends);
template <class B>
class SegmentedInclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedInclusiveScanLarge, backends);
template <class B>
class SegmentedExclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedExclusiveScanLarge, backends);

#define PARPRIM_SEGMENTED_TESTS(C)                                   \
  TYPED_TEST(SegmentedInclusiveScan, C) {                            \
    run_segmented<TypeParam, cases::C>(small_sizes(), false, false); \
  }                                                                  \
  TYPED_TEST(SegmentedExclusiveScan, C) {                            \
    run_segmented<TypeParam, cases::C>(small_sizes(), true, false);  \
  }
PARPRIM_TEST_CASES(PARPRIM_SEGMENTED_TESTS)

#define PARPRIM_SEGMENTED_LARGE_TESTS(C)                            \
  TYPED_TEST(SegmentedInclusiveScanLarge, C) {                      \
    run_segmented<TypeParam, cases::C>(large_sizes(), false, true); \
  }                                                                 \
  TYPED_TEST(SegmentedExclusiveScanLarge, C) {                      \
    run_segmented<TypeParam, cases::C>(large_sizes(), true, true);  \
  }
PARPRIM_TEST_CASES_LARGE(PARPRIM_SEGMENTED_LARGE_TESTS)

// The documented example, and flags that are the input bytes themselves (flags may overlap
// the input; only an overlap with the output is an error).
TYPED_TEST(SegmentedInclusiveScan, DocumentedExampleAndFlagsAliasingInput) {
  for_each_policy<TypeParam>([](const auto& p) {
    std::vector<int> v = {1, 2, 3, 4, 5};
    const std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
    parprim::segmented_inclusive_scan(p.policy, v, f, v, parprim::plus{});
    EXPECT_EQ(v, (std::vector<int>{1, 3, 3, 7, 12}));

    const std::vector<std::uint8_t> bytes = {0, 2, 0, 0, 3, 1, 0, 9};
    std::vector<int> out(bytes.size(), -1);
    parprim::segmented_inclusive_scan(p.policy, bytes, bytes, out, parprim::plus{});
    EXPECT_EQ(out, (std::vector<int>{0, 2, 2, 2, 3, 1, 1, 9}));
    parprim::segmented_exclusive_scan(p.policy, bytes, bytes, out, 100, parprim::plus{});
    EXPECT_EQ(out, (std::vector<int>{100, 100, 102, 102, 100, 100, 101, 100}));
  });
}

}  // namespace
}  // namespace parprim_test
