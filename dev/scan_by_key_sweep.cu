// Scratch: inclusive_scan_by_key on parprim::cuda, the default rung reading the keys in its tiles
// (key_segmented_scan) beside the same scan over head flags made from the keys first (the key-run
// flags kernel, then the segmented scan of rung 6: the library's path before the keys were read in
// the tiles) and CUB's DeviceScan::InclusiveSumByKey, in interleaved rounds (CUDA events, median of
// 15 synchronous calls each); int32 and float values, int32 and int64 keys, runs of 32, 1024 and
// 65536 at 2^24 and 2^28. Results bitwise against the flags path and (int32) a host scan. Not part
// of the build: bash dev/sweep.sh dev/scan_by_key_sweep.cu
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

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
  pp::device_buffer<std::uint8_t> flags(n);
  cudaMemcpy(in.data(), x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys.data(), keys.data(), n * sizeof(K), cudaMemcpyHostToDevice);
  const auto lib = [&] {
    pp::inclusive_scan_by_key(pp::cuda, pp::device_span<const K>(d_keys.span()),
                              pp::device_span<const T>(in.span()), out.span(), pp::plus{});
  };
  const auto flag_path = [&] {
    ppc::launch_options o{};
    ppc::enqueue_key_run_flags<K>(o, d_keys.data(), n, flags.data());
    o.sync = true;
    ppc::segmented_scan<pp::cuda_scan_rung::tma_staged_look_back, T, T, pp::plus>(
        o, in.data(), flags.data(), other.data(), n, ppc::scan_kind::inclusive, nullptr, nullptr,
        pp::plus{});
  };
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
  flag_path();
  std::vector<T> a(n), b(n);
  cudaMemcpy(a.data(), out.data(), n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), other.data(), n * sizeof(T), cudaMemcpyDeviceToHost);
  bool ok = a == b;
  if constexpr (std::is_integral_v<T>) {
    T acc{};
    for (std::size_t i = 0; i < n && ok; ++i) {
      acc = i == 0 || keys[i] != keys[i - 1] ? x[i] : static_cast<T>(acc + x[i]);
      ok = a[i] == acc;
    }
  }
  failures += ok ? 0 : 1;
  std::printf("n = 2^%d, %s values, %zu-byte keys, runs of %zu%s\n", n == (1u << 24) ? 24 : 28,
              std::is_integral_v<T> ? "int32" : "float", sizeof(K), run, ok ? "" : "  WRONG");
  for (int round = 0; round < 3; ++round) {
    const float l = time_us(lib), f = time_us(flag_path), c = time_us(cub_call);
    std::printf(
        "  round %d: keys in the tiles %8.1f us  flags first %8.1f us  CUB %8.1f us  "
        "flags/keys %.3f  CUB/keys %.3f\n",
        round, l, f, c, f / l, c / l);
  }
  cudaFree(temp);
}

int main() {
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
