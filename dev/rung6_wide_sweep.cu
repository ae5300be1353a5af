// Scratch: rung 6's shared-memory tile on its widest values, at several register caps: the
// segmented float64 sum (16-byte value-and-head pairs through the fixed-tree look-back) and
// 16-byte affine maps {double a, b} (plain and segmented, composition). Every variant is
// checked bit for bit against the library's own call (the grouping does not depend on the cap)
// and timed against CUB (InclusiveSumByKey / InclusiveScan / InclusiveScanByKey) and the
// library's call, in one process. Not part of the build:
// SWEEP_LIB=<built libparprim_cuda.a> bash dev/sweep.sh dev/rung6_wide_sweep.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <parprim/parprim.hpp>
#include <random>
#include <vector>

#include "affine_maps.cuh"
#include "sweep_support.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

struct key_equal {
  __host__ __device__ bool operator()(int x, int y) const { return x == y; }
};

template <class P>
using tile6 = ppc::tile_shared_bulk<256, P, 7, 0>;
template <class P>
using tile6_prefetch = ppc::tile_shared_bulk<256, P, 7, 128>;

/// The look-back waits tried: rung 6's and rung 5's.
static const std::vector<std::pair<unsigned, unsigned>> waits = {{3200, 800}, {1200, 650}};

/// Rung 6's tile `TileOf` with register cap MinB on `sp`, checked against the library's `lib`.
template <template <class> class TileOf, unsigned MinB, int Det = -1, class Problem, class T>
void variant(const char* label, const Problem& sp, const std::vector<T>& lib, float anchor) {
  swept_variant<TileOf, MinB, Det>(label, sp, lib, anchor, waits, failures);
}

void segmented_double(std::size_t n, unsigned seg) {
  std::mt19937_64 rng(std::random_device{}());
  std::vector<double> h(n);
  std::vector<std::uint8_t> f(n);
  std::vector<int> keys(n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = u(rng);
    f[i] = seg == 0 ? i == 0 : i % seg == 0;
    keys[i] = (key += f[i]);
  }
  pp::device_buffer<double> in(h), out(n);
  pp::device_buffer<std::uint8_t> fl(f);
  pp::device_buffer<int> dk(keys);
  pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), pp::plus{});
  std::vector<double> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * 8, cudaMemcpyDeviceToHost);
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, tb, dk.data(), in.data(), out.data(), (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub = time_us([&] {
    cub::DeviceScan::InclusiveSumByKey(tmp, tb, dk.data(), in.data(), out.data(), (int)n);
  });
  cudaFree(tmp);
  const float libt = time_us([&] {
    pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), pp::plus{});
  });
  std::printf("segmented float64 plus n=2^%d seg=%u: CUB ByKey %.1f, library %.1f (%.3fx)\n",
              __builtin_ctzll(n), seg, cub, libt, cub / libt);
  using P = ppc::segmented_problem<double, double, pp::plus>;
  const P sp{in.data(), fl.data(), out.data(), n, pp::plus{}, false, 0.0, {}, nullptr};
  variant<tile6, 4>("seg f64", sp, lib, cub);
  variant<tile6, 4, 1>("seg f64, fixed tree only", sp, lib, cub);
  variant<tile6, 5, 1>("seg f64, fixed tree only", sp, lib, cub);
  variant<tile6, 6, 1>("seg f64, fixed tree only", sp, lib, cub);
}

void plain_double(std::size_t n, bool exclusive) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> h(n);
  for (auto& x : h) x = u(rng);
  pp::device_buffer<double> in(h), out(n);
  const auto run_lib = [&] {
    if (exclusive)
      pp::exclusive_scan(pp::cuda, in.span(), out.span(), 0.0, pp::plus{});
    else
      pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{});
  };
  run_lib();
  std::vector<double> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * 8, cudaMemcpyDeviceToHost);
  std::size_t tb = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub = time_us([&] {
    if (exclusive)
      cub::DeviceScan::ExclusiveSum(tmp, tb, in.data(), out.data(), (int)n);
    else
      cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n);
  });
  cudaFree(tmp);
  const float libt = time_us(run_lib);
  std::printf("float64 %s sum n=2^%d: CUB %.1f, library %.1f (%.3fx)\n",
              exclusive ? "exclusive" : "inclusive", __builtin_ctzll(n), cub, libt, cub / libt);
  using P = ppc::plain_problem<double, double, pp::plus>;
  ppc::prefix_operands<double> pre{};
  if (exclusive) {
    pre.a = 0.0;
    pre.has_a = true;
  }
  const P sp{in.data(), out.data(), n, pp::plus{}, exclusive, pre};
  variant<tile6_prefetch, 7>("plain f64", sp, lib, cub);
  variant<tile6_prefetch, 7, 1>("plain f64, fixed tree only", sp, lib, cub);
}

