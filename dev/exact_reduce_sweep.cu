// Scratch: the GPU exact_plus reduce at several blocks per multiprocessor (its register cap and
// its one-wave grid), float and double: each variant checked bit for bit against the library's
// call, and timed beside it, the library's plain `plus` reduce and CUB's Sum, in one process.
// Not part of the build: SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh
// dev/exact_reduce_sweep.cu
#include <cstdio>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <parprim/parprim.hpp>
#include <vector>

#include "exact_inputs.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

template <class F, unsigned MinB>
void variant(const F* d, std::size_t n, F lib, float plain) {
  using acc_t = pp::detail::exact_accumulator<F>;
  using D = ppc::exact_sum_single_pass<F, acc_t, MinB>;
  auto k = ppc::reduce_exact_sum_kernel<D::block, ppc::converting_load<F, F>, F, acc_t, MinB>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, D::block, 0);
  const ppc::launch_options o{};
  const F got = ppc::run_synchronous<D>(o, d, n, acc_t(F(0)), pp::plus{}).template round<F>();
  const bool ok = std::memcmp(&got, &lib, sizeof got) == 0;
  failures += !ok;
  const float t = time_us([&] { (void)ppc::run_synchronous<D>(o, d, n, acc_t(F(0)), pp::plus{}); });
  std::printf("  minB %u (%d regs, %d B local, %d blocks/SM): %.1f us, %.3fx plain%s\n", MinB,
              a.numRegs, (int)a.localSizeBytes, bps, t, plain / t, ok ? "" : " FAIL");
  std::fflush(stdout);
}

template <class F>
void run(std::size_t n, bool wide) {
  const std::vector<F> h = exact_sweep_inputs<F>(n, wide);
  pp::device_buffer<F> in(h);
  const auto span = in.span();
  const F lib = pp::reduce(pp::cuda, span, F(0), pp::exact_plus{});
  const float exact = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::exact_plus{}); });
  const float plain = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::plus{}); });
  std::size_t tb = 0;
  pp::device_buffer<F> out(1);
  cub::DeviceReduce::Sum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  F host;
  const float cub = time_us([&] {
    cub::DeviceReduce::Sum(tmp, tb, in.data(), out.data(), (int)n);
    cudaMemcpy(&host, out.data(), sizeof host, cudaMemcpyDeviceToHost);
  });
  cudaFree(tmp);
  std::printf("%s n=2^%d %s: exact %.1f us, plain %.1f (exact %.3fx plain), CUB Sum %.1f\n",
              sizeof(F) == 4 ? "float32" : "float64", __builtin_ctzll(n), exact_sweep_label(wide),
              exact, plain, plain / exact, cub);
  if constexpr (sizeof(F) == 4) {
    variant<F, 3>(in.data(), n, lib, plain);
    variant<F, 4>(in.data(), n, lib, plain);
    variant<F, 5>(in.data(), n, lib, plain);
    variant<F, 6>(in.data(), n, lib, plain);
  } else {
    variant<F, 2>(in.data(), n, lib, plain);
    variant<F, 3>(in.data(), n, lib, plain);
    variant<F, 4>(in.data(), n, lib, plain);
    variant<F, 5>(in.data(), n, lib, plain);
  }
}

int main() {
  run<float>(std::size_t(1) << 28, false);
  run<float>(std::size_t(1) << 28, true);
  run<float>(std::size_t(1) << 24, false);
  run<double>(std::size_t(1) << 28, false);
  run<double>(std::size_t(1) << 28, true);
  run<double>(std::size_t(1) << 24, false);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
