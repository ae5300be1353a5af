// Scratch: which paths the GPU exact float scan takes, seed by seed. The scan kernel's event
// hooks (PARPRIM_EXACT_SCAN_EVENT in kernels/scan_exact_sum.cuh, no-ops in the library) count,
// per warp: reads of the superaccumulator, tiles that took the exact-output pass, float tiles
// whose tile bound failed, carried prefixes that failed, element-by-element tiles, the prefix
// modes and the slice counts, and the warp's start and end time. Inputs uniform in (-1, 1) (or,
// EXACT_WIDE=1, exponents over -20..20) from fixed seeds, then every input family of the exact
// tests (tests/support/exact_values.hpp) at 2^20 + 3; every output checked bit for bit against
// parprim::seq. Built without the library's CUDA sources (their exact scans would be the
// hook-less instantiations):
// SWEEP_HOST_ONLY=1 bash dev/sweep.sh dev/exact_scan_paths.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

constexpr unsigned probe_warps = 1u << 14;
constexpr int probe_kinds = 14;
__device__ unsigned long long probe_counts[probe_warps][probe_kinds];

__device__ __forceinline__ void probe_event(int kind) {
  if (threadIdx.x % 32 != 0) return;
  const unsigned w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= probe_warps) return;
  if (kind == 8 || kind == 9) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    probe_counts[w][kind] = t;
  } else {
    ++probe_counts[w][kind];
  }
}
#define PARPRIM_EXACT_SCAN_EVENT(kind) probe_event(kind)

#include <cub/device/device_scan.cuh>
#include <parprim/backends/cuda/detail/exact_scan_launch.cuh>
#include <parprim/parprim.hpp>

#include "../tests/support/exact_values.hpp"
#include "exact_inputs.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static const char* names[probe_kinds] = {"reads",
                                         "exact outputs",
                                         "tile bound failed",
                                         "carried failed",
                                         "elementwise",
                                         "exact_double",
                                         "exact_pair",
                                         "checked",
                                         "t0",
                                         "t1",
                                         "levels 0",
                                         "levels 1",
                                         "levels 2",
                                         "levels 3"};

