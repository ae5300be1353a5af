// Scratch: rung 6's deterministic float sums (the fixed-tree look-back) with larger tiles: 7
// chunks of 16 bytes a thread (the library's: 7168 floats, 37,450 tiles at 2^28, four levels of
// the tree), 9 (9216 floats, 29,128 tiles, three levels) and 11, each checked run to run bit for
// bit and against a double reference's bound, timed beside the library's call, CUB's
// InclusiveSum and the library's int32 scan of the same bytes, three interleaved rounds.
// Not part of the build: SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh
// dev/rung6_float_tile_sweep.cu
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <utility>
#include <vector>

#include "float_scan_inputs.cuh"
#include "sweep_support.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

template <class P>
using tile9 = ppc::tile_shared_bulk<256, P, 9, 128, 6>;
template <class P>
using tile11 = ppc::tile_shared_bulk<256, P, 11, 128, 5>;

template <class T>
void run(std::size_t n) {
  const float_scan_inputs<T> inputs(n);
  const std::vector<T>& h = inputs.h;
  using I = std::conditional_t<sizeof(T) == 4, int, std::int64_t>;
  pp::device_buffer<T> in(n), out(n);
  pp::device_buffer<I> iin(n), iout(n);
  cudaMemset(iin.data(), 1, n * sizeof(I));
  cudaMemcpy(in.data(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  using S = ppc::plain_problem<T, T, pp::plus>;
  const S sp{in.data(), out.data(), n, pp::plus{}, false, {}};
  const ppc::launch_options o{};
  const auto check = [&](const char* name, auto&& call) {
    call();
    const std::vector<T> first = read(out.data(), n);
    cudaMemset(out.data(), 0, n * sizeof(T));
    call();
    const bool same_bits = same(out.data(), first);
    const std::size_t bad = inputs.outside_bound(first);
    if (!same_bits || bad) {
      ++failures;
      std::printf("  FAIL %s: %s, %zu outside the bound\n", name,
                  same_bits ? "same bits" : "bits differ", bad);
    }
  };
  const auto lib = [&] {
    pp::inclusive_scan(pp::cuda, std::as_const(in).span(), out.span(), pp::plus{});
  };
  const auto t9 = [&] {
    ppc::run_scan<ppc::single_pass_look_back<tile9, S, ppc::tma_look_back_tuning>>(o, sp, "x");
  };
  const auto t11 = [&] {
    ppc::run_scan<ppc::single_pass_look_back<tile11, S, ppc::tma_look_back_tuning>>(o, sp, "x");
  };
  check("library", lib);
  check("9 chunks", t9);
  check("11 chunks", t11);
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), n);
  void* tmp;
  cudaMalloc(&tmp, tb);
  std::printf("%s n=2^%d (seed %u)\n", sizeof(T) == 4 ? "float32" : "float64", __builtin_ctzll(n),
              inputs.seed);
  for (int round = 0; round < 3; ++round) {
    const float cub =
        time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), n); }, 25);
    const float l = time_us(lib, 25);
    const float a9 = time_us(t9, 25);
    const float a11 = time_us(t11, 25);
    const float ints = time_us(
        [&] { pp::inclusive_scan(pp::cuda, std::as_const(iin).span(), iout.span(), pp::plus{}); },
        25);
    std::printf(
        " round %d: CUB %.1f | 7 chunks (library) %.1f (%.3fx CUB) | 9 chunks %.1f (%.3fx) | 11 "
        "chunks %.1f (%.3fx) | int%d scan %.1f\n",
        round, cub, l, cub / l, a9, cub / a9, a11, cub / a11, int(8 * sizeof(I)), ints);
    std::fflush(stdout);
  }
  cudaFree(tmp);
}

int main() {
  for (int log2n : {16, 20, 24, 28}) run<float>(std::size_t(1) << log2n);
  for (int log2n : {16, 20, 24, 27}) run<double>(std::size_t(1) << log2n);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
