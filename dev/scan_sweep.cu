// Scratch: rung 5 as dispatched by the library, against CUB, deterministic and not.
// Not part of the build: bash dev/sweep.sh dev/scan_sweep.cu
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
/// Rung 5 by name (parprim::cuda is rung 6 since 17367c7).
static const auto k5_policy = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);


using no_prefetch = ppc::look_back_tuning;  // run I compared a prefetching variant (docs/kernels.md)

static int failures = 0;

template <class T>
void check(const char* what, const pp::device_buffer<T>& out, const std::vector<T>& ref) {
  std::vector<T> got(ref.size());
  cudaMemcpy(got.data(), out.data(), ref.size() * sizeof(T), cudaMemcpyDeviceToHost);
  if (std::memcmp(got.data(), ref.data(), ref.size() * sizeof(T)) != 0) {
    ++failures;
    std::printf("FAIL %s\n", what);
  }
}

template <class T>
void run_type(std::size_t n, const char* tname) {
  std::mt19937_64 rng(std::random_device{}());
  std::vector<T> h(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : h) x = T(int(rng() % 201) - 100);
  for (std::size_t i = 0; i < n; ++i) f[i] = (rng() % 1024) == 0;
  std::vector<T> ref(n), segref(n);
  pp::inclusive_scan(pp::seq, h, ref, pp::plus{});
  pp::segmented_inclusive_scan(pp::seq, h, f, segref, pp::plus{});
  pp::device_buffer<T> in(n), out(n);
  pp::device_buffer<std::uint8_t> fl(n);
  pp::device_buffer<int> keys(n);
  std::vector<int> hk(n);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) hk[i] = (key += f[i]);
  cudaMemcpy(in.data(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(keys.data(), hk.data(), n * 4, cudaMemcpyHostToDevice);
  std::size_t tb = 0, tk = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  cub::DeviceScan::InclusiveSumByKey(nullptr, tk, keys.data(), in.data(), out.data(), (int)n);
  void* tmp;
  cudaMalloc(&tmp, std::max(tb, tk));
  const float cub = time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); cudaStreamSynchronize(0); });
  const float cubk = time_us([&] { cub::DeviceScan::InclusiveSumByKey(tmp, tk, keys.data(), in.data(), out.data(), (int)n); cudaStreamSynchronize(0); });
  cudaFree(tmp);
  const float copy = time_us([&] { cudaMemcpyAsync(out.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToDevice); cudaStreamSynchronize(0); });
  pp::inclusive_scan(k5_policy, in.span(), out.span(), pp::plus{});
  check("k5 det", out, ref);
  pp::inclusive_scan(k5_policy.deterministic(false), in.span(), out.span(), pp::plus{});
  check("k5 nondet", out, ref);
  pp::segmented_inclusive_scan(k5_policy, in.span(), fl.span(), out.span(), pp::plus{});
  check("seg det", out, segref);
  pp::segmented_inclusive_scan(k5_policy.deterministic(false), in.span(), fl.span(), out.span(), pp::plus{});
  check("seg nondet", out, segref);
  const float k5 = time_us([&] { pp::inclusive_scan(k5_policy, in.span(), out.span(), pp::plus{}); });
  const float k5n = time_us([&] { pp::inclusive_scan(k5_policy.deterministic(false), in.span(), out.span(), pp::plus{}); });
  const float sg = time_us([&] { pp::segmented_inclusive_scan(k5_policy, in.span(), fl.span(), out.span(), pp::plus{}); });
  const float sgn = time_us([&] { pp::segmented_inclusive_scan(k5_policy.deterministic(false), in.span(), fl.span(), out.span(), pp::plus{}); });
  const float k4 = time_us([&] { pp::inclusive_scan(pp::cuda.scan_kernel(pp::cuda_scan::k4_warp_reduce_then_scan), in.span(), out.span(), pp::plus{}); });
  using P = ppc::plain_problem<T, T, pp::plus>;
  P pl{in.data(), out.data(), n, pp::plus{}, false, {}};
  ppc::launch_options od{}, on{};
  on.deterministic = false;
  using NP = ppc::single_pass_look_back<ppc::tile_rung5, P, no_prefetch>;
  ppc::run_scan<NP>(od, pl, "x");
  check("k5 no prefetch", out, ref);
  const float k5np = time_us([&] { ppc::run_scan<NP>(od, pl, "x"); });
  const float k5npn = time_us([&] { ppc::run_scan<NP>(on, pl, "x"); });
  std::printf("%-6s n=2^%d copy %7.1f | cub %7.1f  k5 %7.1f (%.2fx)  k5 nondet %7.1f  no-prefetch %7.1f / nondet %7.1f  k4 %7.1f | cub ByKey %7.1f  seg %7.1f (%.2fx)  seg nondet %7.1f us\n",
              tname, __builtin_ctzll(n), copy, cub, k5, cub / k5, k5n, k5np, k5npn, k4, cubk, sg, cubk / sg, sgn);
  std::fflush(stdout);
}

int main() {
  for (int lg : {24, 28}) {
    run_type<int>(std::size_t(1) << lg, "int32");
    run_type<float>(std::size_t(1) << lg, "float");
  }
  for (int lg : {27}) {
    run_type<long long>(std::size_t(1) << lg, "int64");
    run_type<double>(std::size_t(1) << lg, "double");
  }
  // an odd size (partial last tile) and a misaligned input (no prefetch) for correctness
  run_type<int>((std::size_t(1) << 26) + 12345, "int32");
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