template <class F>
void run(std::size_t n, unsigned seed, bool wide, int mix = -1) {
  std::mt19937_64 rng(seed);
  const std::vector<F> h =
      mix >= 0 ? parprim_test::exact_input<F>(parprim_test::all_exact_mixes[mix], rng, n)
               : exact_sweep_inputs<F>(n, wide, seed);
  std::vector<F> ref(n);
  pp::inclusive_scan(pp::seq, std::span<const F>(h), std::span<F>(ref), pp::exact_plus{});
  F *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(F));
  cudaMalloc(&out, n * sizeof(F));
  cudaMemcpy(in, h.data(), n * sizeof(F), cudaMemcpyHostToDevice);
  using load_t = ppc::converting_load<F, F>;
  const ppc::launch_options o{};
  const auto call = [&] {
    ppc::run_exact_scan<F>(o, load_t{in}, out, n, ppc::scan_kind::inclusive, nullptr, nullptr,
                           "probe");
  };
  cudaMemset(out, 0, n * sizeof(F));
  std::vector<unsigned long long> zero(probe_warps * probe_kinds, 0);
  cudaMemcpyToSymbol(probe_counts, zero.data(), zero.size() * 8);
  call();
  cudaDeviceSynchronize();
  std::vector<unsigned long long> c(probe_warps * probe_kinds);
  cudaMemcpyFromSymbol(c.data(), probe_counts, c.size() * 8);
  std::vector<F> got(n);
  cudaMemcpy(got.data(), out, n * sizeof(F), cudaMemcpyDeviceToHost);
  const bool ok = std::memcmp(got.data(), ref.data(), n * sizeof(F)) == 0;
  const float t = time_us(call, 9);
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in, out, (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub = time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in, out, (int)n); }, 9);
  cudaFree(tmp);
  // per warp: totals, maxima, durations
  unsigned warps = 0;
  unsigned long long t0 = ~0ull, t1 = 0;
  std::vector<double> dur;
  unsigned long long total[probe_kinds] = {}, most[probe_kinds] = {};
  unsigned slowest = 0;
  for (unsigned w = 0; w < probe_warps; ++w) {
    const unsigned long long* r = &c[w * probe_kinds];
    if (r[8] == 0) continue;
    ++warps;
    t0 = std::min(t0, r[8]);
    t1 = std::max(t1, r[9]);
    dur.push_back(double(r[9] - r[8]) * 1e-3);
    if (r[9] - r[8] > c[slowest * probe_kinds + 9] - c[slowest * probe_kinds + 8]) slowest = w;
    for (int k = 0; k < probe_kinds; ++k)
      if (k != 8 && k != 9) {
        total[k] += r[k];
        most[k] = std::max(most[k], r[k]);
      }
  }
  std::vector<double> sorted = dur;
  std::sort(sorted.begin(), sorted.end());
  const auto pct = [&](double p) { return sorted[std::size_t(p * (sorted.size() - 1))]; };
  if (mix >= 0) {  // one line: the paths taken
    std::printf(
        "%s %zu %-24s: %s, %.1f us; reads %llu, exact-output passes %llu, "
        "elementwise %llu, modes %llu/%llu/%llu\n",
        sizeof(F) == 4 ? "float32" : "float64", n,
        parprim_test::exact_mix_name(parprim_test::all_exact_mixes[mix]),
        ok ? "bits equal" : "MISMATCH", t, total[0], total[1], total[4], total[5], total[6],
        total[7]);
    cudaFree(in);
    cudaFree(out);
    return;
  }
  std::printf(
      "%s 2^%d %s seed %u: %s, exact %.1f us, CUB %.1f; scan launch %.1f us; warp "
      "durations median %.1f p90 %.1f p99 %.1f max %.1f (warp %u)\n",
      sizeof(F) == 4 ? "float32" : "float64", __builtin_ctzll(n),
      wide ? "exponents -20..20" : "in (-1, 1)", seed, ok ? "bits equal" : "MISMATCH", t, cub,
      double(t1 - t0) * 1e-3, pct(0.5), pct(0.9), pct(0.99), sorted.back(), slowest);
  std::printf("  %-18s %12s %10s %10s\n", "event", "total", "max/warp", "slowest");
  for (int k = 0; k < probe_kinds; ++k)
    if (k != 8 && k != 9)
      std::printf("  %-18s %12llu %10llu %10llu\n", names[k], total[k], most[k],
                  c[slowest * probe_kinds + k]);
  // the warps with element-by-element tiles or many reads, and their times
  unsigned listed = 0;
  for (unsigned w = 0; w < probe_warps && listed < 12; ++w) {
    const unsigned long long* r = &c[w * probe_kinds];
    if (r[8] == 0 || (r[4] == 0 && r[1] == 0 && r[0] < 8)) continue;
    ++listed;
    std::printf(
        "  warp %u: %.1f us, reads %llu, elementwise %llu, exact outputs %llu, tile bound "
        "failed %llu, carried failed %llu\n",
        w, double(r[9] - r[8]) * 1e-3, r[0], r[4], r[1], r[2], r[3]);
  }
  std::fflush(stdout);
  cudaFree(in);
  cudaFree(out);
}

int main() {
  const bool wide = std::getenv("EXACT_WIDE") != nullptr;
  const int seeds = std::getenv("EXACT_SEEDS") ? std::atoi(std::getenv("EXACT_SEEDS")) : 4;
  for (int s = 1; s <= seeds; ++s) run<float>(std::size_t(1) << 28, unsigned(s), wide);
  run<float>(std::size_t(1) << 24, 1u, wide);
  run<double>(std::size_t(1) << 26, 1u, wide);
  if (!wide)
    for (int m = 0; m < int(std::size(parprim_test::all_exact_mixes)); ++m) {
      run<float>((std::size_t(1) << 20) + 3, 7u, false, m);
      run<double>((std::size_t(1) << 20) + 3, 7u, false, m);
    }
  return 0;
}
