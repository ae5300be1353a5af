// Scratch: inclusive_scan_by_key on parprim::cuda's default rung, which reads the keys in its
// tiles (key_segmented_scan): the library's call (a warp reads its keys together, coalesced, and
// hands each lane its head bits by shuffles) beside each lane reading its own run of keys (the
// path before), the warp reads with an L2 prefetch of the values and keys 128 or 256 tickets
// ahead, with 5 tiles per SM instead of 6, and CUB's DeviceScan::InclusiveSumByKey, in
// interleaved rounds (CUDA events, median of 15 synchronous calls each); int32 and float values,
// int32 and int64 keys, runs of 32, 1024 and 65536 at 2^24 and 2^28. Every variant bitwise
// against the library's call, and that (int32) against a host scan. SBK_WIDE_ONLY=1: int64 keys
// beside int32 values (those variants), and beside int64 and double values at 4, 5 and 6 tiles per
// SM. Not part of the build: bash dev/sweep.sh dev/scan_by_key_sweep.cu
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

/// Each lane reads its own run of keys (the path before the warp's coalesced reads).
template <class K>
struct per_thread_key_heads : ppc::key_run_heads<K> {
  template <unsigned Items>
  static constexpr bool warp_reads = false;
};

template <unsigned Prefetch, unsigned Blocks>
struct tile_of {
  template <class P>
  using type = ppc::tile_shared_bulk<256, P, 7, Prefetch, Blocks>;
};

template <template <class> class Tile, class Heads, class K, class T>
void run_variant(const K* keys, const T* in, T* out, std::size_t n) {
  using P = ppc::segmented_problem<T, T, pp::plus, Heads>;
  Heads heads{};
  heads.keys = keys;
  const P p{in, heads, out, n, pp::plus{}, false, T{}, {}, nullptr};
  ppc::launch_options o{};
  o.sync = true;
  ppc::run_scan<ppc::single_pass_look_back<Tile, P, ppc::tma_look_back_tuning>>(o, p, "sweep");
}

/// A named call of the sweep.
struct variant {
  const char* name;
  std::function<void()> call;
};

/// Runs of `run` equal keys (neighbouring runs differ; runs two apart repeat) and small integer
/// values: the library's call (checked on the host for integer values), then each of
/// `variants(keys, in, other)` (device pointers; it writes `other`) bitwise against it, and CUB's
/// InclusiveSumByKey last; then three interleaved rounds of all of them.
template <class T, class K, class Variants>
void sweep(std::size_t n, std::size_t run, std::mt19937_64& rng, Variants variants) {
  std::vector<T> x(n);
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(static_cast<int>(rng() % 17) - 8);
    keys[i] = static_cast<K>((i / run) % 3);
  }
  pp::device_buffer<T> in(n), out(n), other(n);
  pp::device_buffer<K> d_keys(n);
  cudaMemcpy(in.data(), x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys.data(), keys.data(), n * sizeof(K), cudaMemcpyHostToDevice);
  const K* kp = d_keys.data();
  const T* ip = in.data();
  T* op = other.data();
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, kp, ip, op, static_cast<int>(n));
  cudaMalloc(&temp, temp_bytes);
  std::vector<variant> all{{"library", [&] {
                              pp::inclusive_scan_by_key(
                                  pp::cuda, pp::device_span<const K>(d_keys.span()),
                                  pp::device_span<const T>(in.span()), out.span(), pp::plus{});
                            }}};
  for (variant& v : variants(kp, ip, op)) all.push_back(std::move(v));
  all.push_back({"CUB", [&] {
                   cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, kp, ip, op,
                                                      static_cast<int>(n));
                   cudaStreamSynchronize(nullptr);
                 }});
  all[0].call();
  std::vector<T> a(n), b(n);
  cudaMemcpy(a.data(), out.data(), n * sizeof(T), cudaMemcpyDeviceToHost);
  bool ok = true;
  if constexpr (std::is_integral_v<T>) {
    T acc{};
    for (std::size_t i = 0; i < n && ok; ++i) {
      acc = i == 0 || keys[i] != keys[i - 1] ? x[i] : static_cast<T>(acc + x[i]);
      ok = a[i] == acc;
    }
  }
  for (std::size_t v = 1; v < all.size(); ++v) {
    cudaMemset(op, 0, n * sizeof(T));
    all[v].call();
    cudaMemcpy(b.data(), op, n * sizeof(T), cudaMemcpyDeviceToHost);
    if (a != b) {
      ok = false;
      std::printf("  %s differs from the library's call\n", all[v].name);
    }
  }
  failures += ok ? 0 : 1;
  std::printf("n = %zu, %zu-byte %s values, %zu-byte keys, runs of %zu%s\n", n, sizeof(T),
              std::is_integral_v<T> ? "integer" : "floating-point", sizeof(K), run,
              ok ? "" : "  WRONG");
  for (int round = 0; round < 3; ++round) {
    std::printf("  round %d:", round);
    std::vector<float> t;
    for (const variant& v : all) {
      t.push_back(time_us(v.call));
      std::printf("  %s %7.1f", v.name, t.back());
    }
    std::printf(" us  CUB/library %.3f\n", t.back() / t.front());
  }
  cudaFree(temp);
}

