// Scratch: the GPU exact_plus reduce's launch shape (blocks per multiprocessor, i.e. its register
// cap and one-wave grid) and, with dev/base_exact.cuh (the exact kernels of an earlier commit in
// namespace `base`, generated: not kept in the tree), the earlier kernel, float and double. Each
// variant is checked bit for bit against the library's call and timed in rounds beside it,
// the library's plain `plus` reduce and CUB's Sum, in one process (one launch and the result's
// copy to the host, as the library's call).
// Not part of the build: SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh
// dev/exact_reduce_sweep.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <parprim/parprim.hpp>
#include <string>
#include <vector>

#if __has_include("base_exact.cuh")
#include "base_exact.cuh"
#define HAVE_BASE 1
#else
#define HAVE_BASE 0
#endif
#include "exact_inputs.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

/// One launch of `kernel` (the exact sum's, result rounded to F) over a one-wave grid of
/// `blocks` blocks per multiprocessor, and the result's copy to the host.
template <class F, class Kernel>
struct exact_launch {
  Kernel kernel;
  unsigned blocks;
  std::string name;
  F run(const F* d, std::size_t n, bool check = false) const {
    using acc_t = pp::detail::exact_accumulator<F>;
    constexpr unsigned block = 256;
    constexpr std::size_t tile = 32 * (128 / sizeof(F));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const std::size_t tiles = (n + tile - 1) / tile, per_round = block / 32;
    const std::size_t rounds = (tiles + per_round - 1) / per_round;
    const std::size_t grid = std::min<std::size_t>(rounds, std::size_t(sms) * blocks);
    static std::int64_t* partials = nullptr;
    static unsigned* ticket = nullptr;
    static F* out = nullptr;
    if (partials == nullptr) {
      cudaMalloc(&partials, 4096 * 128 * sizeof(std::int64_t));
      cudaMalloc(&ticket, sizeof(unsigned));
      cudaMemset(ticket, 0, sizeof(unsigned));
      cudaMalloc(&out, sizeof(F));
    }
    kernel<<<grid, block>>>(ppc::converting_load<F, F>{d}, n, partials, ticket, out, acc_t(F(0)));
    if (cudaGetLastError() != cudaSuccess) {
      std::printf("   %s: launch failed\n", name.c_str());
      ++failures;
    }
    F host;
    cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost);
    if (check) cudaMemset(out, 0xff, sizeof(F));  // (a failed launch cannot pass a later check)
    return host;
  }
};

template <class F, class Kernel>
exact_launch<F, Kernel> make(Kernel k, unsigned blocks, std::string name) {
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, 256, 0);
  name += " (" + std::to_string(a.numRegs) + " regs, " + std::to_string(a.localSizeBytes) +
          " B local, " + std::to_string(bps) + " blocks/SM)";
  return {k, blocks, name};
}

template <class F, unsigned B>
auto current() {
  return make<F>(ppc::reduce_exact_sum_kernel<256, ppc::converting_load<F, F>, F, F, B>, B,
                 "current, " + std::to_string(B) + " blocks");
}

template <class F>
void run(std::size_t n, bool wide) {
  const std::vector<F> h = exact_sweep_inputs<F>(n, wide);
  pp::device_buffer<F> in(h);
  const auto span = in.span();
  const F lib = pp::reduce(pp::cuda, span, F(0), pp::exact_plus{});
  std::size_t tb = 0;
  pp::device_buffer<F> out(1);
  cub::DeviceReduce::Sum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const auto variants = std::make_tuple(
#if HAVE_BASE
      make<F>(ppc::base::reduce_exact_sum_kernel<256, ppc::converting_load<F, F>, F, F, 2>, 2,
              "base, 2 blocks"),
#endif
      current<F, 2>(), current<F, 3>());
  std::printf("%s n=2^%d %s\n", sizeof(F) == 4 ? "float32" : "float64", __builtin_ctzll(n),
              exact_sweep_label(wide));
  const auto check = [&](const auto& v) {
    const F got = v.run(in.data(), n, true);
    if (std::memcmp(&lib, &got, sizeof got) != 0) {
      ++failures;
      std::printf("   %s: FAIL (not the library's bits)\n", v.name.c_str());
    }
  };
  std::apply([&](const auto&... v) { (check(v), ...); }, variants);
  for (int round = 0; round < 3; ++round) {
    const float plain = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::plus{}); });
    const float exact = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::exact_plus{}); });
    F host;
    const float cub = time_us([&] {
      cub::DeviceReduce::Sum(tmp, tb, in.data(), out.data(), (int)n);
      cudaMemcpy(&host, out.data(), sizeof host, cudaMemcpyDeviceToHost);
    });
    std::printf(
        " round %d: plain %.1f us, library exact %.1f (%.3fx plain's speed), CUB Sum %.1f\n", round,
        plain, exact, plain / exact, cub);
    const auto time = [&](const auto& v) {
      const float t = time_us([&] { (void)v.run(in.data(), n); });
      std::printf("   %-60s %.1f us, %.3fx plain's speed\n", v.name.c_str(), t, plain / t);
    };
    std::apply([&](const auto&... v) { (time(v), ...); }, variants);
    std::fflush(stdout);
  }
  cudaFree(tmp);
}

int main() {
  // EXACT_SWEEP_TYPES=double: the double rows only
  const char* types = std::getenv("EXACT_SWEEP_TYPES");
  if (types == nullptr || std::strcmp(types, "double") != 0) {
    run<float>(std::size_t(1) << 28, false);
    run<float>(std::size_t(1) << 28, true);
    run<float>(std::size_t(1) << 24, false);
  }
  run<double>(std::size_t(1) << 28, false);
  run<double>(std::size_t(1) << 28, true);
  run<double>(std::size_t(1) << 24, false);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
