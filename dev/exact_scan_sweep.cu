// Scratch: the GPU exact_plus inclusive scan, the two-launch driver at several blocks per
// multiprocessor (the scan kernel's register cap and the grid of both passes) and the one-pass
// experiment (exact_scan_one_pass.cuh), float and double: each variant checked bit for bit
// against the library's call, and timed beside it, the library's plain `plus` scan and CUB's
// InclusiveSum, in one process (`PROFILE=1`: one library call, float at 2^24, for ncu;
// `PROFILE=one`: two calls of the one-pass scan). Not part of the build:
// SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh dev/exact_scan_sweep.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <vector>

#if __has_include("base_exact.cuh")
#include "base_exact.cuh"
#define HAVE_BASE 1
#else
#define HAVE_BASE 0
#endif
#include "exact_inputs.cuh"
#include "exact_scan_one_pass.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

template <class F, unsigned Blocks, bool Base = false>
void variant(const F* in, F* out, std::size_t n, const std::vector<F>& lib, float plain) {
  using load_t = ppc::converting_load<F, F>;
#if HAVE_BASE
  using D = std::conditional_t<Base, ppc::base::exact_scan_two_pass<F, load_t, Blocks>,
                               ppc::exact_scan_two_pass<F, load_t, Blocks>>;
  auto k = Base ? ppc::base::scan_exact_sum_kernel<D::block, false, load_t, F, Blocks>
                : ppc::scan_exact_sum_kernel<D::block, false, load_t, F, Blocks>;
  using P = std::conditional_t<Base, ppc::base::exact_scan_problem<F, load_t>,
                               ppc::exact_scan_problem<F, load_t>>;
#else
  using D = ppc::exact_scan_two_pass<F, load_t, Blocks>;
  auto k = ppc::scan_exact_sum_kernel<D::block, false, load_t, F, Blocks>;
  using P = ppc::exact_scan_problem<F, load_t>;
#endif
  const P p{load_t{in}, out, n, false, {}};
  const ppc::launch_options o{};
  cudaMemset(out, 0, n * sizeof(F));
  ppc::run_scan<D>(o, p, "x");  // (sets the kernel's dynamic shared memory limit)
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &bps, k, D::block, Base ? 0 : ppc::exact_scan_two_pass<F, load_t, Blocks>::stage_bytes(2));
  const bool ok = same(out, lib);
  failures += !ok;
  const float t = time_us([&] { ppc::run_scan<D>(o, p, "x"); });
  std::printf(
      "  %s blocks %u (scan kernel %d regs, %d B local, %d blocks/SM): %.1f us, %.3fx plain%s\n",
      Base ? "base" : "current", Blocks, a.numRegs, (int)a.localSizeBytes, bps, t, t / plain,
      ok ? "" : " FAIL");
  std::fflush(stdout);
}

// the one-pass scan (exact_scan_one_pass.cuh) checked and timed beside the two-launch variant
template <class F>
void one_pass(const F* in, F* out, std::size_t n, const std::vector<F>& lib, float plain) {
  using load_t = ppc::converting_load<F, F>;
  using D = ppc::exact_scan_look_back<F, load_t>;
  const ppc::exact_scan_problem<F, load_t> p{load_t{in}, out, n, false, {}};
  const ppc::launch_options o{};
  cudaMemset(out, 0, n * sizeof(F));
  ppc::run_scan<D>(o, p, "x");
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, ppc::scan_exact_look_back_kernel<D::block, false, load_t, F>);
  const bool ok = same(out, lib);
  failures += !ok;
  const float t = time_us([&] { ppc::run_scan<D>(o, p, "x"); });
  std::printf("  one pass (%d regs, %d B local): %.1f us, %.3fx plain%s\n", a.numRegs,
              (int)a.localSizeBytes, t, t / plain, ok ? "" : " FAIL");
  std::fflush(stdout);
}

template <class F>
void run(std::size_t n, bool wide) {
  const std::vector<F> h = exact_sweep_inputs<F>(n, wide);
  pp::device_buffer<F> in(h), out(n);
  pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{});
  std::vector<F> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * sizeof(F), cudaMemcpyDeviceToHost);
  const float exact =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{}); });
  const float plain =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); });
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub =
      time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
  cudaFree(tmp);
  std::printf("%s n=2^%d %s: exact %.1f us, plain %.1f (exact %.3fx plain), CUB %.1f\n",
              sizeof(F) == 4 ? "float32" : "float64", __builtin_ctzll(n), exact_sweep_label(wide),
              exact, plain, exact / plain, cub);
  for (int round = 0; round < 3; ++round) {
    const float plain =
        time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); });
    std::printf(" round %d: plain %.1f us\n", round, plain);
#if HAVE_BASE
    variant<F, 2, true>(in.data(), out.data(), n, lib, plain);
#endif
    variant<F, 2>(in.data(), out.data(), n, lib, plain);
    one_pass<F>(in.data(), out.data(), n, lib, plain);
  }
}

int main() {
  if (const char* profile = std::getenv("PROFILE")) {  // float 2^24 in (-1, 1), for ncu
    const std::size_t n = std::size_t(1) << 24;
    const std::vector<float> h = exact_sweep_inputs<float>(n, false);
    pp::device_buffer<float> in(h), out(n);
    if (std::strcmp(profile, "one") == 0) {  // the one-pass scan, twice
      using load_t = ppc::converting_load<float, float>;
      const ppc::exact_scan_problem<float, load_t> p{load_t{in.data()}, out.data(), n, false,
                                                     parprim::detail::exact_accumulator<float>{}};
      for (int i = 0; i < 2; ++i)
        ppc::run_scan<ppc::exact_scan_look_back<float, load_t>>(ppc::launch_options{}, p, "x");
      return 0;
    }
    pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::exact_plus{});  // one library call
    return 0;
  }
  run<float>(std::size_t(1) << 28, false);
  run<float>(std::size_t(1) << 28, true);
  run<float>(std::size_t(1) << 24, false);
  run<double>(std::size_t(1) << 28, false);
  run<double>(std::size_t(1) << 24, false);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
