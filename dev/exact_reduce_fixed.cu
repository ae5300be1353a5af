// Scratch: the GPU exact_plus reduce's time against n, float and double, to find its fixed cost
// (the library's call, the kernel alone by CUDA events, the plain reduce beside). With
// PROFILE=<log2 n>: only the double library call at that n, three times (for ncu).
// Not part of the build: bash dev/sweep.sh dev/exact_reduce_fixed.cu
#include <cstdio>
#include <cstdlib>
#include <parprim/parprim.hpp>
#include <vector>

#include "exact_inputs.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

template <class F>
void run(std::size_t n) {
  const std::vector<F> h = exact_sweep_inputs<F>(n, false);
  pp::device_buffer<F> in(h);
  const auto span = in.span();
  using acc_t = pp::detail::exact_accumulator<F>;
  std::int64_t* partials = nullptr;
  unsigned* ticket = nullptr;
  F* out = nullptr;
  cudaMalloc(&partials, 4096 * 128 * sizeof(std::int64_t));
  cudaMalloc(&ticket, sizeof(unsigned));
  cudaMemset(ticket, 0, sizeof(unsigned));
  cudaMalloc(&out, sizeof(F));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  constexpr std::size_t tile = 32 * (128 / sizeof(F));
  const std::size_t rounds = ((n + tile - 1) / tile + 7) / 8;
  const std::size_t grid = std::min<std::size_t>(rounds, std::size_t(sms) * 2);
  auto kernel = ppc::reduce_exact_sum_kernel<256, ppc::converting_load<F, F>, F, F, 2>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, kernel);
  const auto launch = [&] {
    kernel<<<grid, 256>>>(ppc::converting_load<F, F>{in.data()}, n, partials, ticket, out,
                          acc_t(F(0)));
  };
  launch();
  F k = 0;
  cudaMemcpy(&k, out, sizeof k, cudaMemcpyDeviceToHost);
  const F lib = pp::reduce(pp::cuda, span, F(0), pp::exact_plus{});
  std::printf("%s n=2^%d grid %zu (%d regs, %zu B local)%s\n", sizeof(F) == 4 ? "float32" : "float64",
              __builtin_ctzll(n), grid, a.numRegs, std::size_t(a.localSizeBytes),
              lib == k ? "" : " MISMATCH");
  for (int round = 0; round < 2; ++round) {
    const float plain = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::plus{}); });
    const float exact = time_us([&] { (void)pp::reduce(pp::cuda, span, F(0), pp::exact_plus{}); });
    const float alone = time_us([&] { launch(); });
    const float copied = time_us([&] {
      launch();
      F x;
      cudaMemcpy(&x, out, sizeof x, cudaMemcpyDeviceToHost);
    });
    std::printf("  plain %7.1f us  library exact %7.1f  kernel alone %7.1f  kernel + copy %7.1f\n",
                plain, exact, alone, copied);
  }
  cudaFree(partials);
  cudaFree(ticket);
  cudaFree(out);
}

int main() {
  if (const char* p = std::getenv("PROFILE")) {
    const std::size_t n = std::size_t(1) << std::atoi(p);
    const std::vector<double> h = exact_sweep_inputs<double>(n, false);
    pp::device_buffer<double> in(h);
    for (int i = 0; i < 3; ++i) (void)pp::reduce(pp::cuda, in.span(), 0.0, pp::exact_plus{});
    cudaDeviceSynchronize();
    return 0;
  }
  for (int lg : {10, 14, 16, 18, 20, 22, 24, 28}) {
    run<float>(std::size_t(1) << lg);
    run<double>(std::size_t(1) << lg);
  }
  return 0;
}
