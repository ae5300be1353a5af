/// \file
/// \brief Distributed segmented reduce, typed over local policy x value type x operator: head
/// flags with segments spanning ranks (none at all, every element, random densities, 1/500),
/// every split of the global sequence (empty ranks first, last, odd, all on one rank); each
/// rank's results are the segments that start in its block, gathered in rank order and checked
/// against a sequential fold of the global sequence written here; outputs larger than needed
/// keep their other elements. CSR offsets per rank (empty segments included). Results land on
/// the rank that holds the segment's first element.

#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

template <class C>
class MpiSegmentedReduce : public ::testing::Test {};
TYPED_TEST_SUITE(MpiSegmentedReduce, segment_combos, combo_names);

TYPED_TEST(MpiSegmentedReduce, HeadFlags) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(11, [&](const auto& policy, const problem<Case>& p) {
    const auto begins = segment_begins(p.global_flags);
    const auto in = p.my_in();
    const acc_t unused = poison<acc_t>();
    std::vector<acc_t> out(in.size() + 2, unused);
    const std::size_t k = parprim::segmented_reduce(policy, in, p.my_flags(), out, p.init, op);
    EXPECT_EQ(k, begins_in(begins, p.blocks.offset[p.rank], in.size()))
        << "the segments starting on this rank";
    for (std::size_t j = k; j < out.size(); ++j)
      EXPECT_TRUE(same_result<Case>(out[j], unused)) << "out[" << j << "] written";
    expect_segment_results<Case>(allgather_results<acc_t>(out, k), p.global_in, begins, &p.init);
  });
}

TYPED_TEST(MpiSegmentedReduce, OffsetsPerRank) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  const typename Case::op_t op{};
  for_each_mpi_problem<TypeParam>(12, [&](const auto& policy, const problem<Case>& p) {
    const auto in = p.my_in();
    auto begins = segment_begins(p.my_flags());
    if (p.n % 2 == 0) {  // empty segments: before the first element, in between, after the last
      begins.insert(begins.begin(), 0);
      begins.insert(begins.begin() + static_cast<std::ptrdiff_t>(begins.size() / 2),
                    begins[begins.size() / 2]);
      begins.push_back(in.size());
    }
    const std::vector<std::int64_t> offsets(begins.begin(), begins.end());
    std::vector<acc_t> out(begins.size() - 1);
    parprim::segmented_reduce(policy, in, parprim::offsets(offsets), out, p.init, op);
    expect_segment_results<Case>(out, in, begins, &p.init);
  });
}

// One segment over every rank (no flag anywhere): its result lands on the first rank with
// elements; every other rank returns 0 and writes nothing.
TYPED_TEST(MpiSegmentedReduce, OneSegmentLandsOnTheFirstRank) {
  using Case = typename TypeParam::value_case;
  using acc_t = typename Case::acc_t;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::local::policy());
  rng_t r = make_rng(13);
  std::vector<typename Case::in_t> global(static_cast<std::size_t>(7 * w.size));
  for (auto& x : global) x = Case::gen(r);
  const int first = w.size > 1 ? 1 : 0;  // rank 0 holds nothing
  const std::size_t from = w.rank < first ? 0 : static_cast<std::size_t>(7 * (w.rank - first));
  const std::size_t count = w.rank < first ? 0 : (w.rank + 1 == w.size ? global.size() - from : 7);
  const std::span<const typename Case::in_t> in(global.data() + from, count);
  const std::vector<std::uint8_t> flags(count, 0);
  const acc_t unused = poison<acc_t>();
  std::vector<acc_t> out(3, unused);
  const std::size_t k = parprim::segmented_reduce(
      policy, in, flags, out, static_cast<acc_t>(global[0]), typename Case::op_t{});
  EXPECT_EQ(k, w.rank == first ? 1u : 0u);
  const auto all = allgather_results<acc_t>(out, k);
  const std::vector<std::size_t> one = {0, global.size()};
  const acc_t init = static_cast<acc_t>(global[0]);
  expect_segment_results<Case>(all, global, one, &init);
  for (std::size_t j = k; j < out.size(); ++j) EXPECT_TRUE(same_result<Case>(out[j], unused));
}

}  // namespace
}  // namespace parprim_mpi_test
