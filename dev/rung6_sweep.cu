// Scratch: rung 6 (tile_shared_bulk) against rung 5 and CUB, int32 plus, plain and segmented,
// with its results checked against parprim::seq (inclusive, exclusive, a misaligned subspan),
// then its look-back waits and register caps swept. Not part of the build:
// bash dev/sweep.sh dev/rung6_sweep.cu
#include <random>
#include <vector>

#include "sweep_support.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;
template <class P>
using bulk_tile = ppc::tile_shared_bulk<256, P>;

void check(bool ok, const char* what, std::size_t n) {
  if (ok) return;
  ++failures;
  std::printf("FAIL %s n=%zu\n", what, n);
}

/// The look-back waits tried (first wait, pause between polls; ns).
static const std::vector<std::pair<unsigned, unsigned>> waits_tried = {
    {1200, 650}, {700, 350}, {1600, 800}, {2000, 1000}, {400, 200}};

void run(std::size_t n, bool sweep) {
  std::mt19937_64 rng(std::random_device{}());
  const unsigned seed = unsigned(rng());
  std::printf("n=%zu (seed %u)\n", n, seed);
  rng.seed(seed);
  std::vector<int> h(n + 8);
  std::vector<std::uint8_t> f(n + 8);
  for (auto& x : h) x = int(rng() % 2001) - 1000;
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = (i % 1024) == 0 || rng() % 5000 == 0;
  const std::vector<int> hn(h.begin(), h.begin() + n);
  const std::vector<std::uint8_t> fn(f.begin(), f.begin() + n);
  std::vector<int> ref(n), ref_ex(n), sref(n), sref_ex(n);
  pp::inclusive_scan(pp::seq, hn, ref, pp::plus{});
  pp::exclusive_scan(pp::seq, hn, ref_ex, 7, pp::plus{});
  pp::segmented_inclusive_scan(pp::seq, hn, fn, sref, pp::plus{});
  pp::segmented_exclusive_scan(pp::seq, hn, fn, sref_ex, 7, pp::plus{});
  pp::device_buffer<int> in(n + 8), out(n + 8), keys(n);
  pp::device_buffer<std::uint8_t> fl(n + 8);
  std::vector<int> hk(n);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) hk[i] = (key += fn[i]);
  cudaMemcpy(in.data(), h.data(), (n + 8) * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n + 8, cudaMemcpyHostToDevice);
  cudaMemcpy(keys.data(), hk.data(), n * 4, cudaMemcpyHostToDevice);
  const auto k6 = pp::cuda.scan_kernel(pp::cuda_scan::k6_tma_staged_look_back);
  const auto din = pp::device_span<const int>(in.data(), n);
  const auto dfl = pp::device_span<const std::uint8_t>(fl.data(), n);
  const auto dout = pp::device_span<int>(out.data(), n);

  pp::inclusive_scan(k6, din, dout, pp::plus{});
  check(same(out.data(), ref), "k6 inclusive", n);
  pp::exclusive_scan(k6, din, dout, 7, pp::plus{});
  check(same(out.data(), ref_ex), "k6 exclusive", n);
  pp::segmented_inclusive_scan(k6, din, dfl, dout, pp::plus{});
  check(same(out.data(), sref), "k6 segmented inclusive", n);
  pp::segmented_exclusive_scan(k6, din, dfl, dout, 7, pp::plus{});
  check(same(out.data(), sref_ex), "k6 segmented exclusive", n);
  {  // input 1 element in, output 3 in: neither 16-byte aligned
    std::vector<int> r(n), sr(n);
    const std::vector<int> h1(h.begin() + 1, h.begin() + 1 + n);
    const std::vector<std::uint8_t> f1(f.begin() + 1, f.begin() + 1 + n);
    pp::inclusive_scan(pp::seq, h1, r, pp::plus{});
    pp::segmented_inclusive_scan(pp::seq, h1, f1, sr, pp::plus{});
    const auto i1 = pp::device_span<const int>(in.data() + 1, n);
    const auto f1d = pp::device_span<const std::uint8_t>(fl.data() + 1, n);
    const auto o3 = pp::device_span<int>(out.data() + 3, n);
    pp::inclusive_scan(k6, i1, o3, pp::plus{});
    check(same(out.data() + 3, r), "k6 misaligned", n);
    pp::segmented_inclusive_scan(k6, i1, f1d, o3, pp::plus{});
    check(same(out.data() + 3, sr), "k6 segmented misaligned", n);
  }

  const cub_anchors c = time_cub(keys.data(), in.data(), out.data(), n);
  const float cub = c.sum, cubk = c.by_key;
  const float p5 = time_us([&] { pp::inclusive_scan(cuda_k5, din, dout, pp::plus{}); });
  const float p6 = time_us([&] { pp::inclusive_scan(k6, din, dout, pp::plus{}); });
  const float p6x = time_us([&] { pp::exclusive_scan(k6, din, dout, 7, pp::plus{}); });
  const float s5 =
      time_us([&] { pp::segmented_inclusive_scan(cuda_k5, din, dfl, dout, pp::plus{}); });
  const float s6 = time_us([&] { pp::segmented_inclusive_scan(k6, din, dfl, dout, pp::plus{}); });
  std::printf("  plain: CUB %.1f  k5 %.1f (%.3fx)  k6 %.1f (%.3fx)  k6 excl %.1f\n", cub, p5,
              cub / p5, p6, cub / p6, p6x);
  std::printf("  segmented: CUB ByKey %.1f  k5 %.1f (%.3fx)  k6 %.1f (%.3fx)\n", cubk, s5,
              cubk / s5, s6, cubk / s6);
  std::fflush(stdout);
  if (!sweep) return;
  const auto plain = int_plus_problem<false>(in.data(), fl.data(), out.data(), n);
  const auto seg = int_plus_problem<true>(in.data(), fl.data(), out.data(), n);
  swept_variant<bulk_tile, 7>("k6 plain", plain, ref, cub, waits_tried, failures);
  swept_variant<bulk_tile, 6>("k6 plain", plain, ref, cub, waits_tried, failures);
  swept_variant<bulk_tile, 6>("k6 seg", seg, sref, cubk, waits_tried, failures);
  swept_variant<bulk_tile, 5>("k6 seg", seg, sref, cubk, waits_tried, failures);
}

int main() {
  for (std::size_t n : {std::size_t(1) << 20, std::size_t(1) << 24, std::size_t(1) << 28})
    run(n, n >= (std::size_t(1) << 24));
  for (std::size_t n :
       {std::size_t(1), std::size_t(3), std::size_t(7167), std::size_t(7169), std::size_t(1000003)})
    run(n, false);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
