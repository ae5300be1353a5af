// Scratch: rung 5's segmented tile (values + head bitmask) over shapes, register caps and look-back
// waits, against CUB's InclusiveSumByKey, int32 plus. Not part of the build:
// bash dev/sweep.sh dev/segmented_sweep.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "sweep_support.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;
template <unsigned B, unsigned I>
struct shape {
  template <class P>
  using tile = ppc::tile_registers<B, I, 4, P>;
};

/// The look-back waits tried (first wait, pause between polls; ns).
static const std::vector<std::pair<unsigned, unsigned>> waits_tried = {
    {700, 350}, {1200, 650}, {400, 200}, {1600, 800}};

template <unsigned B, unsigned I, unsigned MinB, bool Segmented = true>
void shape_run(std::size_t n, const int* in, int* out, const std::uint8_t* fl,
               const std::vector<int>& ref, float anchor) {
  char label[48];
  std::snprintf(label, sizeof label, "%s %ux%u", Segmented ? "seg" : "plain", B, I);
  swept_variant<shape<B, I>::template tile, MinB>(
      label, int_plus_problem<Segmented>(in, fl, out, n), ref, anchor, waits_tried, failures);
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
  const cub_anchors c = time_cub(keys.data(), in.data(), out.data(), n);
  const float cub = c.sum, cubk = c.by_key;
  const float copy =
      time_us([&] { cudaMemcpyAsync(out.data(), in.data(), n * 4, cudaMemcpyDeviceToDevice); });
  pp::segmented_inclusive_scan(cuda_k5, in.span(), fl.span(), out.span(), pp::plus{});
  if (!same(out.data(), ref)) {
    ++failures;
    std::printf("FAIL seg k5\n");
  }
  pp::segmented_exclusive_scan(cuda_k5, in.span(), fl.span(), out.span(), 5, pp::plus{});
  if (!same(out.data(), ref_ex)) {
    ++failures;
    std::printf("FAIL seg k5 exclusive\n");
  }
  const auto k4 = pp::cuda.scan_kernel(pp::cuda_scan::k4_warp_reduce_then_scan);
  pp::segmented_inclusive_scan(k4, in.span(), fl.span(), out.span(), pp::plus{});
  if (!same(out.data(), ref)) {
    ++failures;
    std::printf("FAIL seg k4\n");
  }
  const float k5 = time_us(
      [&] { pp::segmented_inclusive_scan(cuda_k5, in.span(), fl.span(), out.span(), pp::plus{}); });
  const float k5x = time_us([&] {
    pp::segmented_exclusive_scan(cuda_k5, in.span(), fl.span(), out.span(), 5, pp::plus{});
  });
  const float t4 = time_us(
      [&] { pp::segmented_inclusive_scan(k4, in.span(), fl.span(), out.span(), pp::plus{}); });
  const float plain =
      time_us([&] { pp::inclusive_scan(cuda_k5, in.span(), out.span(), pp::plus{}); });
  std::printf(
      "n=2^%d seg=%u copy %.1f | CUB ByKey %.1f  k5 %.1f (%.2fx)  k5 excl %.1f  k4 %.1f | plain: "
      "CUB %.1f k5 %.1f (%.2fx)\n",
      __builtin_ctzll(n), seg_len, copy, cubk, k5, cubk / k5, k5x, t4, cub, plain, cub / plain);
  std::fflush(stdout);
  if (!sweep) return;
  shape_run<256, 16, 4>(n, in.data(), out.data(), fl.data(), ref, cubk);
  shape_run<256, 20, 4>(n, in.data(), out.data(), fl.data(), ref, cubk);
  shape_run<256, 24, 4>(n, in.data(), out.data(), fl.data(), ref, cubk);
  shape_run<256, 24, 3>(n, in.data(), out.data(), fl.data(), ref, cubk);
  shape_run<256, 32, 3>(n, in.data(), out.data(), fl.data(), ref, cubk);
  if (!plain_sweep) return;
  std::vector<int> pref(n);
  pp::inclusive_scan(pp::seq, h, pref, pp::plus{});
  shape_run<256, 24, 0, false>(n, in.data(), out.data(), fl.data(), pref, cub);
  shape_run<256, 24, 4, false>(n, in.data(), out.data(), fl.data(), pref, cub);
  shape_run<256, 28, 4, false>(n, in.data(), out.data(), fl.data(), pref, cub);
  shape_run<256, 32, 4, false>(n, in.data(), out.data(), fl.data(), pref, cub);
  shape_run<256, 32, 0, false>(n, in.data(), out.data(), fl.data(), pref, cub);
  shape_run<512, 16, 2, false>(n, in.data(), out.data(), fl.data(), pref, cub);
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
    pp::inclusive_scan(cuda_k5, in.span(), out.span(), pp::plus{});
    pp::segmented_inclusive_scan(cuda_k5, in.span(), fl.span(), out.span(), pp::plus{});
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
