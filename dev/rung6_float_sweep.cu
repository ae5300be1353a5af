// Scratch: rung 6's deterministic look-back (the fixed tree) on float32 and float64 sums: this
// sweeps the look-back's settings, checking that every setting gives the same bits as the library's
// call (the grouping must not depend on timing) and stays within a bound of a double reference,
// and times each against CUB InclusiveSum and `.deterministic(false)` in the same process, in
// three rounds, each with the library's call and CUB again: the library's waits, with the tiles
// that close a group of 32 sleeping shorter before their first poll.
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
namespace ppc = parprim::detail::cuda;

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
  const float cub =
      time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
  const float lib_t = time_us([&] { pp::inclusive_scan(pp::cuda, din, dout, pp::plus{}); });
  const float nondet =
      time_us([&] { pp::inclusive_scan(pp::cuda.deterministic(false), din, dout, pp::plus{}); });
  std::printf("  CUB %.1f  k6 deterministic %.1f (%.3fx)  deterministic(false) %.1f (%.3fx)\n", cub,
              lib_t, cub / lib_t, nondet, cub / nondet);

  using S = ppc::plain_problem<T, T, pp::plus>;
  const S sp{in.data(), out.data(), n, pp::plus{}, false, {}};
  auto sweep = [&](auto minb) {
    constexpr unsigned MinB = decltype(minb)::value;
    ppc::launch_options o{};  // deterministic
    // The library's waits for this many tiles, with the tiles that close a group of 32 (whose
    // totals the next tiles wait for) sleeping as long as the others before their first poll
    // (same) or shorter. (The levels of the fixed tree polled one, two or four at once were swept
    // by the form of this file at b4282b1: docs/results/h200/fixed-tree-closing/.)
    const ppc::look_back_delays lib_d =
        ppc::tma_look_back_tuning::delays<S>(ppc::ceil_div(n, ppc::tile_rung6<S>::tile_size), true);
    using D = ppc::single_pass_look_back<ppc::tile_rung6, S, swept_tuning<MinB>>;
    swept_first_ns = lib_d.first_ns;
    swept_pause_ns = lib_d.pause_ns;
    std::printf("  closing:");
    for (unsigned closing : {ppc::look_back_delays::same_as_first, 0u, 800u, 1600u}) {
      swept_closing_ns = closing;
      cudaMemset(out.data(), 0, n * sizeof(T));
      ppc::run_scan<D>(o, sp, "x");
      const bool same_bits = same(out.data(), lib);
      failures += !same_bits;
      const float t = time_us([&] { ppc::run_scan<D>(o, sp, "x"); });
      if (closing == ppc::look_back_delays::same_as_first)
        std::printf("  same %.1f (%.3fx)%s", t, cub / t, same_bits ? "" : " DIFFERS");
      else
        std::printf("  %u %.1f (%.3fx)%s", closing, t, cub / t, same_bits ? "" : " DIFFERS");
    }
    std::printf("\n");
    std::fflush(stdout);
  };
  for (int round = 0; round < 3; ++round) {
    const float c =
        time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
    const float again = time_us([&] { pp::inclusive_scan(pp::cuda, din, dout, pp::plus{}); });
    std::printf("  round %d: CUB %.1f  k6 deterministic %.1f (%.3fx)\n", round, c, again,
                c / again);
    sweep(std::integral_constant<unsigned, ppc::tile_rung6<S>::min_blocks_per_sm>{});
  }
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
