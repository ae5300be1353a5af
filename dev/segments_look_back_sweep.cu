// Scratch: the one-pass per-segment reduction (kernels/segments_look_back.cuh) at 2^28 and 2^24:
// reduce_by_key of int32 keys and values (runs of 1, 32, 1024) and segmented_reduce of int32 with
// head flags (segments of 1, 32, 1024 and random heads one in ten), the library's call (its
// result is the reference) beside each thread reading its own run of keys ("own runs": the
// library before the warps read their keys together) and CUB's DeviceReduce::ReduceByKey (32-bit
// counts, as the bench's anchor; its count copied back) in rounds. With
// `dev/base_segments_look_back.cuh` beside it (an earlier commit's reduce_segments_look_back in
// namespace `parprim::detail::cuda::base_segments`, made by hand and not kept), that kernel runs in
// the same rounds. Earlier forms of this file swept the waits, the register cap and the staged keys
// stored one after the other (docs/results/h100/per-segment/). PROFILE=1: one call each of the flag
// rows at 2^24, for ncu. Not part of the build: SWEEP_LIB=build-dev/libparprim_cuda.a bash
// dev/sweep.sh dev/segments_look_back_sweep.cu
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"
#if __has_include("base_segments_look_back.cuh")
#include "base_segments_look_back.cuh"
#define HAVE_BASE 1
#endif

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
namespace pps = parprim::detail::cuda::segments;

static int failures = 0;

/// Each thread reads its own run of keys (the library before the warps read theirs together).
template <class K>
struct own_key_heads : pps::key_heads<K> {
  static constexpr bool warp_reads = false;
};

#ifdef HAVE_BASE
/// reduce_counted (segments_dispatch.cuh) with the base kernel.
template <class Heads, unsigned MinB>
std::size_t base_counted(Heads heads, const int* in, std::size_t n, int* out, bool has_init) {
  ppc::launch_options o{};
  const std::size_t tiles = pps::tile_count(n);
  const ppc::look_back_memory<pps::segment_run<int>> memory(tiles, n, "base");
  ppc::call_scratch scratch(0, o.stream, o.memory, memory.scratch_bytes(), memory.status_words(),
                            memory.status_layout(), true);
  const auto st =
      memory.state(scratch.device_scratch(), scratch.status(), scratch.ticket(), scratch.epoch());
  auto* count = static_cast<std::size_t*>(scratch.result_slot());
  ppc::launch(ppc::base_segments::reduce_segments_look_back<Heads, int, int, pp::plus, MinB>, tiles,
              pps::tile_block, 0, static_cast<cudaStream_t>(o.stream), heads, in, n, out, has_init,
              0, pp::plus{}, tiles, st, pps::run_look_back_delays(tiles), count);
  std::size_t segments = 0;
  if (scratch.host_slot() == nullptr) cudaMemcpy(&segments, count, 8, cudaMemcpyDeviceToHost);
  cudaStreamSynchronize(static_cast<cudaStream_t>(o.stream));
  scratch.finished_cleanly();
  if (scratch.host_slot() != nullptr) std::memcpy(&segments, scratch.host_slot(), 8);
  return segments;
}
#endif

