// Scratch: rung 6's tile shape (threads per block x 16-byte chunks per thread, blocks per SM)
// and look-back waits, int32 plus, plain and segmented, each checked against parprim::seq and
// timed against CUB in the same process. Not part of the build:
// bash dev/sweep.sh dev/rung6_shape_sweep.cu   (SWEEP_LIB=... to link a built library)
#include <cstdio>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <random>
#include <vector>

#include "median_time.cuh"
#include "swept_tuning.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;
/// The look-back waits tried (first wait, pause between polls; ns).
static std::vector<std::pair<unsigned, unsigned>> waits_tried = {
    {1200, 650}, {3200, 800}, {3200, 1600}};

template <unsigned Block, unsigned Chunks, unsigned Prefetch>
struct shape {
  template <class P>
  using tile = ppc::tile_shared_bulk<Block, P, Chunks, Prefetch>;
};

bool same(const int* d, const std::vector<int>& ref) {
  std::vector<int> got(ref.size());
  cudaMemcpy(got.data(), d, ref.size() * sizeof(int), cudaMemcpyDeviceToHost);
  return std::memcmp(got.data(), ref.data(), ref.size() * sizeof(int)) == 0;
}

template <bool Segmented, unsigned Block, unsigned Chunks, unsigned MinB, unsigned Prefetch = 0>
void variant(std::size_t n, const int* in, int* out, const std::uint8_t* fl,
             const std::vector<int>& ref, float anchor) {
  using S = std::conditional_t<Segmented, ppc::segmented_problem<int, int, pp::plus>,
                               ppc::plain_problem<int, int, pp::plus>>;
  S sp;
  if constexpr (Segmented)
    sp = S{in, fl, out, n, pp::plus{}, false, 0, {}, nullptr};
  else
    sp = S{in, out, n, pp::plus{}, false, {}};
  using D = ppc::single_pass_look_back<shape<Block, Chunks, Prefetch>::template tile, S,
                                       swept_tuning<MinB>>;
  auto k = ppc::scan_look_back_kernel<typename D::tile, S, 1, MinB>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, Block, 0);
  std::printf("  %s %ux%u minB %u prefetch %u (%d regs, %d B local, %d B smem, %d blocks/SM):",
              Segmented ? "seg  " : "plain", Block, Chunks * 4, MinB, Prefetch, a.numRegs,
              (int)a.localSizeBytes, (int)a.sharedSizeBytes, bps);
  ppc::launch_options o{};
  for (auto d : waits_tried) {
    swept_first_ns = d.first;
    swept_pause_ns = d.second;
    cudaMemset(out, 0, n * sizeof(int));
    ppc::run_scan<D>(o, sp, "x");
    const bool ok = same(out, ref);
    failures += !ok;
    const float t = time_us([&] { ppc::run_scan<D>(o, sp, "x"); });
    std::printf("  {%u,%u} %.1f (%.3fx)%s", d.first, d.second, t, anchor / t, ok ? "" : " FAIL");
  }
  std::printf("\n");
  std::fflush(stdout);
}

void run(std::size_t n) {
  std::mt19937_64 rng(std::random_device{}());
  const unsigned seed = unsigned(rng());
  std::printf("n=%zu (seed %u)\n", n, seed);
  rng.seed(seed);
  std::vector<int> h(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : h) x = int(rng() % 2001) - 1000;
  for (std::size_t i = 0; i < n; ++i) f[i] = (i % 1024) == 0 || rng() % 5000 == 0;
  std::vector<int> ref(n), sref(n), hk(n);
  pp::inclusive_scan(pp::seq, h, ref, pp::plus{});
  pp::segmented_inclusive_scan(pp::seq, h, f, sref, pp::plus{});
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) hk[i] = (key += f[i]);
  pp::device_buffer<int> in(n), out(n), keys(n);
  pp::device_buffer<std::uint8_t> fl(n);
  cudaMemcpy(in.data(), h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(keys.data(), hk.data(), n * 4, cudaMemcpyHostToDevice);

  std::size_t tk = 0, tb = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, tk, keys.data(), in.data(), out.data(), (int)n);
  cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp;
  cudaMalloc(&tmp, std::max(tk, tb));
  const float cubk = time_us([&] {
    cub::DeviceScan::InclusiveSumByKey(tmp, tk, keys.data(), in.data(), out.data(), (int)n);
  });
  const float cub =
      time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); });
  cudaFree(tmp);
  std::printf("  CUB InclusiveSum %.1f  InclusiveSumByKey %.1f\n", cub, cubk);
  int *i = in.data(), *o = out.data();
  const std::uint8_t* g = fl.data();
  variant<false, 256, 7, 7>(n, i, o, g, ref, cub);
  variant<false, 256, 7, 7, 128>(n, i, o, g, ref, cub);
  variant<false, 256, 7, 7, 256>(n, i, o, g, ref, cub);
  variant<false, 256, 7, 7, 512>(n, i, o, g, ref, cub);
  variant<false, 256, 7, 7, 924>(n, i, o, g, ref, cub);
  variant<false, 256, 11, 5>(n, i, o, g, ref, cub);
  variant<false, 256, 11, 5, 256>(n, i, o, g, ref, cub);
  variant<true, 256, 7, 6>(n, i, o, g, sref, cubk);
  variant<true, 256, 7, 6, 256>(n, i, o, g, sref, cubk);
  variant<true, 256, 7, 6, 512>(n, i, o, g, sref, cubk);
  // run A of 2026-11-23 (docs/results/h200-scan-dev-2026-11-23b.txt) also tried 128 x {20, 28,
  // 36} plain and 128 x {20, 28} segmented: slower than 256 threads at 2^28
}

int main() {
  run(std::size_t(1) << 28);
  run(std::size_t(1) << 24);
  run(1000003);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
