/// \file
/// \brief Distributed reduce, typed over local policy x value type x operator: every split of
/// the global sequence (uneven, empty ranks first, last, odd), delivered everywhere and with
/// root(r), compared with parprim::seq on the gathered global sequence.

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

template <class C>
class MpiReduce : public ::testing::Test {};
TYPED_TEST_SUITE(MpiReduce, all_combos, combo_names);

TYPED_TEST(MpiReduce, MatchesSequentialOnGlobalSequence) {
  using Case = typename TypeParam::value_case;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(1, [&](const auto& policy, const problem<Case>& p) {
    expect_reduce_matches(parprim::reduce(policy, p.my_in(), p.init, op), p);
  });
}

TYPED_TEST(MpiReduce, RootDeliversOnlyThere) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const typename Case::op_t op{};
  for (int root : {0, w.size - 1}) {
    const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::local::policy()).root(root);
    for_each_problem<Case>(2, [&](const problem<Case>& p) {
      const acc_t got = parprim::reduce(policy, p.my_in(), p.init, op);
      const acc_t again = parprim::reduce(policy, p.my_in(), p.init, op);
      if (w.rank != root) {
        EXPECT_TRUE(same_result<Case>(got, p.init)) << "non-root rank must get init back";
      } else if constexpr (Case::exact) {
        EXPECT_TRUE(exact_equal(got, parprim::reduce(parprim::seq, p.global_in, p.init, op)));
      }
      EXPECT_TRUE(same_result<Case>(got, again)) << "root(r) must repeat bit for bit";
    });
  }
}

}  // namespace
}  // namespace parprim_mpi_test
