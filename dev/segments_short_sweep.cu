// clang-format off
// Scratch: segmented_reduce with CSR offsets of short segments (kernels/segments_short.cuh),
// int32 values and offsets at 2^28 and 2^24: segments of 1, 2, 4 and 8 elements, and of 0 to 4
// at random. Beside each other in three interleaved rounds (CUDA-event medians of 15 synchronous
// calls): the library's call; the tiles (segments::reduce_offsets with the check in its locating
// pass: the library's path before the short one); the short path (the check with the cap, its
// wait, reduce_short_segments; also where the library would not take it); CUB's
// DeviceSegmentedReduce::Sum; and a device-to-device copy of the input (the copy roof of the
// input bytes). Results bitwise against a host reduction.
// Not part of the build: SWEEP_LIB=build-dev/libparprim_cuda.a bash dev/sweep.sh dev/segments_short_sweep.cu
// clang-format on
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
namespace seg = parprim::detail::cuda::segments;

/// Offsets of segments of `length` elements, or (length 0) of 0 to 4 at random.
std::vector<std::int32_t> make_offsets(std::size_t n, std::size_t length, std::mt19937_64& rng) {
  std::vector<std::int32_t> o{0};
  for (std::size_t at = 0; at < n;) {
    at = std::min(n, at + (length > 0 ? length : rng() % 5));
    o.push_back(static_cast<std::int32_t>(at));
  }
  return o;
}

int main() {
  int failures = 0;
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    std::vector<int> x(n);
    for (auto& v : x) v = int(rng() % 17) - 8;
    pp::device_buffer<int> in(n), copy(n);
    cudaMemcpy(in.data(), x.data(), n * 4, cudaMemcpyHostToDevice);
    for (std::size_t len :
         {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}, std::size_t{0}}) {
      const std::vector<std::int32_t> o = make_offsets(n, len, rng);
      const std::size_t k = o.size() - 1;
      pp::device_buffer<std::int32_t> begins(k + 1);
      cudaMemcpy(begins.data(), o.data(), (k + 1) * 4, cudaMemcpyHostToDevice);
      pp::device_buffer<int> out(k);
      std::vector<int> want(k), got(k);
      for (std::size_t s = 0; s < k; ++s) {
        int sum = 0;
        for (std::int32_t i = o[s]; i < o[s + 1]; ++i) sum += x[i];
        want[s] = sum;
      }
      ppc::launch_options opt{};
      const seg::offset_heads<std::int32_t> heads{begins.data(), k};
      const auto lib = [&] {
        pp::segmented_reduce(pp::cuda, pp::device_span<const int>(in.span()),
                             pp::offsets(pp::device_span<const std::int32_t>(begins.span())),
                             out.span(), 0, pp::plus{});
      };
      const auto tiles = [&] {
        if (!seg::reduce_offsets<std::int32_t, int, int, pp::plus>(opt, 0, heads, in.data(), n,
                                                                   out.data(), 0, pp::plus{}, true))
          std::printf("  the tiles refused the offsets\n");
      };
      bool within = true;
      const auto short_path = [&] {
        within = seg::check_offsets_within<std::int32_t>(opt, begins.data(), k, n, "sweep",
                                                         seg::short_segment_cap);
        if (within)
          seg::reduce_short<std::int32_t, int, int, pp::plus>(opt, 0, begins.data(), k, in.data(),
                                                              out.data(), 0, pp::plus{});
      };
      void* temp = nullptr;
      std::size_t temp_bytes = 0;
      cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), out.data(), int(k),
                                      begins.data(), begins.data() + 1);
      cudaMalloc(&temp, temp_bytes);
      const auto cub_call = [&] {
        cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), out.data(), int(k),
                                        begins.data(), begins.data() + 1);
        cudaStreamSynchronize(nullptr);
      };
      const auto copy_call = [&] {
        cudaMemcpyAsync(copy.data(), in.data(), n * 4, cudaMemcpyDeviceToDevice, nullptr);
        cudaStreamSynchronize(nullptr);
      };
      std::string bad;
      for (const auto& [name, f] : {std::pair<const char*, std::function<void()>>{"library", lib},
                                    {"tiles", tiles},
                                    {"short", short_path},
                                    {"CUB", cub_call}}) {
        cudaMemset(out.data(), 0x7f, k * 4);
        f();
        cudaDeviceSynchronize();
        cudaMemcpy(got.data(), out.data(), k * 4, cudaMemcpyDeviceToHost);
        if (got != want && !(std::string(name) == "short" && !within))
          bad += std::string(" ") + name;
      }
      failures += bad.empty() ? 0 : 1;
      std::printf("n = 2^%d, segments of %s (k = %zu)%s%s\n", n == (std::size_t{1} << 28) ? 28 : 24,
                  len == 0 ? "0 to 4" : std::to_string(len).c_str(), k,
                  within ? "" : ", some longer than the cap",
                  bad.empty() ? "" : (" WRONG:" + bad).c_str());
      for (int round = 0; round < 3; ++round) {
        const float l = time_us(lib), t = time_us(tiles), s = time_us(short_path),
                    c = time_us(cub_call), r = time_us(copy_call);
        std::printf(
            "  round %d: library %8.1f us  tiles %8.1f  short %8.1f  CUB %8.1f  input copy %8.1f"
            "  tiles/library %.3f  CUB/library %.3f  copy/library %.3f\n",
            round, l, t, s, c, r, t / l, c / l, r / l);
      }
      cudaFree(temp);
    }
  }
  std::printf("%s\n", failures == 0 ? "all results equal" : "SOME RESULTS WRONG");
  return failures == 0 ? 0 : 1;
}
