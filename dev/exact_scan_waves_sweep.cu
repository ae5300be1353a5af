// Scratch: the GPU exact_plus inclusive scan's two launches over 1, 2, 3, 4, 6 or 8 waves of
// blocks (exact_scan_two_pass's `Waves`: more, shorter warp runs, so a warp that meets a slow
// tile holds up less of the launch), float and double, each variant checked bit for bit against
// the library's call and timed beside it and the plain `plus` scan in one process; and the
// first launch alone (one wave). Not part of the build:
// SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh dev/exact_scan_waves_sweep.cu
#include <cstdio>
#include <cstring>
#include <parprim/parprim.hpp>
#include <random>
#include <vector>

#include "exact_inputs.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

template <class F, unsigned Waves>
float variant(const F* in, F* out, std::size_t n, const std::vector<F>& lib) {
  using load_t = ppc::converting_load<F, F>;
  using D = ppc::exact_scan_two_pass<F, load_t, ppc::exact_scan_tuning::scan_blocks_per_sm, Waves>;
  const ppc::exact_scan_problem<F, load_t> p{load_t{in}, out, n, false, {}};
  const ppc::launch_options o{};
  cudaMemset(out, 0, n * sizeof(F));
  ppc::run_scan<D>(o, p, "x");
  const bool ok = same(out, lib);
  failures += !ok;
  const float t = time_us([&] { ppc::run_scan<D>(o, p, "x"); });
  std::printf(" waves %u: %.1f us%s", Waves, t, ok ? "" : " FAIL");
  std::fflush(stdout);
  return t;
}

// the first launch alone, one wave (as exact_scan_two_pass plans it)
template <class F>
float first_launch(const F* in, std::size_t n) {
  using load_t = ppc::converting_load<F, F>;
  using acc_t = parprim::detail::exact_accumulator<F>;
  constexpr unsigned block = ppc::exact_scan_tuning::block_size, warps = block / 32;
  constexpr std::size_t tile = ppc::exact_warp_tile_v<F>;
  constexpr unsigned words = ppc::warp_digits<F>::word_count;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::size_t most = std::size_t(sms) * ppc::exact_scan_tuning::scan_blocks_per_sm * warps;
  const std::size_t tiles = (n + tile - 1) / tile;
  const std::size_t div = tiles < most ? tiles : most;
  const std::size_t per_warp = (tiles + div - 1) / div * tile;
  const std::size_t grid = (n + per_warp * warps - 1) / (per_warp * warps);
  acc_t* ws = nullptr;
  std::int64_t* bw = nullptr;
  cudaMalloc(&ws, grid * warps * sizeof(acc_t));
  cudaMalloc(&bw, grid * words * sizeof(std::int64_t));
  const float t = time_us([&] {
    ppc::scan_exact_partials_kernel<block, load_t, F>
        <<<unsigned(grid), block>>>(load_t{in}, n, per_warp, ws, bw);
  });
  cudaFree(ws);
  cudaFree(bw);
  return t;
}

template <class F>
void run(std::size_t n, bool wide, std::uint64_t seed) {
  const std::vector<F> h = exact_sweep_inputs<F>(n, wide, seed);
  pp::device_buffer<F> in(h), out(n);
  pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{});
  std::vector<F> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * sizeof(F), cudaMemcpyDeviceToHost);
  std::printf("%s n=2^%d %s, seed %llu\n", sizeof(F) == 4 ? "float32" : "float64",
              __builtin_ctzll(n), exact_sweep_label(wide), (unsigned long long)seed);
  for (int round = 0; round < 3; ++round) {
    const float plain =
        time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); });
    const float exact =
        time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{}); });
    std::printf(" round %d: plain %.1f us, library exact %.1f (%.3fx), first launch %.1f;", round,
                plain, exact, exact / plain, first_launch(in.data(), n));
    const float t[] = {
        variant<F, 1>(in.data(), out.data(), n, lib), variant<F, 2>(in.data(), out.data(), n, lib),
        variant<F, 3>(in.data(), out.data(), n, lib), variant<F, 4>(in.data(), out.data(), n, lib),
        variant<F, 6>(in.data(), out.data(), n, lib), variant<F, 8>(in.data(), out.data(), n, lib)};
    std::printf("\n   / plain:");
    for (float x : t) std::printf(" %.3f", x / plain);
    std::printf("\n");
  }
}

int main() {
  std::random_device rd;
  run<float>(std::size_t(1) << 28, false, rd());
  run<float>(std::size_t(1) << 28, false, rd());
  run<float>(std::size_t(1) << 28, true, rd());
  run<float>(std::size_t(1) << 24, false, rd());
  run<double>(std::size_t(1) << 27, false, rd());
  run<double>(std::size_t(1) << 27, true, rd());
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
