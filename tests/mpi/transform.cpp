/// \file
/// \brief The transforms on a communicator, typed over the local policies: transform_reduce
/// (one and two inputs), transform_inclusive_scan and transform_exclusive_scan over every split
/// of the global sequence (uneven, empty ranks), compared with parprim::seq's transforms on the
/// gathered global sequence; a non-commutative operator over transformed elements; in place;
/// reduce_into and transform_reduce_into.

#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {
namespace {

/// int32 -> its square as int64.
struct square_wide {
  std::int64_t operator()(std::int32_t x) const { return std::int64_t{x} * x; }
};
/// int32 -> a 2x2 matrix: products in sequence order (not commutative).
struct to_mat2 {
  mat2 operator()(std::int32_t x) const {
    const auto u = static_cast<std::uint32_t>(x);
    return {{u | 1u, u >> 2, u >> 5, u ^ 7u}};
  }
};

/// The global sequence: int32 values whose squares sum exactly in int64.
struct i32_values : exact_case<std::int32_t, std::int64_t, parprim::plus> {
  static constexpr const char* name = "i32_values";
  static std::int32_t gen(rng_t& r) { return uniform_int<std::int32_t>(r, -40000, 40000); }
};

template <class Local>
class MpiTransform : public ::testing::Test {};
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
using locals = ::testing::Types<seq_local, omp_local>;
#else
using locals = ::testing::Types<seq_local>;
#endif
TYPED_TEST_SUITE(MpiTransform, locals);

TYPED_TEST(MpiTransform, ReduceMatchesSequential) {
  SCOPED_TRACE(seed_trace());
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::policy());
  for_each_problem<i32_values>(11, [&](const problem<i32_values>& p) {
    const auto mine = p.my_in();
    EXPECT_EQ(
        parprim::transform_reduce(policy, mine, std::int64_t{5}, parprim::plus{}, square_wide{}),
        parprim::transform_reduce(parprim::seq, p.global_in, std::int64_t{5}, parprim::plus{},
                                  square_wide{}));
    // two inputs: the block with itself reversed within the rank (any same-size pair will do)
    const std::vector<std::int32_t> other(mine.rbegin(), mine.rend());
    const std::vector<std::int32_t> global_other = allgather_blocks<std::int32_t>(other, p.blocks);
    EXPECT_EQ(parprim::transform_reduce(
                  policy, mine, other, std::int64_t{0}, parprim::plus{},
                  [](std::int32_t a, std::int32_t b) { return std::int64_t{a} * b; }),
              parprim::transform_reduce(
                  parprim::seq, p.global_in, global_other, std::int64_t{0}, parprim::plus{},
                  [](std::int32_t a, std::int32_t b) { return std::int64_t{a} * b; }));
    const mat2 got =
        parprim::transform_reduce(policy, mine, mat2{{1, 0, 0, 1}}, mat2_product{}, to_mat2{});
    EXPECT_TRUE(got == parprim::transform_reduce(parprim::seq, p.global_in, mat2{{1, 0, 0, 1}},
                                                 mat2_product{}, to_mat2{}));
  });
}

TYPED_TEST(MpiTransform, ReduceIntoWritesTheResultOnEveryRank) {
  SCOPED_TRACE(seed_trace());
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::policy());
  for_each_problem<i32_values>(5, [&](const problem<i32_values>& p) {
    const auto mine = p.my_in();
    std::vector<std::int64_t> result(3, -1);
    parprim::reduce_into(policy, mine, std::span<std::int64_t>(result).subspan(1, 1),
                         std::int64_t{2}, parprim::plus{});
    parprim::transform_reduce_into(policy, mine, std::span<std::int64_t>(result).subspan(2, 1),
                                   std::int64_t{5}, parprim::plus{}, square_wide{});
    EXPECT_EQ(result[0], -1);
    EXPECT_EQ(result[1], parprim::reduce(parprim::seq, p.global_in, std::int64_t{2}));
    EXPECT_EQ(result[2], parprim::transform_reduce(parprim::seq, p.global_in, std::int64_t{5},
                                                   parprim::plus{}, square_wide{}));
  });
}

TYPED_TEST(MpiTransform, ScansMatchSequential) {
  SCOPED_TRACE(seed_trace());
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::policy());
  for_each_problem<i32_values>(12, [&](const problem<i32_values>& p) {
    const auto mine = p.my_in();
    std::vector<std::int64_t> want(p.n);
    std::vector<std::int64_t> out(mine.size());
    parprim::transform_inclusive_scan(parprim::seq, p.global_in, want, parprim::plus{},
                                      square_wide{});
    parprim::transform_inclusive_scan(policy, mine, out, parprim::plus{}, square_wide{});
    EXPECT_EQ(allgather_blocks<std::int64_t>(out, p.blocks), want) << "inclusive";
    parprim::transform_exclusive_scan(parprim::seq, p.global_in, want, std::int64_t{-9},
                                      parprim::plus{}, square_wide{});
    parprim::transform_exclusive_scan(policy, mine, out, std::int64_t{-9}, parprim::plus{},
                                      square_wide{});
    EXPECT_EQ(allgather_blocks<std::int64_t>(out, p.blocks), want) << "exclusive";
    // in place, non-commutative: the block's matrices, transformed and composed where they are
    std::vector<mat2> global_m(p.n);
    for (std::size_t i = 0; i < p.n; ++i) global_m[i] = to_mat2{}(p.global_in[i]);
    const auto square = [](const mat2& m) { return mat2_product{}(m, m); };
    std::vector<mat2> want_m(p.n);
    parprim::transform_inclusive_scan(parprim::seq, global_m, want_m, mat2_product{}, square);
    std::vector<mat2> data(global_m.begin() + static_cast<std::ptrdiff_t>(p.blocks.offset[p.rank]),
                           global_m.begin() + static_cast<std::ptrdiff_t>(p.blocks.offset[p.rank] +
                                                                          p.blocks.count[p.rank]));
    parprim::transform_inclusive_scan(policy, data, data, mat2_product{}, square);
    EXPECT_TRUE(allgather_blocks<mat2>(data, p.blocks) == want_m) << "in place";
  });
}

}  // namespace
}  // namespace parprim_mpi_test
