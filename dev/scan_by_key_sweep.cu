// Scratch: inclusive_scan_by_key on parprim::cuda's default rung, which reads the keys in its
// tiles (key_segmented_scan): the library's call (a warp reads its keys together, coalesced, and
// hands each lane its head bits by shuffles) beside each lane reading its own run of keys (the
// path before), the warp reads with an L2 prefetch of the values and keys 128 or 256 tickets
// ahead, with 5 tiles per SM instead of 6, and CUB's DeviceScan::InclusiveSumByKey, in
// interleaved rounds (CUDA events, median of 15 synchronous calls each); int32 and float values,
// int32 and int64 keys, runs of 32, 1024 and 65536 at 2^24 and 2^28. Every variant bitwise
// against the library's call, and that (int32) against a host scan. Not part of the build:
// bash dev/sweep.sh dev/scan_by_key_sweep.cu
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

template <class T, class K>
void sweep(std::size_t n, std::size_t run, std::mt19937_64& rng) {
  std::vector<T> x(n);
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(static_cast<int>(rng() % 17) - 8);
    keys[i] = static_cast<K>((i / run) % 3);  // neighbouring runs differ; runs two apart repeat
  }
  pp::device_buffer<T> in(n), out(n), other(n);
  pp::device_buffer<K> d_keys(n);
  cudaMemcpy(in.data(), x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys.data(), keys.data(), n * sizeof(K), cudaMemcpyHostToDevice);
  const K* kp = d_keys.data();
  const T* ip = in.data();
  T* op = other.data();
  const auto lib = [&] {
    pp::inclusive_scan_by_key(pp::cuda, pp::device_span<const K>(d_keys.span()),
                              pp::device_span<const T>(in.span()), out.span(), pp::plus{});
  };
  using warp_heads = ppc::key_run_heads<K>;
  const auto own_runs = [&] {
    run_variant<tile_of<0, 0>::template type, per_thread_key_heads<K>>(kp, ip, op, n);
  };
  const auto pf128 = [&] {
    run_variant<tile_of<128, 0>::template type, warp_heads>(kp, ip, op, n);
  };
  const auto pf256 = [&] {
    run_variant<tile_of<256, 0>::template type, warp_heads>(kp, ip, op, n);
  };
  const auto five = [&] { run_variant<tile_of<0, 5>::template type, warp_heads>(kp, ip, op, n); };
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, d_keys.data(), in.data(), other.data(),
                                     static_cast<int>(n));
  cudaMalloc(&temp, temp_bytes);
  const auto cub_call = [&] {
    cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, d_keys.data(), in.data(), other.data(),
                                       static_cast<int>(n));
    cudaStreamSynchronize(nullptr);
  };
  lib();
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
  const char* names[] = {"own runs", "prefetch 128", "prefetch 256", "5 tiles", "CUB"};
  int v = 0;
  for (auto f :
       {std::function<void()>(own_runs), std::function<void()>(pf128), std::function<void()>(pf256),
        std::function<void()>(five), std::function<void()>(cub_call)}) {
    cudaMemset(op, 0, n * sizeof(T));
    f();
    cudaMemcpy(b.data(), op, n * sizeof(T), cudaMemcpyDeviceToHost);
    if (a != b) {
      ok = false;
      std::printf("  %s differs from the library's call\n", names[v]);
    }
    ++v;
  }
  failures += ok ? 0 : 1;
  std::printf("n = 2^%d, %s values, %zu-byte keys, runs of %zu%s\n", n == (1u << 24) ? 24 : 28,
              std::is_integral_v<T> ? "int32" : "float", sizeof(K), run, ok ? "" : "  WRONG");
  for (int round = 0; round < 3; ++round) {
    const float l = time_us(lib), o = time_us(own_runs), p1 = time_us(pf128), p2 = time_us(pf256),
                f = time_us(five), c = time_us(cub_call);
    std::printf(
        "  round %d: warp reads %7.1f  own runs %7.1f  pf128 %7.1f  pf256 %7.1f  5 tiles %7.1f  "
        "CUB %7.1f us  CUB/warp %.3f  CUB/own %.3f\n",
        round, l, o, p1, p2, f, c, c / l, c / o);
  }
  cudaFree(temp);
}