/// Checks `got` (count, out[0..count)) against the reference and prints a time.
void report(const char* who, float us, float lib, std::size_t k, const int* out,
            const std::vector<int>& want) {
  std::vector<int> got(want.size());
  cudaMemcpy(got.data(), out, want.size() * 4, cudaMemcpyDeviceToHost);
  const bool ok = k == want.size() && got == want;
  failures += ok ? 0 : 1;
  std::printf("  %-8s %8.1f us  library / it %.3f%s\n", who, us, us / lib, ok ? "" : "  WRONG");
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  const bool profile = std::getenv("PROFILE") != nullptr;  // one call each at 2^24, for ncu
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    if (profile && n != (std::size_t{1} << 24)) continue;
    const int log = n == (std::size_t{1} << 28) ? 28 : 24;
    std::vector<int> x(n);
    for (auto& v : x) v = int(rng() % 201) - 100;
    pp::device_buffer<int> in(n), keys(n), keys_out(n), out(n);
    pp::device_buffer<std::uint8_t> flags(n);
    pp::device_buffer<std::size_t> cub_count(1);
    cudaMemcpy(in.data(), x.data(), n * 4, cudaMemcpyHostToDevice);
    for (std::size_t len : {std::size_t{1}, std::size_t{32}, std::size_t{1024}}) {
      std::vector<int> k(n);
      for (std::size_t i = 0; i < n; ++i) k[i] = int(i / len);
      cudaMemcpy(keys.data(), k.data(), n * 4, cudaMemcpyHostToDevice);
      const auto lib_call = [&] {
        return pp::reduce_by_key(pp::cuda, keys.span(), in.span(), keys_out.span(), out.span(),
                                 pp::plus{});
      };
      const std::size_t runs = lib_call();
      std::vector<int> want(runs);
      cudaMemcpy(want.data(), out.data(), runs * 4, cudaMemcpyDeviceToHost);
      std::size_t cub_bytes = 0;
      cub::DeviceReduce::ReduceByKey(nullptr, cub_bytes, keys.data(), keys_out.data(), in.data(),
                                     out.data(), cub_count.data(), cuda::std::plus<>{}, int(n));
      pp::device_buffer<unsigned char> cub_tmp(cub_bytes);
      const auto cub_call = [&] {
        cub::DeviceReduce::ReduceByKey(cub_tmp.data(), cub_bytes, keys.data(), keys_out.data(),
                                       in.data(), out.data(), cub_count.data(), cuda::std::plus<>{},
                                       int(n));
        std::size_t c = 0;
        cudaMemcpy(&c, cub_count.data(), 8, cudaMemcpyDeviceToHost);
        return c;
      };
      if (profile) continue;
      std::printf("n = 2^%d, reduce_by_key, runs of %zu\n", log, len);
      for (int round = 0; round < 3; ++round) {
        const float lib = time_us([&] { lib_call(); }, 25);
        report("library", lib, lib, lib_call(), out.data(), want);
#ifdef HAVE_BASE
        const auto base_call = [&] {
          return base_counted<pps::key_heads<int>, 5>(
              pps::key_heads<int>{keys.data(), keys_out.data()}, in.data(), n, out.data(), false);
        };
        report("base", time_us([&] { base_call(); }, 25), lib, base_call(), out.data(), want);
#endif
        const auto own_call = [&] {
          ppc::launch_options o{};
          return pps::reduce_counted<own_key_heads<int>, int, int, pp::plus, 5>(
              o, 0, own_key_heads<int>{{keys.data(), keys_out.data()}}, in.data(), n, out.data(),
              false, 0, pp::plus{});
        };
        report("own runs", time_us([&] { own_call(); }, 25), lib, own_call(), out.data(), want);
        report("CUB", time_us([&] { cub_call(); }, 25), lib, cub_call(), out.data(), want);
      }
    }
    for (std::size_t len : {std::size_t{1}, std::size_t{10}, std::size_t{32}, std::size_t{1024}}) {
      std::vector<std::uint8_t> f(n);
      for (std::size_t i = 0; i < n; ++i) f[i] = len == 10 ? rng() % 10 == 0 : i % len == 0;
      cudaMemcpy(flags.data(), f.data(), n, cudaMemcpyHostToDevice);
      const auto lib_call = [&] {
        return pp::segmented_reduce(pp::cuda, in.span(), flags.span(), out.span(), 0, pp::plus{});
      };
      const std::size_t segs = lib_call();
      std::vector<int> want(segs);
      cudaMemcpy(want.data(), out.data(), segs * 4, cudaMemcpyDeviceToHost);
#ifdef HAVE_BASE
      if (profile) {
        base_counted<pps::flag_heads, pps::tiles_per_sm<int>>(pps::flag_heads{flags.data()},
                                                              in.data(), n, out.data(), true);
        continue;
      }
#endif
      std::printf("n = 2^%d, segmented_reduce, head flags, %s %zu\n", log,
                  len == 10 ? "at random, one in" : "segments of", len);
      for (int round = 0; round < 3; ++round) {
        const float lib = time_us([&] { lib_call(); }, 25);
        report("library", lib, lib, lib_call(), out.data(), want);
#ifdef HAVE_BASE
        const auto base_call = [&] {
          return base_counted<pps::flag_heads, pps::tiles_per_sm<int>>(
              pps::flag_heads{flags.data()}, in.data(), n, out.data(), true);
        };
        report("base", time_us([&] { base_call(); }, 25), lib, base_call(), out.data(), want);
#endif
      }
    }
  }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