/// The library's call beside each thread reading its own run of keys, the warps' reads with an
/// L2 prefetch 128 and 256 tickets ahead, and at 5 tiles per SM.
template <class T, class K>
void sweep_variants(std::size_t n, std::size_t run, std::mt19937_64& rng) {
  sweep<T, K>(n, run, rng, [n](const K* kp, const T* ip, T* op) {
    using H = ppc::key_run_heads<K>;
    return std::vector<variant>{
        {"own runs",
         [=] {
           run_variant<tile_of<0, 0>::template type, per_thread_key_heads<K>>(kp, ip, op, n);
         }},
        {"prefetch 128", [=] { run_variant<tile_of<128, 0>::template type, H>(kp, ip, op, n); }},
        {"prefetch 256", [=] { run_variant<tile_of<256, 0>::template type, H>(kp, ip, op, n); }},
        {"5 tiles", [=] { run_variant<tile_of<0, 5>::template type, H>(kp, ip, op, n); }}};
  });
}

/// The library's call beside the keys read in the tiles by the warps at 4, 5 and 6 tiles per SM
/// (8-byte keys and values).
template <class T, class K>
void sweep_tiles(std::size_t n, std::size_t run, std::mt19937_64& rng) {
  sweep<T, K>(n, run, rng, [n](const K* kp, const T* ip, T* op) {
    using H = ppc::key_run_heads<K>;
    return std::vector<variant>{
        {"4 tiles", [=] { run_variant<tile_of<0, 4>::template type, H>(kp, ip, op, n); }},
        {"5 tiles", [=] { run_variant<tile_of<0, 5>::template type, H>(kp, ip, op, n); }},
        {"6 tiles", [=] { run_variant<tile_of<0, 6>::template type, H>(kp, ip, op, n); }}};
  });
}

int main() {
  if (std::getenv("SBK_WIDE_ONLY") != nullptr) {
    std::mt19937_64 rng(std::random_device{}());
    for (std::size_t n : {std::size_t{1} << 27, std::size_t{1} << 24}) {
      sweep_variants<std::int32_t, std::int64_t>(n == (std::size_t{1} << 27) ? n * 2 : n, 1024,
                                                 rng);
      sweep_tiles<std::int64_t, std::int64_t>(n, 1024, rng);
      sweep_tiles<double, std::int64_t>(n, 1024, rng);
    }
    std::printf("failures: %d\n", failures);
    return failures == 0 ? 0 : 1;
  }
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    for (std::size_t run : {std::size_t{1024}, std::size_t{32}, std::size_t{65536}})
      sweep_variants<std::int32_t, std::int32_t>(n, run, rng);
    sweep_variants<float, std::int32_t>(n, 1024, rng);
    sweep_variants<std::int32_t, std::int64_t>(n, 1024, rng);
  }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