/// Plain float64 minimum / maximum scans (the total order of parprim::minimum / maximum: its
/// branch-free select holds more registers than a sum) at 7 tiles per SM (the library's cap for
/// 8-byte plain scans: 32 registers) and fewer.
template <class Op, class CubOp>
void plain_double_extreme(std::size_t n, const char* name) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> h(n);
  for (auto& x : h) x = u(rng);
  pp::device_buffer<double> in(h), out(n);
  const auto run_lib = [&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), Op{}); };
  run_lib();
  std::vector<double> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * 8, cudaMemcpyDeviceToHost);
  std::size_t tb = 0;
  cub::DeviceScan::InclusiveScan(nullptr, tb, in.data(), out.data(), CubOp{}, (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const float cub = time_us(
      [&] { cub::DeviceScan::InclusiveScan(tmp, tb, in.data(), out.data(), CubOp{}, (int)n); });
  cudaFree(tmp);
  const float libt = time_us(run_lib);
  std::printf("float64 inclusive %s n=2^%d: CUB %.1f, library %.1f (%.3fx)\n", name,
              __builtin_ctzll(n), cub, libt, cub / libt);
  using P = ppc::plain_problem<double, double, Op>;
  const P sp{in.data(), out.data(), n, Op{}, false, {}};
  variant<tile6_prefetch, 7>(name, sp, lib, cub);
  variant<tile6_prefetch, 6>(name, sp, lib, cub);
  variant<tile6_prefetch, 5>(name, sp, lib, cub);
}

void affine_maps(std::size_t n, unsigned seg) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<affine> h(n);
  std::vector<std::uint8_t> f(n);
  std::vector<int> keys(n);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = {u(rng), u(rng) - 1.0};
    f[i] = i % seg == 0;
    keys[i] = (key += f[i]);
  }
  pp::device_buffer<affine> in(h), out(n);
  pp::device_buffer<std::uint8_t> fl(f);
  pp::device_buffer<int> dk(keys);
  // plain
  pp::inclusive_scan(pp::cuda, in.span(), out.span(), compose{});
  std::vector<affine> lib(n);
  cudaMemcpy(lib.data(), out.data(), n * 16, cudaMemcpyDeviceToHost);
  std::size_t tb = 0, tk = 0;
  cub::DeviceScan::InclusiveScan(nullptr, tb, in.data(), out.data(), compose{}, (int)n);
  cub::DeviceScan::InclusiveScanByKey(nullptr, tk, dk.data(), in.data(), out.data(), compose{},
                                      (int)n, key_equal{});
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb > tk ? tb : tk);
  const float cub = time_us(
      [&] { cub::DeviceScan::InclusiveScan(tmp, tb, in.data(), out.data(), compose{}, (int)n); });
  const float cubk = time_us([&] {
    cub::DeviceScan::InclusiveScanByKey(tmp, tk, dk.data(), in.data(), out.data(), compose{},
                                        (int)n, key_equal{});
  });
  cudaFree(tmp);
  const float libt =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), compose{}); });
  const auto k5 = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);
  const float lib5 = time_us([&] { pp::inclusive_scan(k5, in.span(), out.span(), compose{}); });
  std::printf("affine plain n=2^%d: CUB %.1f, library %.1f (%.3fx), rung 5 %.1f (%.3fx)\n",
              __builtin_ctzll(n), cub, libt, cub / libt, lib5, cub / lib5);
  using PP = ppc::plain_problem<affine, affine, compose>;
  const PP pp_{in.data(), out.data(), n, compose{}, false, {}};
  variant<tile6_prefetch, 3>("plain affine", pp_, lib, cub);
  variant<tile6_prefetch, 4>("plain affine", pp_, lib, cub);
  variant<tile6_prefetch, 5>("plain affine", pp_, lib, cub);
  // segmented
  pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), compose{});
  cudaMemcpy(lib.data(), out.data(), n * 16, cudaMemcpyDeviceToHost);
  const float libs = time_us(
      [&] { pp::segmented_inclusive_scan(pp::cuda, in.span(), fl.span(), out.span(), compose{}); });
  const float libs5 = time_us(
      [&] { pp::segmented_inclusive_scan(k5, in.span(), fl.span(), out.span(), compose{}); });
  std::printf("affine seg=%u n=2^%d: CUB ByKey %.1f, library %.1f (%.3fx), rung 5 %.1f (%.3fx)\n",
              seg, __builtin_ctzll(n), cubk, libs, cubk / libs, libs5, cubk / libs5);
  using SP = ppc::segmented_problem<affine, affine, compose>;
  const SP sp{in.data(), fl.data(), out.data(), n, compose{}, false, affine{1, 0}, {}, nullptr};
  variant<tile6, 3>("seg affine", sp, lib, cubk);
  variant<tile6, 4>("seg affine", sp, lib, cubk);
  variant<tile6, 5>("seg affine", sp, lib, cubk);
}

int main() {
  // WIDE_SWEEP_ONLY=segmented: the segmented float64 cases alone; =extreme: the plain float64
  // minimum / maximum scans alone
  const char* only = std::getenv("WIDE_SWEEP_ONLY");
  if (only != nullptr && std::strcmp(only, "extreme") == 0) {
    for (const int log2 : {27, 24, 20}) {
      plain_double_extreme<pp::maximum, ::cuda::maximum<>>(std::size_t(1) << log2, "max");
      plain_double_extreme<pp::minimum, ::cuda::minimum<>>(std::size_t(1) << log2, "min");
    }
    std::printf("failures: %d\n", failures);
    return failures != 0;
  }
  const bool all = only == nullptr || std::strcmp(only, "segmented") != 0;
  segmented_double(std::size_t(1) << 27, 1024);
  segmented_double(std::size_t(1) << 27, 0);
  segmented_double(std::size_t(1) << 24, 1024);
  segmented_double(std::size_t(1) << 27, 32);
  if (all) {
    plain_double(std::size_t(1) << 27, true);
    plain_double(std::size_t(1) << 27, false);
    affine_maps(std::size_t(1) << 27, 1024);
  }
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
