#pragma once
/// \file
/// \brief Shared pieces of the tests past 2^32 elements (label `large`): inputs generated on
/// the GPU from a periodic pattern whose prefix sums have a closed form, device arrays that
/// report a failed allocation instead of throwing, a skip when the GPU lacks the memory, and a
/// check kernel that tests EVERY output element against a device-side expectation, counting the
/// mismatches and reporting the first.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test::large {

using scans::cuda_ok;

inline constexpr std::size_t two32 = std::size_t(1) << 32;

/// \brief x[i] = (i % period) + offset, written with a grid-stride loop.
template <class T>
__global__ void fill_periodic(T* x, std::size_t n, std::int64_t period, std::int64_t offset) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = static_cast<T>(static_cast<std::int64_t>(i % period) + offset);
}

/// \brief The sum of the first m elements of fill_periodic's pattern.
__host__ __device__ inline std::int64_t periodic_prefix(std::size_t m, std::int64_t period,
                                                        std::int64_t offset) {
  const auto p = static_cast<std::size_t>(period);
  const auto full = static_cast<std::int64_t>(m / p);
  const auto rest = static_cast<std::int64_t>(m % p);
  return full * (period * (period - 1) / 2 + offset * period) + rest * (rest - 1) / 2 +
         offset * rest;
}

/// \brief GPU memory of n elements; get() is null when cudaMalloc failed (the tests assert it).
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
  parprim::device_span<T> span() const { return {p_, n_}; }
  parprim::device_span<const T> cspan() const { return {p_, n_}; }

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

/// \brief Counts the i in [0, n) where `right(i)` is false, and the first of them.
template <class Right>
__global__ void count_wrong(std::size_t n, Right right, unsigned long long* bad,
                            unsigned long long* first_bad) {
  unsigned long long local_bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (!right(i)) {
      ++local_bad;
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
  if (local_bad) atomicAdd(bad, local_bad);
}

/// \brief "" when `right(i)` holds for every i in [0, n) (a device functor, copied to the
/// GPU), else how many do not and the first; `what(i)` describes element i on the host.
template <class Right, class What>
std::string check_every(std::size_t n, const Right& right, const What& what) {
  device_array<unsigned long long> counters(2);
  if (!counters.get()) return "cudaMalloc of the counters failed";
  const unsigned long long start[2] = {0, ~0ull};
  cuda_ok(cudaMemcpy(counters.get(), start, sizeof(start), cudaMemcpyHostToDevice), "cudaMemcpy");
  count_wrong<<<4096, 256>>>(n, right, counters.get(), counters.get() + 1);
  cuda_ok(cudaGetLastError(), "count_wrong launch");
  unsigned long long result[2] = {};
  cuda_ok(cudaMemcpy(result, counters.get(), sizeof(result), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (result[0] == 0) return "";
  return std::to_string(result[0]) + " of " + std::to_string(n) +
         " elements are wrong; the first: " + what(static_cast<std::size_t>(result[1]));
}

/// \brief One element of GPU memory, copied to the host.
template <class T>
T element_at(const T* p, std::size_t i) {
  T v{};
  cuda_ok(cudaMemcpy(&v, p + i, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return v;
}

}  // namespace parprim_cuda_test::large
