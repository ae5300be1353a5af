// Scratch: the one-pass per-segment reductions at 2^28 and 2^24. reduce_by_key (runs of 1, 32 and
// 1024; int32 keys and values, and at 2^28 int64 keys, float and double values): the library's
// call (the staged tile, kernels/segments_staged.cuh; its results checked against the host and
// then the reference of the others) beside the register tile it replaced (kernels/
// segments_look_back.cuh), the staged tile at 4 and 5 tiles per SM with its keys stored 4 or 8
// at a time (kernels/segments_staged.cuh: staged_tiles_per_sm, staged_key_batch), and CUB's
// DeviceReduce::ReduceByKey (32-bit counts, as the bench's anchor; its count copied back), in
// rounds. FLAGS=1 adds segmented_reduce with head flags (segments of 1, 32, 1024 and random heads
// one in ten; the register tile); FLAGS_ONLY=1 runs those alone. With
// `dev/base_segments_look_back.cuh` beside it (an earlier commit's reduce_segments_look_back in
// namespace `parprim::detail::cuda::base_segments`, made by hand and not kept), that kernel runs in
// the same rounds. Earlier forms of this file swept the waits, the register cap and the staged keys
// stored one after the other (docs/results/h100/per-segment/). PROFILE=1: one library call each at
// 2^24, for ncu. Not part of the build: bash dev/sweep.sh dev/segments_look_back_sweep.cu
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
static bool profile_only = false;

#ifdef HAVE_BASE
/// reduce_counted (segments_dispatch.cuh) with the base kernel.
template <class Heads, unsigned MinB, class T>
std::size_t base_counted(Heads heads, const T* in, std::size_t n, T* out, bool has_init) {
  ppc::launch_options o{};
  const std::size_t tiles = pps::tile_count(n);
  const ppc::look_back_memory<pps::segment_run<T>> memory(tiles, n, "base");
  ppc::call_scratch scratch(0, o.stream, o.memory, memory.scratch_bytes(), memory.status_words(),
                            memory.status_layout(), true);
  const auto st =
      memory.state(scratch.device_scratch(), scratch.status(), scratch.ticket(), scratch.epoch());
  auto* count = static_cast<std::size_t*>(scratch.result_slot());
  ppc::launch(ppc::base_segments::reduce_segments_look_back<Heads, T, T, pp::plus, MinB>, tiles,
              pps::tile_block, 0, static_cast<cudaStream_t>(o.stream), heads, in, n, out, has_init,
              T{}, pp::plus{}, tiles, st, pps::run_look_back_delays(tiles), count);
  std::size_t segments = 0;
  if (scratch.host_slot() == nullptr) cudaMemcpy(&segments, count, 8, cudaMemcpyDeviceToHost);
  cudaStreamSynchronize(static_cast<cudaStream_t>(o.stream));
  scratch.finished_cleanly();
  if (scratch.host_slot() != nullptr) std::memcpy(&segments, scratch.host_slot(), 8);
  return segments;
}
#endif

/// Checks `got` (count, out[0..count)) against the reference and prints a time.
template <class T>
void report(const char* who, float us, float lib, std::size_t k, const T* out,
            const std::vector<T>& want) {
  std::vector<T> got(want.size());
  cudaMemcpy(got.data(), out, want.size() * sizeof(T), cudaMemcpyDeviceToHost);
  const bool ok = k == want.size() && got == want;
  failures += ok ? 0 : 1;
  std::printf("  %-16s %8.1f us  library / it %.3f%s\n", who, us, us / lib, ok ? "" : "  WRONG");
}

