/// \file
/// \brief Distributed segmented scans, typed over local policy x value type x operator, with
/// segments spanning ranks, every element a head, no heads at all, and random heads;
/// compared with parprim::seq on the gathered global sequence.

#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

template <class C>
class MpiSegmentedScan : public ::testing::Test {};
TYPED_TEST_SUITE(MpiSegmentedScan, all_combos, combo_names);

template <class Case, class Scan>
void check_segmented(const problem<Case>& p, const std::vector<typename Case::acc_t>& expected,
                     bool inclusive, Scan scan) {
  using acc_t = typename Case::acc_t;
  const auto in = p.my_in();
  {
    SCOPED_TRACE("out of place");
    std::vector<acc_t> out(in.size());
    scan(in, p.my_flags(), std::span<acc_t>(out));
    expect_scan_matches(allgather_blocks<acc_t>(out, p.blocks), expected, p, inclusive,
                        p.global_flags.data());
  }
  if constexpr (std::is_same_v<typename Case::in_t, acc_t>) {
    SCOPED_TRACE("in place");
    std::vector<acc_t> data(in.begin(), in.end());
    scan(std::span<const acc_t>(data), p.my_flags(), std::span<acc_t>(data));
    expect_scan_matches(allgather_blocks<acc_t>(data, p.blocks), expected, p, inclusive,
                        p.global_flags.data());
  }
}

TYPED_TEST(MpiSegmentedScan, Inclusive) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(5, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::segmented_inclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, op);
    check_segmented(p, expected, true, [&](auto in, auto flags, auto out) {
      parprim::segmented_inclusive_scan(policy, in, flags, out, op);
    });
  });
}

TYPED_TEST(MpiSegmentedScan, Exclusive) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(6, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::segmented_exclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, p.init,
                                      op);
    check_segmented(p, expected, false, [&](auto in, auto flags, auto out) {
      parprim::segmented_exclusive_scan(policy, in, flags, out, p.init, op);
    });
  });
}

}  // namespace
}  // namespace parprim_mpi_test