/// 8-byte values: the library's call (head flags first, for 8-byte keys) beside the keys read
/// in the tiles by the warps at 4, 5 and 6 tiles per SM, and CUB.
template <class T, class K>
void sweep_wide(std::size_t n, std::size_t run, std::mt19937_64& rng) {
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
  using H = ppc::key_run_heads<K>;
  const auto lib = [&] {
    pp::inclusive_scan_by_key(pp::cuda, pp::device_span<const K>(d_keys.span()),
                              pp::device_span<const T>(in.span()), out.span(), pp::plus{});
  };
  const auto t4 = [&] { run_variant<tile_of<0, 4>::template type, H>(kp, ip, op, n); };
  const auto t5 = [&] { run_variant<tile_of<0, 5>::template type, H>(kp, ip, op, n); };
  const auto t6 = [&] { run_variant<tile_of<0, 6>::template type, H>(kp, ip, op, n); };
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, kp, ip, op, static_cast<int>(n));
  cudaMalloc(&temp, temp_bytes);
  const auto cub_call = [&] {
    cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, kp, ip, op, static_cast<int>(n));
    cudaStreamSynchronize(nullptr);
  };
  lib();
  std::vector<T> a(n), b(n);
  cudaMemcpy(a.data(), out.data(), n * sizeof(T), cudaMemcpyDeviceToHost);
  bool ok = true;
  const char* names[] = {"4 tiles", "5 tiles", "6 tiles", "CUB"};
  int v = 0;
  for (auto f : {std::function<void()>(t4), std::function<void()>(t5), std::function<void()>(t6),
                 std::function<void()>(cub_call)}) {
    cudaMemset(op, 0, n * sizeof(T));
    f();
    cudaMemcpy(b.data(), op, n * sizeof(T), cudaMemcpyDeviceToHost);
    if (a != b) {
      ok = false;
      std::printf("  %s differs from the library's call\n", names[v]);
    }
    ++v;
  }
  failures += ok ? 0 : 1;
  std::printf("n = 2^%d, %s values, %zu-byte keys, runs of %zu%s\n", n == (1u << 24) ? 24 : 27,
              std::is_integral_v<T> ? "int64" : "double", sizeof(K), run, ok ? "" : "  WRONG");
  for (int round = 0; round < 3; ++round) {
    const float l = time_us(lib), a4 = time_us(t4), a5 = time_us(t5), a6 = time_us(t6),
                c = time_us(cub_call);
    std::printf(
        "  round %d: library %7.1f  keys 4 tiles %7.1f  5 tiles %7.1f  6 tiles %7.1f  CUB %7.1f us"
        "  CUB/library %.3f  CUB/5 tiles %.3f\n",
        round, l, a4, a5, a6, c, c / l, c / a5);
  }
  cudaFree(temp);
}

int main() {
  if (std::getenv("SBK_WIDE_ONLY") != nullptr) {
    std::mt19937_64 rng(std::random_device{}());
    for (std::size_t n : {std::size_t{1} << 27, std::size_t{1} << 24}) {
      sweep<std::int32_t, std::int64_t>(n == (std::size_t{1} << 27) ? n * 2 : n, 1024, rng);
      sweep_wide<std::int64_t, std::int64_t>(n, 1024, rng);
      sweep_wide<double, std::int64_t>(n, 1024, rng);
    }
    std::printf("failures: %d\n", failures);
    return failures == 0 ? 0 : 1;
  }
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    for (std::size_t run : {std::size_t{1024}, std::size_t{32}, std::size_t{65536}})
      sweep<std::int32_t, std::int32_t>(n, run, rng);
    sweep<float, std::int32_t>(n, 1024, rng);
    sweep<std::int32_t, std::int64_t>(n, 1024, rng);
  }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
