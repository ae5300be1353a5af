// Scratch smoke test + timing for the CUDA scan ladder (not part of the build).
#include <cub/device/device_scan.cuh>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <random>
#include <vector>
#include <chrono>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;

struct affine { long long a, b; };
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {f.a * g.a, f.b * g.a + g.b};
  }
};

static int failures = 0;

template <class Policy>
void check_rung(Policy pol, std::size_t n, std::mt19937_64& rng) {
  std::vector<int> h(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : h) x = int(rng() % 201) - 100;
  for (auto& x : f) x = (rng() % 37) == 0;
  pp::device_buffer<int> in(n), out(n);
  pp::device_buffer<std::uint8_t> fl(n);
  cudaMemcpy(in.data(), h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
  std::vector<int> got(n), ref(n);
  auto cmp = [&](const char* what) {
    cudaMemcpy(got.data(), out.data(), n * 4, cudaMemcpyDeviceToHost);
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != ref[i]) {
        std::printf("FAIL %s %s n=%zu at %zu: got %d want %d\n", pp::cuda_scan_name(Policy::scan_rung), what, n, i, got[i], ref[i]);
        ++failures;
        return;
      }
  };
  pp::inclusive_scan(pol, in.span(), out.span(), pp::plus{});
  pp::inclusive_scan(pp::seq, h, ref, pp::plus{});
  cmp("incl");
  pp::exclusive_scan(pol, in.span(), out.span(), 5, pp::plus{});
  pp::exclusive_scan(pp::seq, h, ref, 5, pp::plus{});
  cmp("excl");
  pp::segmented_inclusive_scan(pol, in.span(), fl.span(), out.span(), pp::plus{});
  pp::segmented_inclusive_scan(pp::seq, h, f, ref, pp::plus{});
  cmp("seg incl");
  pp::segmented_exclusive_scan(pol, in.span(), fl.span(), out.span(), 7, pp::plus{});
  pp::segmented_exclusive_scan(pp::seq, h, f, ref, 7, pp::plus{});
  cmp("seg excl");
  // non-commutative
  std::vector<affine> ha(n);
  for (auto& x : ha) x = {(long long)(rng() % 3) - 1, (long long)(rng() % 11) - 5};
  pp::device_buffer<affine> ia(n), oa(n);
  cudaMemcpy(ia.data(), ha.data(), n * sizeof(affine), cudaMemcpyHostToDevice);
  std::vector<affine> ga(n), ra(n);
  pp::segmented_inclusive_scan(pol, ia.span(), fl.span(), oa.span(), compose{});
  pp::segmented_inclusive_scan(pp::seq, ha, f, ra, compose{});
  cudaMemcpy(ga.data(), oa.data(), n * sizeof(affine), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < n; ++i)
    if (ga[i].a != ra[i].a || ga[i].b != ra[i].b) {
      std::printf("FAIL %s affine seg n=%zu at %zu\n", pp::cuda_scan_name(Policy::scan_rung), n, i);
      ++failures;
      break;
    }
  pp::exclusive_scan(pol, ia.span(), oa.span(), affine{2, 1}, compose{});
  pp::exclusive_scan(pp::seq, ha, ra, affine{2, 1}, compose{});
  cudaMemcpy(ga.data(), oa.data(), n * sizeof(affine), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < n; ++i)
    if (ga[i].a != ra[i].a || ga[i].b != ra[i].b) {
      std::printf("FAIL %s affine excl n=%zu at %zu\n", pp::cuda_scan_name(Policy::scan_rung), n, i);
      ++failures;
      break;
    }
}

template <class F>
float time_ms(F f, int reps = 20) {
  return median_ms(f, reps);
}

namespace ppc = parprim::detail::cuda;
/// Rung 5 by name (parprim::cuda is rung 6 since 17367c7).
static const auto k5_policy = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);
template <class P> using t256_16 = ppc::tile_registers<256, 16, 4, P>;
template <class P> using t512_16 = ppc::tile_registers<512, 16, 4, P>;
template <class P> using t256_32 = ppc::tile_registers<256, 32, 4, P>;
template <class P> using t1024_16 = ppc::tile_registers<1024, 16, 4, P>;
template <class P> using t512_8 = ppc::tile_registers<512, 8, 4, P>;
template <class P> using t256_8 = ppc::tile_registers<256, 8, 4, P>;

