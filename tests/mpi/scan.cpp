/// \file
/// \brief Distributed inclusive and exclusive scans (out of place and in place), typed over
/// local policy x value type x operator, compared with parprim::seq on the gathered global
/// sequence (floating point: with the long double reference).

#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

template <class C>
class MpiScan : public ::testing::Test {};
TYPED_TEST_SUITE(MpiScan, all_combos, combo_names);

TYPED_TEST(MpiScan, Inclusive) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(3, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::inclusive_scan(parprim::seq, p.global_in, expected, op);
    check_scan(p, expected, true, nullptr,
               [&](auto in, auto out) { parprim::inclusive_scan(policy, in, out, op); });
  });
}

TYPED_TEST(MpiScan, Exclusive) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(4, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::exclusive_scan(parprim::seq, p.global_in, expected, p.init, op);
    check_scan(p, expected, false, nullptr,
               [&](auto in, auto out) { parprim::exclusive_scan(policy, in, out, p.init, op); });
  });
}

}  // namespace
}  // namespace parprim_mpi_test
