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

/// Runs `scan(policy, in, out)` out of place and, where the types allow, in place, gathers
/// the outputs and checks them against `expected`.
template <class Case, class Scan>
void check_scan(const problem<Case>& p, const std::vector<typename Case::acc_t>& expected,
                bool inclusive, const std::uint8_t* flags, Scan scan) {
  using acc_t = typename Case::acc_t;
  const auto in = p.my_in();
  {
    SCOPED_TRACE("out of place");
    std::vector<acc_t> out(in.size());
    scan(in, std::span<acc_t>(out));
    expect_scan_matches(allgather_blocks<acc_t>(out, p.blocks), expected, p, inclusive, flags);
  }
  if constexpr (std::is_same_v<typename Case::in_t, acc_t>) {
    SCOPED_TRACE("in place");
    std::vector<acc_t> data(in.begin(), in.end());
    scan(std::span<const acc_t>(data), std::span<acc_t>(data));
    expect_scan_matches(allgather_blocks<acc_t>(data, p.blocks), expected, p, inclusive, flags);
  }
}

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
