// Scratch: the exact_plus inclusive scan through the public call, built against two trees (this
// one and an earlier one, dev/exact_paths_check.sh) and run in turn: per input, the exact scan,
// the plain `plus` scan and CUB's InclusiveSum (CUDA-event medians of AB_REPS synchronous calls)
// and a hash of the exact outputs (equal in both builds, or the bits moved). Inputs from fixed
// seeds (splitmix64): float32 2^28 uniform in (-1, 1) (seeds 1, 2), exponents over -20..20;
// float64 2^27 the same two families.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <vector>

#include "median_time.cuh"

namespace pp = parprim;

static std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class F>
void run(int log2n, std::uint64_t seed, bool wide, int reps) {
  const std::size_t n = std::size_t(1) << log2n;
  std::vector<F> h(n);
  std::uint64_t s = seed;
  for (auto& x : h) {
    const std::uint64_t w = splitmix(s);
    const double u = double(w >> 11) * 0x1p-52 - 1.0;  // [-1, 1)
    x = static_cast<F>(wide ? std::ldexp(u, int(w % 41) - 20) : u);
  }
  pp::device_buffer<F> in(h), out(n);
  pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{});
  const std::vector<F> got = out.to_host();
  std::uint64_t hash = 1469598103934665603ull;
  for (const F& x : got) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof(F));
    hash = (hash ^ b) * 1099511628211ull;
  }
  const float exact =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{}); }, reps);
  const float plain =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); }, reps);
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub =
      time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), n); }, reps);
  cudaFree(tmp);
  std::printf(
      "%s 2^%d %-17s seed %llu: exact %8.1f us, plain %7.1f, CUB %7.1f, exact/plain "
      "%.3f, hash %016llx\n",
      sizeof(F) == 4 ? "float32" : "float64", log2n, wide ? "exponents -20..20" : "in (-1, 1)",
      (unsigned long long)seed, exact, plain, cub, exact / plain, (unsigned long long)hash);
  std::fflush(stdout);
}

int main() {
  const int reps = std::getenv("AB_REPS") ? std::atoi(std::getenv("AB_REPS")) : 9;
  run<float>(28, 1, false, reps);
  run<float>(28, 2, false, reps);
  run<float>(28, 3, true, reps);
  run<float>(24, 1, false, reps);
  run<double>(27, 1, false, reps);
  run<double>(27, 3, true, reps);
  run<double>(24, 3, true, reps);
  return 0;
}