/// reduce_by_key of keys `K` and values `T` (small integers: every grouping exact) in runs of
/// 1, 32 and 1024: the library (the staged tile), the register tile it replaced (5 tiles per
/// SM, as the library called it), the staged tile at 4 and 5 tiles per SM with its keys stored
/// 4 or 8 at a time, and CUB's ReduceByKey, in rounds.
template <class K, class T>
void sweep_keys(std::mt19937_64& rng, std::size_t n, int log, const char* what) {
  std::vector<T> x(n);
  for (auto& v : x) v = T(int(rng() % 201) - 100);
  pp::device_buffer<T> in(n), out(n);
  pp::device_buffer<K> keys(n), keys_out(n);
  pp::device_buffer<std::size_t> cub_count(1);
  cudaMemcpy(in.data(), x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  for (std::size_t len : {std::size_t{1}, std::size_t{32}, std::size_t{1024}}) {
    std::vector<K> k(n);
    for (std::size_t i = 0; i < n; ++i) k[i] = K(i / len);
    cudaMemcpy(keys.data(), k.data(), n * sizeof(K), cudaMemcpyHostToDevice);
    const auto lib_call = [&] {
      return pp::reduce_by_key(pp::cuda, keys.span(), in.span(), keys_out.span(), out.span(),
                               pp::plus{});
    };
    const std::size_t runs = lib_call();
    std::vector<T> want(runs);
    cudaMemcpy(want.data(), out.data(), runs * sizeof(T), cudaMemcpyDeviceToHost);
    std::vector<K> got_keys(runs);
    cudaMemcpy(got_keys.data(), keys_out.data(), runs * sizeof(K), cudaMemcpyDeviceToHost);
    bool sums_ok = runs == (n + len - 1) / len;
    for (std::size_t r = 0; r < runs && sums_ok; ++r) {
      T s{};
      for (std::size_t i = r * len; i < n && i < (r + 1) * len; ++i) s += x[i];
      sums_ok = s == want[r] && got_keys[r] == K(r);
    }
    if (!sums_ok) ++failures;
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
    const pps::key_heads<K> heads{keys.data(), keys_out.data()};
    // the staged tile at `per_sm` tiles per SM, its keys stored `batch` at a time
    const auto staged = [&](auto per_sm, auto batch, const ppc::look_back_delays* d) {
      ppc::launch_options o{};
      return pps::reduce_counted_staged<pps::key_heads<K>, T, pp::plus, decltype(per_sm)::value,
                                        decltype(batch)::value>(
          o, 0, heads, in.data(), n, out.data(), n, false, T{}, pp::plus{}, d);
    };
    if (profile_only) {
      lib_call();
      continue;
    }
    std::printf("n = 2^%d, reduce_by_key %s, runs of %zu%s\n", log, what, len,
                sums_ok ? "" : "  WRONG (against the host)");
    for (int round = 0; round < 3; ++round) {
      const float lib = time_us([&] { lib_call(); }, 25);
      report("library", lib, lib, lib_call(), out.data(), want);
#ifdef HAVE_BASE
      const auto base_call = [&] {
        return base_counted<pps::key_heads<K>, 5>(heads, in.data(), n, out.data(), false);
      };
      report("base", time_us([&] { base_call(); }, 25), lib, base_call(), out.data(), want);
#endif
      const auto registers = [&] {
        ppc::launch_options o{};
        constexpr unsigned per_sm = sizeof(K) <= 4 && sizeof(T) <= 4 ? 5 : pps::tiles_per_sm<T>;
        return pps::reduce_counted<pps::key_heads<K>, T, T, pp::plus, per_sm>(
            o, 0, heads, in.data(), n, out.data(), n, false, T{}, pp::plus{});
      };
      report("registers", time_us([&] { registers(); }, 25), lib, registers(), out.data(), want);
      using c4 = std::integral_constant<unsigned, 4>;
      using c5 = std::integral_constant<unsigned, 5>;
      using c8 = std::integral_constant<unsigned, 8>;
      const auto run = [&](const char* name, auto per_sm, auto batch, const auto* d) {
        report(name, time_us([&] { staged(per_sm, batch, d); }, 25), lib, staged(per_sm, batch, d),
               out.data(), want);
      };
      const ppc::look_back_delays* library_waits = nullptr;  // run_look_back_delays; rung 6's
      // {3200, 800, 800} were 0-12 % slower but at runs of 1 of double values (H200, 2^27)
      run("5 / SM, keys by 8", c5{}, c8{}, library_waits);
      run("4 / SM, keys by 8", c4{}, c8{}, library_waits);
      run("5 / SM, keys by 4", c5{}, c4{}, library_waits);
      run("4 / SM, keys by 4", c4{}, c4{}, library_waits);
      report("CUB", time_us([&] { cub_call(); }, 25), lib, cub_call(), out.data(), want);
    }
  }
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  profile_only = std::getenv("PROFILE") != nullptr;  // one call each at 2^24, for ncu
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    if (profile_only && n != (std::size_t{1} << 24)) continue;
    const int log = n == (std::size_t{1} << 28) ? 28 : 24;
    const bool flags_only = std::getenv("FLAGS_ONLY") != nullptr;
    if (!flags_only) sweep_keys<int, int>(rng, n, log, "int32 keys, int32 values");
    if (log == 28 && !flags_only) {
      sweep_keys<long long, int>(rng, n, log, "int64 keys, int32 values");
      sweep_keys<int, float>(rng, n, log, "int32 keys, float values");
      sweep_keys<long long, double>(rng, n / 2, 27, "int64 keys, double values");
    }
    if (std::getenv("FLAGS") == nullptr && !flags_only) continue;
    [[maybe_unused]] const bool profile = profile_only;
    std::vector<int> x(n);
    for (auto& v : x) v = int(rng() % 201) - 100;
    pp::device_buffer<int> in(n), out(n);
    pp::device_buffer<std::uint8_t> flags(n);
    cudaMemcpy(in.data(), x.data(), n * 4, cudaMemcpyHostToDevice);
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
        base_counted<pps::flag_heads, 5>(pps::flag_heads{flags.data()}, in.data(), n, out.data(),
                                         true);
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
          return base_counted<pps::flag_heads, 5>(  // the library's 5 tiles per SM (int32)
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