template <template <class> class Tile>
void variant(const char* name, std::size_t n, const int* in, int* out, const std::uint8_t* fl) {
  using P = ppc::plain_problem<int, int, pp::plus>;
  using S = ppc::segmented_problem<int, int, pp::plus>;
  P p{in, out, n, pp::plus{}, false, {}};
  S sp{in, fl, out, n, pp::plus{}, false, 0, {}, nullptr};
  float a = time_ms([&] { ppc::run_scan<ppc::single_pass_look_back<Tile, P>>(ppc::launch_options{}, p, "x"); });
  float b = time_ms([&] { ppc::run_scan<ppc::single_pass_look_back<Tile, S>>(ppc::launch_options{}, sp, "x"); });
  float c = time_ms([&] { ppc::run_scan<ppc::reduce_then_scan<Tile, P>>(ppc::launch_options{}, p, "x"); });
  float d = time_ms([&] { ppc::run_scan<ppc::reduce_then_scan<Tile, S>>(ppc::launch_options{}, sp, "x"); });
  std::printf("    variant %-10s n=%zu  k5 %.1f  k5seg %.1f  k4 %.1f  k4seg %.1f us\n", name, n, a * 1e3, b * 1e3, c * 1e3, d * 1e3);
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  const std::size_t sizes[] = {1, 2, 31, 33, 511, 513, 1025, 4095, 4097, 12345, 1000003, (1u << 22) + 7, 3000017};
  auto rungs = std::make_tuple(pp::cuda.scan_kernel(pp::cuda_scan::k1_kogge_stone),
                               pp::cuda.scan_kernel(pp::cuda_scan::k2_brent_kung),
                               pp::cuda.scan_kernel(pp::cuda_scan::k3_coarsened_three_phase),
                               pp::cuda.scan_kernel(pp::cuda_scan::k4_warp_reduce_then_scan),
                               pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back));
  for (std::size_t n : sizes)
    std::apply([&](auto... p) { (check_rung(p, n, rng), ...); }, rungs);
  std::printf("correctness failures: %d\n", failures);

  for (std::size_t n : {std::size_t(1) << 20, std::size_t(1) << 24, std::size_t(1) << 28}) {
    pp::device_buffer<int> in(n), out(n);
    pp::device_buffer<std::uint8_t> fl(n);
    pp::device_buffer<int> keys(n);
    cudaMemset(in.data(), 1, n * 4);
    cudaMemset(fl.data(), 0, n);
    cudaMemset(keys.data(), 0, n * 4);
    std::size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
    std::size_t tb2 = 0;
    cub::DeviceScan::InclusiveSumByKey(nullptr, tb2, keys.data(), in.data(), out.data(), (int)n);
    void* tmp;
    cudaMalloc(&tmp, std::max(tb, tb2));
    float cub_ms = time_ms([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); cudaStreamSynchronize(0); });
    float cubk_ms = time_ms([&] { cub::DeviceScan::InclusiveSumByKey(tmp, tb2, keys.data(), in.data(), out.data(), (int)n); cudaStreamSynchronize(0); });
    cudaFree(tmp);
    std::printf("n=%zu cub InclusiveSum %.1f us  cub ByKey %.1f us\n", n, cub_ms * 1e3, cubk_ms * 1e3);
    std::apply([&](auto... p) {
      ((std::printf("  %-28s incl %.1f us  seg %.1f us\n", pp::cuda_scan_name(decltype(p)::scan_rung),
                    time_ms([&] { pp::inclusive_scan(p, in.span(), out.span(), pp::plus{}); }) * 1e3,
                    time_ms([&] { pp::segmented_inclusive_scan(p, in.span(), fl.span(), out.span(), pp::plus{}); }) * 1e3)), ...);
    }, rungs);
    if (n >= (1u << 24)) {
      variant<t512_16>("512x16", n, in.data(), out.data(), fl.data());
      variant<t1024_16>("1024x16", n, in.data(), out.data(), fl.data());
      variant<t512_8>("512x8", n, in.data(), out.data(), fl.data());
      // float: deterministic (sequential look-back fold) vs not (tree)
      pp::device_buffer<float> fi(n), fo(n);
      std::vector<float> hf(n);
      for (std::size_t i = 0; i < n; ++i) hf[i] = float((i * 2654435761u) % 1000) * 0.001f - 0.5f;
      cudaMemcpy(fi.data(), hf.data(), n * 4, cudaMemcpyHostToDevice);
      std::size_t tbf = 0;
      cub::DeviceScan::InclusiveSum(nullptr, tbf, fi.data(), fo.data(), (int)n);
      void* tmpf;
      cudaMalloc(&tmpf, tbf);
      float cubf = time_ms([&] { cub::DeviceScan::InclusiveSum(tmpf, tbf, fi.data(), fo.data(), (int)n); cudaStreamSynchronize(0); });
      cudaFree(tmpf);
      float det = time_ms([&] { pp::inclusive_scan(k5_policy, fi.span(), fo.span(), pp::plus{}); });
      std::vector<float> r1(n), r2(n);
      cudaMemcpy(r1.data(), fo.data(), n * 4, cudaMemcpyDeviceToHost);
      pp::inclusive_scan(k5_policy, fi.span(), fo.span(), pp::plus{});
      cudaMemcpy(r2.data(), fo.data(), n * 4, cudaMemcpyDeviceToHost);
      if (std::memcmp(r1.data(), r2.data(), n * 4) != 0) { std::printf("FAIL float det not bitwise equal\n"); ++failures; }
      float nondet = time_ms([&] { pp::inclusive_scan(k5_policy.deterministic(false), fi.span(), fo.span(), pp::plus{}); });
      float segdet = time_ms([&] { pp::segmented_inclusive_scan(k5_policy, fi.span(), fl.span(), fo.span(), pp::plus{}); });
      float segnd = time_ms([&] { pp::segmented_inclusive_scan(k5_policy.deterministic(false), fi.span(), fl.span(), fo.span(), pp::plus{}); });
      std::printf("  float n=%zu cub %.1f  k5 det %.1f  k5 nondet %.1f  seg det %.1f  seg nondet %.1f us\n", n, cubf * 1e3, det * 1e3, nondet * 1e3, segdet * 1e3, segnd * 1e3);
    }
    float copy_ms = time_ms([&] { cudaMemcpyAsync(out.data(), in.data(), n * 4, cudaMemcpyDeviceToDevice); cudaStreamSynchronize(0); });
    std::printf("  copy %.1f us\n", copy_ms * 1e3);
  }
  return failures != 0;
}
