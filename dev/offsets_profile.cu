// Scratch: one segmented_reduce with CSR offsets (int32 values and offsets, segments of
// OFFSETS_LEN elements, n = 2^OFFSETS_LOG2N), called OFFSETS_CALLS times, for ncu (the second
// call's tile kernel: --launch-skip 1 --launch-count 1). Checked against a host fold. Then as
// many calls of parprim::reduce over the same input and of CUB's DeviceSegmentedReduce::Sum over
// the same offsets (each synchronised): dev/offsets_kernel_times.sh times the three (ncu).
// Not part of the build: SWEEP_LIB=build-dev/libparprim_cuda.a bash dev/sweep.sh dev/offsets_profile.cu
#include <cub/device/device_segmented_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <parprim/parprim.hpp>

namespace pp = parprim;

static std::size_t env(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

int main() {
  const std::size_t n = std::size_t{1} << env("OFFSETS_LOG2N", 28);
  const std::size_t len = env("OFFSETS_LEN", 1024);
  const std::size_t calls = env("OFFSETS_CALLS", 2);
  std::mt19937_64 rng(std::random_device{}());
  std::vector<int> x(n);
  for (auto& v : x) v = int(rng() % 17) - 8;
  std::vector<std::int32_t> o{0};
  for (std::size_t at = 0; at < n;) o.push_back(std::int32_t(at = std::min(n, at + len)));
  const std::size_t k = o.size() - 1;
  pp::device_buffer<int> in(n), out(k);
  pp::device_buffer<std::int32_t> begins(k + 1);
  cudaMemcpy(in.data(), x.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(begins.data(), o.data(), (k + 1) * 4, cudaMemcpyHostToDevice);
  for (std::size_t c = 0; c < calls; ++c)
    pp::segmented_reduce(pp::cuda, pp::device_span<const int>(in.span()),
                         pp::offsets(pp::device_span<const std::int32_t>(begins.span())),
                         out.span(), 0, pp::plus{});
  std::vector<int> got(k);
  cudaMemcpy(got.data(), out.data(), k * 4, cudaMemcpyDeviceToHost);
  std::size_t wrong = 0;
  for (std::size_t s = 0; s < k; ++s) {
    long long sum = 0;
    for (std::int32_t i = o[s]; i < o[s + 1]; ++i) sum += x[i];
    wrong += static_cast<int>(sum) == got[s] ? 0 : 1;
  }
  long long total = 0;
  for (std::size_t c = 0; c < calls; ++c)
    total = pp::reduce(pp::cuda, pp::device_span<const int>(in.span()), 0LL, pp::plus{});
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), out.data(), int(k), begins.data(),
                                  begins.data() + 1);
  cudaMalloc(&temp, temp_bytes);
  for (std::size_t c = 0; c < calls; ++c) {
    cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), out.data(), int(k),
                                    begins.data(), begins.data() + 1);
    cudaStreamSynchronize(nullptr);
  }
  cudaFree(temp);
  long long want_total = 0;
  for (const int v : x) want_total += v;
  wrong += total == want_total ? 0 : 1;
  std::printf("n = %zu, segments of %zu (k = %zu): %zu wrong\n", n, len, k, wrong);
  return wrong == 0 ? 0 : 1;
}
