/// \file
/// \brief More than 2^32 elements (64-bit indexing everywhere), every rung (label `large`):
/// int8 into int64 (4.3 GB of input) and int32, summed into int64 and maximised as int32
/// (17.2 GB). The inputs are generated on the GPU from a periodic pattern whose sum and maximum
/// have closed forms, with one marked element near the end (past index 2^32) that only a
/// reduction reaching the end sees.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "large_support.cuh"

namespace parprim_cuda_test::large {
namespace {

TEST(CudaReduceLarge, Int8IntoInt64PastTwoToThe32) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 4099;
  SKIP_WITHOUT_MEMORY(n);
  device_array<std::int8_t> x(n);
  ASSERT_NE(x.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, 227, -100);  // values -100 .. 126 (int8)
  const std::size_t marked = n - 3;
  const std::int8_t mark = 127;
  ASSERT_EQ(cudaMemcpy(x.get() + marked, &mark, 1, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::int64_t before = static_cast<std::int64_t>(marked % 227) - 100;
  const std::int64_t want = periodic_prefix(n, 227, -100) - before + mark + 11;
  for_each_policy(all_rungs, [&](const auto& policy) {
    EXPECT_EQ(parprim::reduce(policy, x.cspan(), std::int64_t(11), parprim::plus{}), want)
        << rung_name(policy);
  });
}

TEST(CudaReduceLarge, Int32PastTwoToThe32) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 1001;
  SKIP_WITHOUT_MEMORY(n * sizeof(std::int32_t));
  device_array<std::int32_t> x(n);
  ASSERT_NE(x.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, 1000003, -400000);
  const std::size_t marked = n - 5;
  const std::int32_t mark = 2'000'000'007;
  ASSERT_EQ(cudaMemcpy(x.get() + marked, &mark, sizeof(mark), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::int64_t before = static_cast<std::int64_t>(marked % 1000003) - 400000;
  const std::int64_t want_sum = periodic_prefix(n, 1000003, -400000) - before + mark;
  for_each_policy(all_rungs, [&](const auto& policy) {
    EXPECT_EQ(parprim::reduce(policy, x.cspan(), std::int64_t(0), parprim::plus{}), want_sum)
        << rung_name(policy) << " int32 -> int64 plus";
    EXPECT_EQ(parprim::reduce(policy, x.cspan(), std::int32_t(-7), parprim::maximum{}), mark)
        << rung_name(policy) << " int32 maximum";
    EXPECT_EQ(parprim::reduce(policy, x.cspan(), std::int32_t(0), parprim::minimum{}), -400000)
        << rung_name(policy) << " int32 minimum";
  });
}

}  // namespace
}  // namespace parprim_cuda_test::large
