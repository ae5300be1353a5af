/// \file
/// \brief The per-segment calls past 2^32 (label `large`): 64-bit element and segment indices
/// through segmented_reduce (offsets and head flags), reduce_by_key and the scans by key.
/// - Offsets over 2^32 + 4099 int8 elements into int32 results: segments of one element, runs
///   of thousands of empty segments, segments around the tile and block sizes, segments of
///   65536, segments of 2^31 and more, heads at 2^31 and 2^32 and empty segments at the end.
/// - More than 2^32 segments (int32 offsets, 2^32 + 12293 of them, all but 12293 empty, in one
///   run inside the first tile): the segments' numbers pass 32 bits inside a tile.
/// - Keys i / 1000 (int32) and head flags every 1000 elements over 2^32 + 4099 elements (runs
///   straddle 2^31 and 2^32): reduce_by_key and segmented_reduce into outputs of exactly the
///   number of segments and (flags) of room for n, inclusive and exclusive scans by key.
/// The values (i mod 227) - 113 sum to 0 over a period, so every segment's sum fits int32 and
/// has a closed form; a kernel checks EVERY result against it. Outputs are filled with 0xA5
/// bytes first, so a result not written shows. At most 38.7 GB of GPU memory at a time; a test
/// skips when the GPU has less free memory than it needs.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "large_support.cuh"

namespace parprim_cuda_test::large {
namespace {

constexpr std::int64_t period = 227;
constexpr std::int64_t offset = -113;  // values -113 .. 113, zero sum per period
constexpr std::int32_t init = 7;

/// \brief The sum of the pattern's elements [b, e).
__host__ __device__ std::int64_t sum_of(std::size_t b, std::size_t e) {
  return periodic_prefix(e, period, offset) - periodic_prefix(b, period, offset);
}

/// \brief out[s] = init + the sum of segment s, the segments given by begin offsets.
template <class I>
struct offsets_result_right {
  const I* begins;
  const std::int32_t* out;
  __device__ bool operator()(std::size_t s) const {
    const auto b = static_cast<std::size_t>(begins[s]), e = static_cast<std::size_t>(begins[s + 1]);
    return static_cast<std::int64_t>(out[s]) == init + sum_of(b, e);
  }
};

/// \brief Runs of `run` elements (the last one shorter): keys_out[r] = r (where given) and
/// out[r] = base + the run's sum.
struct run_result_right {
  std::size_t n, run;
  const std::int32_t* keys_out;  // null: not checked
  const std::int32_t* out;
  std::int32_t base;
  __device__ bool operator()(std::size_t r) const {
    const std::size_t b = r * run, e = b + run < n ? b + run : n;
    if (keys_out != nullptr && keys_out[r] != static_cast<std::int32_t>(r)) return false;
    return static_cast<std::int64_t>(out[r]) == base + sum_of(b, e);
  }
};

/// \brief The scans by key over runs of `run`: inclusive out[i] = the run's sum through i,
/// exclusive init + its sum before i.
struct scan_by_key_right {
  std::size_t run;
  const std::int32_t* out;
  bool exclusive;
  __device__ bool operator()(std::size_t i) const {
    const std::size_t h = i / run * run;
    const std::int64_t want = exclusive ? init + sum_of(h, i) : sum_of(h, i + 1);
    return static_cast<std::int64_t>(out[i]) == want;
  }
};

/// \brief keys[i] = i / run; flags[i] non-zero (any byte) where i is a multiple of run.
__global__ void fill_runs(std::int32_t* keys, std::uint8_t* flags, std::size_t n, std::size_t run) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (keys != nullptr) keys[i] = static_cast<std::int32_t>(i / run);
    if (flags != nullptr) flags[i] = i % run == 0 ? static_cast<std::uint8_t>(i % 7 + 1) : 0;
  }
}

/// \brief Begin offsets of `lengths` appended one segment at a time.
class offsets_builder {
 public:
  std::vector<std::int64_t> begins{0};
  void add(std::size_t length, std::size_t times = 1) {
    for (std::size_t t = 0; t < times; ++t)
      begins.push_back(begins.back() + static_cast<std::int64_t>(length));
  }
  /// One segment up to element `end`.
  void up_to(std::size_t end) { add(end - static_cast<std::size_t>(begins.back())); }
  std::size_t at() const { return static_cast<std::size_t>(begins.back()); }
};

