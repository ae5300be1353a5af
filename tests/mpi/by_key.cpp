/// \file
/// \brief Distributed reduce_by_key and scans by key, typed over local policy x value type x
/// operator: key runs spanning ranks (one key everywhere, a new key at every element, random
/// densities), every split of the global sequence (empty ranks included); reduce_by_key's
/// results (and keys) are the runs that start in each block, gathered in rank order and checked
/// against a sequential fold written here; the scans are checked whole against parprim::seq on
/// the global sequence, out of place and in place.

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

template <class C>
class MpiByKey : public ::testing::Test {};
TYPED_TEST_SUITE(MpiByKey, segment_combos, combo_names);

TYPED_TEST(MpiByKey, ReduceByKey) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(21, [&](const auto& policy, const problem<Case>& p) {
    const auto begins = segment_begins(p.global_flags);
    const auto in = p.my_in();
    const acc_t unused = poison<acc_t>();
    std::vector<std::int32_t> keys_out(in.size() + 1, -1);
    std::vector<acc_t> out(in.size() + 1, unused);
    const std::size_t k = parprim::reduce_by_key(policy, p.my_keys(), in, keys_out, out, op);
    EXPECT_EQ(k, begins_in(begins, p.blocks.offset[p.rank], in.size()))
        << "the runs starting on this rank";
    for (std::size_t j = k; j < out.size(); ++j) {
      EXPECT_TRUE(same_result<Case>(out[j], unused)) << "out[" << j << "] written";
      EXPECT_EQ(keys_out[j], -1) << "keys_out[" << j << "] written";
    }
    expect_segment_results<Case>(allgather_results<acc_t>(out, k), p.global_in, begins, nullptr);
    const auto keys = allgather_results<std::int32_t>(keys_out, k);
    ASSERT_EQ(keys.size(), begins.size() - 1);
    for (std::size_t s = 0; s < keys.size(); ++s)
      EXPECT_EQ(keys[s], p.global_keys[begins[s]]) << "key of run " << s;
  });
}

TYPED_TEST(MpiByKey, InclusiveScanByKey) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(22, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::segmented_inclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, op);
    check_scan(p, expected, true, p.global_flags.data(), [&](auto in, auto out) {
      parprim::inclusive_scan_by_key(policy, p.my_keys(), in, out, op);
    });
  });
}

TYPED_TEST(MpiByKey, ExclusiveScanByKey) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(23, [&](const auto& policy, const problem<Case>& p) {
    std::vector<acc_t> expected(p.n);
    parprim::segmented_exclusive_scan(parprim::seq, p.global_in, p.global_flags, expected, p.init,
                                      op);
    check_scan(p, expected, false, p.global_flags.data(), [&](auto in, auto out) {
      parprim::exclusive_scan_by_key(policy, p.my_keys(), in, out, p.init, op);
    });
  });
}

}  // namespace
}  // namespace parprim_mpi_test
