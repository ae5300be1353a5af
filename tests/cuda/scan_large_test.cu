/// \file
/// \brief Scans of more than 2^32 elements (64-bit indexing everywhere, four levels of rung
/// 1's hierarchy), every rung (label `large`):
/// - int8 into int64, inclusive and exclusive (init -5): 2^32 + 4099 elements, 4.3 GB in,
///   34.4 GB out; the values (i mod 227) - 100 have mean 13, so the prefixes pass 2^32 (a
///   32-bit accumulator or index shows);
/// - segmented int8 into int32, inclusive and exclusive (init 7), heads around 2^31 and 2^32
///   (segments of lengths 1 to 2^31): in + flags + out = 25.8 GB; the values (i mod 227) - 113
///   sum to 0 over a period, so every segment's prefix fits int32;
/// - int32 in place, inclusive: 2^32 + 1001 elements, 17.2 GB.
/// The inputs are generated on the GPU from the periodic pattern, whose prefix sums have a
/// closed form; a check kernel compares EVERY output element with it (counting mismatches and
/// reporting the first). At most 38.7 GB of GPU memory at a time; a test skips when the GPU
/// has less free memory than it needs.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "large_support.cuh"

namespace parprim_cuda_test::scans {
namespace {

using large::device_array;
using large::fill_periodic;
using large::two32;
constexpr std::int64_t period = 227;

/// \brief The sum of the first m elements of the pattern.
__host__ __device__ std::int64_t prefix(std::size_t m, std::int64_t offset) {
  return large::periodic_prefix(m, period, offset);
}

/// \brief Up to 16 segment heads, sorted, heads[0] == 0.
struct heads_t {
  std::size_t at[16];
  int count;
};

/// \brief Whether out[i] matches the closed form. Plain (heads.count == 1): inclusive
/// out[i] = P(i + 1), exclusive out[i] = init + P(i). Segmented, h the head of i: inclusive
/// P(i + 1) - P(h); exclusive init + P(i) - P(h).
template <class Acc>
struct scan_right {
  const Acc* out;
  std::int64_t offset;
  heads_t heads;
  bool exclusive;
  std::int64_t init;
  __device__ bool operator()(std::size_t i) const {
    std::size_t h = 0;
    for (int k = 0; k < heads.count; ++k)
      if (heads.at[k] <= i) h = heads.at[k];
    const std::int64_t want = exclusive ? init + prefix(i, offset) - prefix(h, offset)
                                        : prefix(i + 1, offset) - prefix(h, offset);
    return static_cast<std::int64_t>(out[i]) == want;
  }
};

/// \brief "" when every element matches the closed form, else how many and the first.
template <class Acc>
std::string check(const Acc* out, std::size_t n, std::int64_t offset, const heads_t& heads,
                  bool exclusive, std::int64_t init) {
  return large::check_every(
      n, scan_right<Acc>{out, offset, heads, exclusive, init}, [&](std::size_t i) {
        return "out[" + std::to_string(i) +
               "] = " + std::to_string(static_cast<std::int64_t>(large::element_at(out, i)));
      });
}

TEST(CudaScanLarge, Int8IntoInt64PastTwoToThe32) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 4099;
  SKIP_WITHOUT_MEMORY(n * (1 + sizeof(std::int64_t)));
  device_array<std::int8_t> x(n);
  device_array<std::int64_t> out(n);
  ASSERT_NE(x.get(), nullptr);
  ASSERT_NE(out.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, period, -100);  // -100 .. 126
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_GT(prefix(n, -100), std::int64_t(1) << 35);  // the final prefix needs 64 bits
  const heads_t plain{{0}, 1};
  const parprim::device_span<const std::int8_t> in = x.span();
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    ASSERT_EQ(cudaMemset(out.get(), 0xA5, n * sizeof(std::int64_t)), cudaSuccess);
    parprim::inclusive_scan(rung, in, out.span(), parprim::plus{});
    EXPECT_EQ(check(out.get(), n, -100, plain, false, 0), "")
        << scan_rung_name(rung) << " inclusive";
    ASSERT_EQ(cudaMemset(out.get(), 0xA5, n * sizeof(std::int64_t)), cudaSuccess);
    parprim::exclusive_scan(rung, in, out.span(), std::int64_t(-5), parprim::plus{});
    EXPECT_EQ(check(out.get(), n, -100, plain, true, -5), "")
        << scan_rung_name(rung) << " exclusive";
  });
}

TEST(CudaScanLarge, SegmentedInt8IntoInt32PastTwoToThe32) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 4099;
  SKIP_WITHOUT_MEMORY(n * (1 + 1 + sizeof(std::int32_t)));
  device_array<std::int8_t> x(n);
  device_array<std::uint8_t> flags(n);
  device_array<std::int32_t> out(n);
  ASSERT_NE(x.get(), nullptr);
  ASSERT_NE(flags.get(), nullptr);
  ASSERT_NE(out.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, period, -113);  // -113 .. 113, zero sum per period
  ASSERT_EQ(cudaMemset(flags.get(), 0, n), cudaSuccess);
  // Segments of 1, 30, 12314, ~2^31, 1, 1, ~2^31, 1, ~4k and 2 elements.
  const heads_t heads{{0, 1, 31, 12345, (std::size_t(1) << 31) - 1, std::size_t(1) << 31,
                       (std::size_t(1) << 31) + 1, two32 - 1, two32, n - 2},
                      10};
  for (int k = 1; k < heads.count; ++k) {
    const std::uint8_t one = static_cast<std::uint8_t>(k * 17 + 1);  // any non-zero byte
    ASSERT_EQ(cudaMemcpy(flags.get() + heads.at[k], &one, 1, cudaMemcpyHostToDevice), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const parprim::device_span<const std::int8_t> in = x.span();
  const parprim::device_span<const std::uint8_t> f = flags.span();
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    ASSERT_EQ(cudaMemset(out.get(), 0xA5, n * sizeof(std::int32_t)), cudaSuccess);
    parprim::segmented_inclusive_scan(rung, in, f, out.span(), parprim::plus{});
    EXPECT_EQ(check(out.get(), n, -113, heads, false, 0), "")
        << scan_rung_name(rung) << " segmented inclusive";
    ASSERT_EQ(cudaMemset(out.get(), 0xA5, n * sizeof(std::int32_t)), cudaSuccess);
    parprim::segmented_exclusive_scan(rung, in, f, out.span(), std::int32_t(7), parprim::plus{});
    EXPECT_EQ(check(out.get(), n, -113, heads, true, 7), "")
        << scan_rung_name(rung) << " segmented exclusive";
  });
}

TEST(CudaScanLarge, Int32InPlacePastTwoToThe32) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 1001;
  SKIP_WITHOUT_MEMORY(n * sizeof(std::int32_t));
  device_array<std::int32_t> x(n);
  ASSERT_NE(x.get(), nullptr);
  const heads_t plain{{0}, 1};
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    fill_periodic<<<4096, 256>>>(x.get(), n, period, -113);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    parprim::inclusive_scan(rung, x.span(), x.span(), parprim::plus{});
    EXPECT_EQ(check(x.get(), n, -113, plain, false, 0), "") << scan_rung_name(rung);
  });
}

}  // namespace
}  // namespace parprim_cuda_test::scans
