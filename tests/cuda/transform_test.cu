/// \file
/// \brief The transforms on the GPU (a .cu file: the transform is device code): transform_reduce
/// with one and two inputs (commutative sums, a non-commutative matrix product over transformed
/// elements), transform_inclusive_scan and transform_exclusive_scan on every rung of the scan
/// ladder (in place too), over the boundary sizes of both ladders, random inputs (seed printed
/// on failure), compared exactly with the same transforms on parprim::seq.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test {
namespace {

struct square_wide {
  __host__ __device__ std::int64_t operator()(std::int32_t x) const { return std::int64_t{x} * x; }
};
struct times_wide {
  __host__ __device__ std::int64_t operator()(std::int32_t a, std::int32_t b) const {
    return std::int64_t{a} * b;
  }
};
/// The 2x2 matrices of uint32 and their product (associative, not commutative) of
/// cuda_test_support.hpp.
using scans::mat2;
using scans::mat2_multiply;
struct to_mat2 {
  __host__ __device__ mat2 operator()(std::int32_t x) const {
    const auto u = static_cast<std::uint32_t>(x);
    return {u | 1u, u >> 2, u >> 5, u ^ 7u};
  }
};
/// int32 -> uint32 (wrapping, so exact at any n): inputs of the values' size, which rung 6
/// stages raw and converts in shared memory.
struct thrice_plus_one {
  __host__ __device__ std::uint32_t operator()(std::int32_t x) const {
    return 3u * static_cast<std::uint32_t>(x) + 1u;
  }
};
/// float -> float: staged and converted in place by rung 6 too.
struct twice_plus_one {
  __host__ __device__ float operator()(float x) const { return 2.0f * x + 1.0f; }
};

std::vector<std::int32_t> random_ints(std::mt19937_64& rng, std::size_t n) {
  std::uniform_int_distribution<std::int32_t> d(-40000, 40000);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(CudaTransform, ReduceOneAndTwoInputs) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : test_sizes()) {
    if (n > scans::scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = random_ints(rng, n);
    const auto b = random_ints(rng, n);
    const parprim::device_buffer<std::int32_t> da(a), db(b);
    ASSERT_EQ(parprim::transform_reduce(parprim::cuda, da.span(), std::int64_t{3}, parprim::plus{},
                                        square_wide{}),
              parprim::transform_reduce(parprim::seq, a, std::int64_t{3}, parprim::plus{},
                                        square_wide{}));
    ASSERT_EQ(parprim::transform_reduce(parprim::cuda, da.span(), db.span(), std::int64_t{-7},
                                        parprim::plus{}, times_wide{}),
              parprim::transform_reduce(parprim::seq, a, b, std::int64_t{-7}, parprim::plus{},
                                        times_wide{}));
    const mat2 id{1, 0, 0, 1};
    ASSERT_EQ(parprim::transform_reduce(parprim::cuda, da.span(), id, mat2_multiply{}, to_mat2{}),
              parprim::transform_reduce(parprim::seq, a, id, mat2_multiply{}, to_mat2{}))
        << "non-commutative: sequence order";
  }
}

TEST(CudaTransform, ScansEveryRung) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : scans::scan_sizes(seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = random_ints(rng, n);
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i)
      f[i] = static_cast<float>(a[i] % 2);  // 2x + 1 in {-1, 1, 3}: exact sums
    std::vector<std::int64_t> want_incl(n), want_excl(n);
    parprim::transform_inclusive_scan(parprim::seq, a, want_incl, parprim::plus{}, square_wide{});
    parprim::transform_exclusive_scan(parprim::seq, a, want_excl, std::int64_t{11}, parprim::plus{},
                                      square_wide{});
    std::vector<float> want_f(n);
    parprim::transform_inclusive_scan(parprim::seq, f, want_f, parprim::plus{}, twice_plus_one{});
    // from the second element on: inputs not 16-byte aligned (the staging's plain loads)
    const std::span<const std::int32_t> a1 =
        n > 0 ? std::span<const std::int32_t>(a).subspan(1) : std::span<const std::int32_t>{};
    std::vector<std::uint32_t> want_u(a1.size()), want_ue(a1.size());
    parprim::transform_inclusive_scan(parprim::seq, a1, want_u, parprim::plus{}, thrice_plus_one{});
    parprim::transform_exclusive_scan(parprim::seq, a1, want_ue, 5u, parprim::plus{},
                                      thrice_plus_one{});
    // int32 -> float, a conversion without a transform (staged too): exact while |sums| < 2^24
    std::vector<std::int32_t> small(n);
    for (std::size_t i = 0; i < n; ++i) small[i] = a[i] % 3;
    std::vector<float> want_cf(n);
    parprim::inclusive_scan(parprim::seq, small, want_cf, parprim::plus{});
    const parprim::device_buffer<std::int32_t> da(a), dsmall(small);
    scans::for_each_scan_rung([&](const auto& policy, std::size_t) {
      SCOPED_TRACE(scans::scan_rung_name(policy));
      parprim::device_buffer<std::int64_t> out(n);
      parprim::transform_inclusive_scan(policy, da.span(), out.span(), parprim::plus{},
                                        square_wide{});
      EXPECT_EQ(out.to_host(), want_incl) << "inclusive";
      parprim::transform_exclusive_scan(policy, da.span(), out.span(), std::int64_t{11},
                                        parprim::plus{}, square_wide{});
      EXPECT_EQ(out.to_host(), want_excl) << "exclusive";
      parprim::device_buffer<float> df(f);  // in place, float -> float
      parprim::transform_inclusive_scan(policy, df.span(), df.span(), parprim::plus{},
                                        twice_plus_one{});
      EXPECT_EQ(df.to_host(), want_f) << "in place, float -> float";
      const auto da1 = n > 0 ? da.span().subspan(1) : da.span();
      parprim::device_buffer<std::uint32_t> u(a1.size());
      parprim::transform_inclusive_scan(policy, da1, u.span(), parprim::plus{}, thrice_plus_one{});
      EXPECT_EQ(u.to_host(), want_u) << "int32 -> uint32, unaligned input";
      parprim::transform_exclusive_scan(policy, da1, u.span(), 5u, parprim::plus{},
                                        thrice_plus_one{});
      EXPECT_EQ(u.to_host(), want_ue) << "int32 -> uint32 exclusive, unaligned input";
      parprim::device_buffer<float> cf(n);
      parprim::inclusive_scan(policy, dsmall.span(), cf.span(), parprim::plus{});
      EXPECT_EQ(cf.to_host(), want_cf) << "int32 -> float";
    });
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace parprim_cuda_test
