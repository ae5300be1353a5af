// Scratch: rung 6's deterministic look-back (the fixed tree) on float32 and float64 sums: checks
// that the library's call stays within a bound of a double reference and gives the same bits
// again, and times it in three interleaved rounds against CUB InclusiveSum,
// `.deterministic(false)` (the tree look-back) and the library's integer scan of the same bytes.
// (The forms of this file at b4282b1 and dddced8 swept the look-back's waits and levels polled at
// once: docs/results/h200/fixed-tree-closing/.)
// Not part of the build: bash dev/sweep.sh dev/rung6_float_sweep.cu (it calls the library's
// precompiled float scans: compile src/cuda, or SWEEP_LIB=<built libparprim_cuda.a>)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <vector>

#include "float_scan_inputs.cuh"
#include "sweep_support.cuh"

namespace pp = parprim;

static int failures = 0;

template <class T>
void run(std::size_t n) {
  const float_scan_inputs<T> inputs(n);
  const std::vector<T>& h = inputs.h;
  std::printf("%s n=%zu (seed %u)\n", sizeof(T) == 4 ? "float32" : "float64", n, inputs.seed);
  pp::device_buffer<T> in(n), out(n);
  cudaMemcpy(in.data(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  const auto din = pp::device_span<const T>(in.data(), n);
  const auto dout = pp::device_span<T>(out.data(), n);

  pp::inclusive_scan(pp::cuda, din, dout, pp::plus{});
  if (std::getenv("PROFILE") != nullptr) {  // one call each, deterministic first, for ncu
    pp::inclusive_scan(pp::cuda.deterministic(false), din, dout, pp::plus{});
    cudaDeviceSynchronize();
    return;
  }
  const std::vector<T> lib = read(out.data(), n);
  if (const std::size_t bad = inputs.outside_bound(lib)) {
    ++failures;
    std::printf("  FAIL: %zu outputs outside the bound\n", bad);
  }

  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp;
  cudaMalloc(&tmp, tb);

  // The integer scan of the same bytes (the deterministic float scans' target: within 5 %).
  using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  pp::device_buffer<I> iin(n), iout(n);
  cudaMemset(iin.data(), 1, n * sizeof(I));
  const auto iin_s = pp::device_span<const I>(iin.data(), n);
  const auto iout_s = pp::device_span<I>(iout.data(), n);
  for (int round = 0; round < 3; ++round) {
    const float c =
        time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
    const float det = time_us([&] { pp::inclusive_scan(pp::cuda, din, dout, pp::plus{}); });
    const float fast =
        time_us([&] { pp::inclusive_scan(pp::cuda.deterministic(false), din, dout, pp::plus{}); });
    const float ints = time_us([&] { pp::inclusive_scan(pp::cuda, iin_s, iout_s, pp::plus{}); });
    std::printf(
        "  round %d: CUB %.1f  deterministic %.1f (%.3fx)  deterministic(false) %.1f (%.3fx)  "
        "int%zu %.1f (det/int %.3f)\n",
        round, c, det, c / det, fast, c / fast, 8 * sizeof(I), ints, det / ints);
    std::fflush(stdout);
  }
  pp::inclusive_scan(pp::cuda, din, dout, pp::plus{});
  const bool same_bits = same(out.data(), lib);
  failures += !same_bits;
  std::printf("  deterministic again: %s\n", same_bits ? "same bits" : "DIFFERS");
  cudaFree(tmp);
}

int main() {
  // SWEEP_LOG2N: the sizes (log2 n, comma-separated; default 20,24,26,28).
  const char* sizes = std::getenv("SWEEP_LOG2N");
  for (const char* c = sizes != nullptr ? sizes : "20,24,26,28"; *c != '\0';) {
    char* end = nullptr;
    const std::size_t n = std::size_t(1) << std::strtoul(c, &end, 10);
    c = *end == ',' ? end + 1 : end;
    run<float>(n);
    run<double>(n);
  }
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
