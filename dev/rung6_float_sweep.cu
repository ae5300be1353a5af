// Scratch: rung 6's deterministic look-back (the fixed tree) on float32 and float64 sums: this
// sweeps the look-back waits, checking that every setting gives the same bits as the library's
// call (the grouping must not depend on timing) and stays within a bound of a double reference,
// and times each against CUB InclusiveSum and `.deterministic(false)` in the same process, in
// two rounds, each with the library's call and CUB again.
// Not part of the build: bash dev/sweep.sh dev/rung6_float_sweep.cu (it calls the library's
// precompiled float scans: compile src/cuda, or SWEEP_LIB=<built libparprim_cuda.a>)
#include <cstdio>
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
    using D = ppc::single_pass_look_back<ppc::tile_rung6, S, swept_tuning<MinB>>;
    std::printf("  minB %u:", MinB);
    ppc::launch_options o{};  // deterministic
    for (auto d : {std::pair{0u, 16u}, std::pair{400u, 100u}, std::pair{1200u, 650u},
                   std::pair{3200u, 800u}}) {
      swept_first_ns = d.first;
      swept_pause_ns = d.second;
      cudaMemset(out.data(), 0, n * sizeof(T));
      ppc::run_scan<D>(o, sp, "x");
      const bool same_bits = same(out.data(), lib);
      failures += !same_bits;
      const float t = time_us([&] { ppc::run_scan<D>(o, sp, "x"); });
      std::printf("  {%u,%u} %.1f (%.3fx)%s", d.first, d.second, t, cub / t,
                  same_bits ? "" : " DIFFERS");
    }
    std::printf("\n");
    std::fflush(stdout);
  };
  for (int round = 0; round < 2; ++round) {
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
  for (int log2n : {20, 24, 26, 28}) {
    const std::size_t n = std::size_t(1) << log2n;
    run<float>(n);
    run<double>(n);
  }
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