TEST(CudaPerSegmentPastTwoToThe32, Offsets) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 4099;
  SKIP_WITHOUT_MEMORY(n);
  offsets_builder o;
  o.add(1, 5000);
  o.add(0, 3);
  for (std::size_t length : {31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097})
    o.add(length);
  o.add(0, 10000);  // a tile spans more segments than it has threads or elements
  o.add(1, 5000);
  o.add(32, 1000);
  ASSERT_LE(o.at(), (std::size_t(1) << 31) - 2);
  o.up_to((std::size_t(1) << 31) - 2);  // a segment of almost 2^31
  o.add(1, 4);                          // heads at 2^31 - 2 .. 2^31 + 1
  while (o.at() + 65536 <= two32 - 100000) o.add(65536);
  ASSERT_LE(o.at(), two32 - 3);
  o.up_to(two32 - 3);
  o.add(1, 6);  // heads at 2^32 - 3 .. 2^32 + 2
  o.add(0, 5000);
  o.add(1, 1000);
  o.add(32, 50);
  while (o.at() + 1024 <= n - 10) o.add(1024);
  ASSERT_LE(o.at(), n - 10);
  o.up_to(n - 10);
  o.add(1, 10);
  o.add(0, 2);  // empty segments after the last element
  ASSERT_EQ(o.at(), n);
  const std::size_t k = o.begins.size() - 1;

  device_array<std::int8_t> x(n);
  device_array<std::int64_t> begins(k + 1);
  device_array<std::int32_t> out(k);
  ASSERT_NE(x.get(), nullptr);
  ASSERT_NE(begins.get(), nullptr);
  ASSERT_NE(out.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, period, offset);
  ASSERT_EQ(cudaMemcpy(begins.get(), o.begins.data(), (k + 1) * sizeof(std::int64_t),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemset(out.get(), 0xA5, k * sizeof(std::int32_t)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  parprim::segmented_reduce(parprim::cuda, x.cspan(), parprim::offsets(begins.cspan()), out.span(),
                            init, parprim::plus{});
  const auto what = [&](std::size_t s) {
    return "segment " + std::to_string(s) + " [" + std::to_string(o.begins[s]) + ", " +
           std::to_string(o.begins[s + 1]) + "): " + std::to_string(element_at(out.get(), s)) +
           ", want " + std::to_string(init + sum_of(o.begins[s], o.begins[s + 1]));
  };
  EXPECT_EQ(check_every(k, offsets_result_right<std::int64_t>{begins.get(), out.get()}, what), "")
      << k << " segments";
}

/// \brief begins[s] = s below `first_empty`, then `first_empty` for `empty` segments, then one
/// more each (segments of one element) up to n.
__global__ void fill_empty_run_begins(std::int32_t* begins, std::size_t count,
                                      std::size_t first_empty, std::size_t empty) {
  for (std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; s < count;
       s += std::size_t(gridDim.x) * blockDim.x)
    begins[s] = static_cast<std::int32_t>(s < first_empty           ? s
                                          : s < first_empty + empty ? first_empty
                                                                    : s - empty);
}

TEST(CudaPerSegmentPastTwoToThe32, SegmentNumbers) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = 3 * 4096 + 5, first_empty = 100, empty = two32;
  const std::size_t k = n + empty;  // k + 1 begins: the last is n
  SKIP_WITHOUT_MEMORY((k + 1) * sizeof(std::int32_t) + k * sizeof(std::int32_t) + n);
  device_array<std::int8_t> x(n);
  device_array<std::int32_t> begins(k + 1);
  device_array<std::int32_t> out(k);
  ASSERT_NE(x.get(), nullptr);
  ASSERT_NE(begins.get(), nullptr);
  ASSERT_NE(out.get(), nullptr);
  fill_periodic<<<64, 256>>>(x.get(), n, period, offset);
  fill_empty_run_begins<<<4096, 256>>>(begins.get(), k + 1, first_empty, empty);
  ASSERT_EQ(cudaMemset(out.get(), 0xA5, k * sizeof(std::int32_t)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(element_at(begins.get(), k), static_cast<std::int32_t>(n));
  parprim::segmented_reduce(parprim::cuda, x.cspan(), parprim::offsets(begins.cspan()), out.span(),
                            init, parprim::plus{});
  const auto what = [&](std::size_t s) {
    const auto b = static_cast<std::size_t>(element_at(begins.get(), s));
    const auto e = static_cast<std::size_t>(element_at(begins.get(), s + 1));
    return "segment " + std::to_string(s) + " [" + std::to_string(b) + ", " + std::to_string(e) +
           "): " + std::to_string(element_at(out.get(), s)) + ", want " +
           std::to_string(init + sum_of(b, e));
  };
  EXPECT_EQ(check_every(k, offsets_result_right<std::int32_t>{begins.get(), out.get()}, what), "")
      << k << " segments";
}

TEST(CudaPerSegmentPastTwoToThe32, KeysAndFlags) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = two32 + 4099, run = 1000, k = (n + run - 1) / run;
  SKIP_WITHOUT_MEMORY(n * (1 + 2 * sizeof(std::int32_t)));
  device_array<std::int8_t> x(n);
  device_array<std::int32_t> out(n);  // the scans' outputs, then results with room for n
  device_array<std::int32_t> keys_out(k), results(k);
  ASSERT_NE(x.get(), nullptr);
  ASSERT_NE(out.get(), nullptr);
  ASSERT_NE(keys_out.get(), nullptr);
  ASSERT_NE(results.get(), nullptr);
  fill_periodic<<<4096, 256>>>(x.get(), n, period, offset);
  // run r's result at p (base: what the call adds to each run's sum)
  const auto result_at = [&](const std::int32_t* p, std::size_t r, std::int32_t base) {
    const std::size_t b = r * run, e = b + run < n ? b + run : n;
    return "run " + std::to_string(r) + " [" + std::to_string(b) + ", " + std::to_string(e) +
           "): " + std::to_string(element_at(p, r)) + ", want " +
           std::to_string(base + sum_of(b, e));
  };
  {
    device_array<std::int32_t> keys(n);
    ASSERT_NE(keys.get(), nullptr);
    fill_runs<<<4096, 256>>>(keys.get(), nullptr, n, run);
    ASSERT_EQ(cudaMemset(keys_out.get(), 0xA5, k * sizeof(std::int32_t)), cudaSuccess);
    ASSERT_EQ(cudaMemset(results.get(), 0xA5, k * sizeof(std::int32_t)), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(parprim::reduce_by_key(parprim::cuda, keys.cspan(), x.cspan(), keys_out.span(),
                                     results.span(), parprim::plus{}),
              k);
    EXPECT_EQ(check_every(k, run_result_right{n, run, keys_out.get(), results.get(), 0},
                          [&](std::size_t r) {
                            return result_at(results.get(), r, 0) + ", key " +
                                   std::to_string(element_at(keys_out.get(), r));
                          }),
              "")
        << "reduce_by_key";
    for (const bool exclusive : {false, true}) {
      ASSERT_EQ(cudaMemset(out.get(), 0xA5, n * sizeof(std::int32_t)), cudaSuccess);
      if (exclusive)
        parprim::exclusive_scan_by_key(parprim::cuda, keys.cspan(), x.cspan(), out.span(), init,
                                       parprim::plus{});
      else
        parprim::inclusive_scan_by_key(parprim::cuda, keys.cspan(), x.cspan(), out.span(),
                                       parprim::plus{});
      EXPECT_EQ(check_every(n, scan_by_key_right{run, out.get(), exclusive},
                            [&](std::size_t i) {
                              return "out[" + std::to_string(i) +
                                     "] = " + std::to_string(element_at(out.get(), i));
                            }),
                "")
          << (exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key");
    }
  }
  device_array<std::uint8_t> flags(n);
  ASSERT_NE(flags.get(), nullptr);
  fill_runs<<<4096, 256>>>(nullptr, flags.get(), n, run);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  // outputs of exactly k, then of room for n
  for (const bool room_for_n : {false, true}) {
    std::int32_t* const into = room_for_n ? out.get() : results.get();
    const std::size_t size = room_for_n ? n : k;
    ASSERT_EQ(cudaMemset(into, 0xA5, size * sizeof(std::int32_t)), cudaSuccess);
    EXPECT_EQ(parprim::segmented_reduce(parprim::cuda, x.cspan(), flags.cspan(),
                                        parprim::device_span<std::int32_t>(into, size), init,
                                        parprim::plus{}),
              k)
        << (room_for_n ? "outputs of n" : "outputs of k");
    EXPECT_EQ(check_every(k, run_result_right{n, run, nullptr, into, init},
                          [&](std::size_t r) { return result_at(into, r, init); }),
              "")
        << "segmented_reduce with head flags, " << (room_for_n ? "outputs of n" : "outputs of k");
  }
}

}  // namespace
}  // namespace parprim_cuda_test::large
