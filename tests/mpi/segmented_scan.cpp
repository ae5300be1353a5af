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

TYPED_TEST(MpiSegmentedScan, Inclusive) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(5, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::segmented_inclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, op);
    check_scan(p, expected, true, p.global_flags.data(), [&](auto in, auto out) {
      parprim::segmented_inclusive_scan(policy, in, p.my_flags(), out, op);
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
    check_scan(p, expected, false, p.global_flags.data(), [&](auto in, auto out) {
      parprim::segmented_exclusive_scan(policy, in, p.my_flags(), out, p.init, op);
    });
  });
}

}  // namespace
}  // namespace parprim_mpi_test
