// Scratch: rung 5's segmented tile (values + head bitmask) over shapes, register caps and look-back
// waits, against CUB's InclusiveSumByKey, int32 plus. Not part of the build:
// bash dev/sweep.sh dev/segmented_sweep.cu
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <parprim/parprim.hpp>

#include "median_time.cuh"
#include "swept_tuning.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;


static int failures = 0;
template <unsigned B, unsigned I>
struct shape {
  template <class P>
  using tile = ppc::tile_registers<B, I, 4, P>;
};

template <class T>
bool same(const pp::device_buffer<T>& out, const std::vector<T>& ref) {
  std::vector<T> got(ref.size());
  cudaMemcpy(got.data(), out.data(), ref.size() * sizeof(T), cudaMemcpyDeviceToHost);
  return std::memcmp(got.data(), ref.data(), ref.size() * sizeof(T)) == 0;
}

template <unsigned B, unsigned I, unsigned MinB, bool Segmented = true>
void shape_run(std::size_t n, const int* in, int* out, const std::uint8_t* fl,
               const pp::device_buffer<int>& outb, const std::vector<int>& ref, float cubk) {
  using S = std::conditional_t<Segmented, ppc::segmented_problem<int, int, pp::plus>,
                               ppc::plain_problem<int, int, pp::plus>>;
  S sp;
  if constexpr (Segmented)
    sp = S{in, fl, out, n, pp::plus{}, false, 0, {}, nullptr};
  else
    sp = S{in, out, n, pp::plus{}, false, {}};
  using D = ppc::single_pass_look_back<shape<B, I>::template tile, S, swept_tuning<MinB>>;
  auto k = ppc::scan_look_back_kernel<typename D::tile, S, 1, MinB>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, B, 0);
  ppc::launch_options o{};
  std::printf("  %s %ux%u minB %u (%d regs, %d B local, %d blocks/SM):", Segmented ? "seg" : "plain", B, I, MinB, a.numRegs,
              (int)a.localSizeBytes, bps);
  for (auto d : {std::pair{700u, 350u}, std::pair{1200u, 650u}, std::pair{400u, 200u},
                 std::pair{1600u, 800u}}) {
    swept_first_ns = d.first;
    swept_pause_ns = d.second;
    cudaMemset(out, 0, n * sizeof(int));
    ppc::run_scan<D>(o, sp, "x");
    if (!same(outb, ref)) {
      ++failures;
      std::printf(" FAIL");
    }
    const float t = time_us([&] { ppc::run_scan<D>(o, sp, "x"); });
    std::printf("  {%u,%u} %.1f (%.2fx)", d.first, d.second, t, cubk / t);
  }
  std::printf("\n");
  std::fflush(stdout);
}

void run(std::size_t n, unsigned seg_len, bool sweep) {
  const bool plain_sweep = sweep && seg_len == 1024;
  std::mt19937_64 rng(std::random_device{}());
  std::vector<int> h(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : h) x = int(rng() % 201) - 100;
  for (std::size_t i = 0; i < n; ++i)
    f[i] = seg_len == 0 ? (rng() % 1000) == 0 : (i % seg_len) == 0;
  std::vector<int> ref(n), ref_ex(n);
  pp::segmented_inclusive_scan(pp::seq, h, f, ref, pp::plus{});
  pp::segmented_exclusive_scan(pp::seq, h, f, ref_ex, 5, pp::plus{});
  pp::device_buffer<int> in(n), out(n), keys(n);
  pp::device_buffer<std::uint8_t> fl(n);
  std::vector<int> hk(n);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) hk[i] = (key += f[i]);
  cudaMemcpy(in.data(), h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(keys.data(), hk.data(), n * 4, cudaMemcpyHostToDevice);
  std::size_t tk = 0, tb = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, tk, keys.data(), in.data(), out.data(), (int)n);
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp;
  cudaMalloc(&tmp, std::max(tk, tb));
  const float cubk = time_us([&] { cub::DeviceScan::InclusiveSumByKey(tmp, tk, keys.data(), in.data(), out.data(), (int)n); });
  const float cub = time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
  cudaFree(tmp);
  const float copy = time_us([&] { cudaMemcpyAsync(out.data(), in.data(), n * 4, cudaMemcpyDeviceToDevice); });
  pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), pp::plus{});
  if (!same(out, ref)) { ++failures; std::printf("FAIL seg k5\n"); }
  pp::segmented_exclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), 5, pp::plus{});
  if (!same(out, ref_ex)) { ++failures; std::printf("FAIL seg k5 exclusive\n"); }
  const auto k4 = pp::cuda.scan_kernel(pp::cuda_scan::k4_warp_reduce_then_scan);
  pp::segmented_inclusive_scan(k4, in.span(), fl.span(), out.span(), pp::plus{});
  if (!same(out, ref)) { ++failures; std::printf("FAIL seg k4\n"); }
  const float k5 = time_us([&] { pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), pp::plus{}); });
  const float k5x = time_us([&] { pp::segmented_exclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), 5, pp::plus{}); });
  const float t4 = time_us([&] { pp::segmented_inclusive_scan(k4, in.span(), fl.span(), out.span(), pp::plus{}); });
  const float plain = time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); });
  std::printf("n=2^%d seg=%u copy %.1f | CUB ByKey %.1f  k5 %.1f (%.2fx)  k5 excl %.1f  k4 %.1f | plain: CUB %.1f k5 %.1f (%.2fx)\n",
              __builtin_ctzll(n), seg_len, copy, cubk, k5, cubk / k5, k5x, t4, cub, plain, cub / plain);
  std::fflush(stdout);
  if (!sweep) return;
  shape_run<256, 16, 4>(n, in.data(), out.data(), fl.data(), out, ref, cubk);
  shape_run<256, 20, 4>(n, in.data(), out.data(), fl.data(), out, ref, cubk);
  shape_run<256, 24, 4>(n, in.data(), out.data(), fl.data(), out, ref, cubk);
  shape_run<256, 24, 3>(n, in.data(), out.data(), fl.data(), out, ref, cubk);
  shape_run<256, 32, 3>(n, in.data(), out.data(), fl.data(), out, ref, cubk);
  if (!plain_sweep) return;
  std::vector<int> pref(n);
  pp::inclusive_scan(pp::seq, h, pref, pp::plus{});
  shape_run<256, 24, 0, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
  shape_run<256, 24, 4, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
  shape_run<256, 28, 4, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
  shape_run<256, 32, 4, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
  shape_run<256, 32, 0, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
  shape_run<512, 16, 2, false>(n, in.data(), out.data(), fl.data(), out, pref, cub);
}

int main() {
  if (std::getenv("PROFILE")) {  // one library call each, for ncu: plain then segmented, 2^24
    const std::size_t n = std::size_t(1) << 24;
    pp::device_buffer<int> in(n), out(n);
    pp::device_buffer<std::uint8_t> fl(n);
    std::vector<int> h(n, 3);
    std::vector<std::uint8_t> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = i % 1024 == 0;
    cudaMemcpy(in.data(), h.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
    pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{});
    pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), pp::plus{});
    return 0;
  }
  run(std::size_t(1) << 20, 1024, false);
  run(std::size_t(1) << 24, 1024, true);
  run(std::size_t(1) << 28, 1024, true);
  run(std::size_t(1) << 28, 32, true);
  run(std::size_t(1) << 28, 0, false);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
