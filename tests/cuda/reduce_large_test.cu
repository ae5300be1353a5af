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

#include "cuda_test_support.hpp"

namespace parprim_cuda_test {
namespace {

constexpr std::size_t two32 = std::size_t(1) << 32;

/// \brief x[i] = (i % period) + offset, written with a grid-stride loop.
template <class T>
__global__ void fill_periodic(T* x, std::size_t n, std::int64_t period, std::int64_t offset) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = static_cast<T>(static_cast<std::int64_t>(i % period) + offset);
}

/// \brief Sum of (i % period) + offset for i in [0, n).
std::int64_t periodic_sum(std::size_t n, std::int64_t period, std::int64_t offset) {
  const auto p = static_cast<std::size_t>(period);
  const auto full = static_cast<std::int64_t>(n / p);
  const auto rest = static_cast<std::int64_t>(n % p);
  const std::int64_t one_period = period * (period - 1) / 2 + offset * period;
  return full * one_period + rest * (rest - 1) / 2 + offset * rest;
}

template <class T>
class device_array {
 public:
  explicit device_array(std::size_t n) : n_(n) {
    if (cudaMalloc(&p_, n * sizeof(T)) != cudaSuccess) p_ = nullptr;
  }
  ~device_array() {
    if (p_) cudaFree(p_);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  T* get() const { return p_; }
  parprim::device_span<const T> span() const { return {p_, n_}; }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// \brief Skips when the GPU has less free memory than `bytes` (+1 GiB of headroom).
#define SKIP_WITHOUT_MEMORY(bytes)                                                   \
  do {                                                                               \
    std::size_t free_ = 0, total_ = 0;                                               \
    ASSERT_EQ(cudaMemGetInfo(&free_, &total_), cudaSuccess);                         \
    if (free_ < (bytes) + (std::size_t(1) << 30))                                    \
      GTEST_SKIP() << "needs " << ((bytes) >> 30) << " GiB of free GPU memory, has " \
                   << (free_ >> 30);                                                 \
  } while (false)

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
  const std::int64_t want = periodic_sum(n, 227, -100) - before + mark + 11;
  for_each_policy(all_rungs, [&](const auto& policy) {
    EXPECT_EQ(parprim::reduce(policy, x.span(), std::int64_t(11), parprim::plus{}), want)
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
  const std::int64_t want_sum = periodic_sum(n, 1000003, -400000) - before + mark;
  for_each_policy(all_rungs, [&](const auto& policy) {
    EXPECT_EQ(parprim::reduce(policy, x.span(), std::int64_t(0), parprim::plus{}), want_sum)
        << rung_name(policy) << " int32 -> int64 plus";
    EXPECT_EQ(parprim::reduce(policy, x.span(), std::int32_t(-7), parprim::maximum{}), mark)
        << rung_name(policy) << " int32 maximum";
    EXPECT_EQ(parprim::reduce(policy, x.span(), std::int32_t(0), parprim::minimum{}), -400000)
        << rung_name(policy) << " int32 minimum";
  });
}

}  // namespace
}  // namespace parprim_cuda_test
