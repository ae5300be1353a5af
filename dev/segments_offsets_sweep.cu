// clang-format off
// Scratch: segmented_reduce with CSR offsets (kernels/segment_tiles.cuh), int32 values and
// offsets at 2^28, 2^26 and 2^24, segments of 32, 1024, 4096, 8192 (heads on the tiles' grid),
// 65536, power-law lengths (as the bench's "mixed") and one segment of n (OFFSETS_SWEEP_LONG=1:
// from 4096 on): the library's call beside CUB's DeviceSegmentedReduce::Sum and,
// with dev/base_segment_tiles.cuh beside this file (an earlier segment_tiles.cuh with its
// namespace renamed to parprim::detail::cuda::base_segments, made by
// `git show <commit>:backends/cuda/kernels/segment_tiles.cuh | sed -e 's/namespace parprim::detail::cuda::segments/namespace parprim::detail::cuda::base_segments/' -e 's/\bsegments::/base_segments::/g'`
// and not kept), the library's plan and steps on that file's kernels in the same rounds (without
// the offsets' check, which the library's call does in its locating pass: the base's times
// are a little short); then parts of the library's call timed alone (CUDA
// events around each), the library's one-pass plan launched while locate_tiles runs and after
// it (three interleaved rounds), and (OFFSETS_SWEEP_FULL=1) the one pass at several spans beside
// the three steps. Results bitwise
// against the library's call. Not part of the
// build: SWEEP_LIB=build-dev/libparprim_cuda.a bash dev/sweep.sh dev/segments_offsets_sweep.cu
// clang-format on
#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#if __has_include("base_segment_tiles.cuh")
#include "base_segment_tiles.cuh"
#define HAVE_BASE 1
#else
#define HAVE_BASE 0
#endif

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
namespace seg = parprim::detail::cuda::segments;

static int failures = 0;

#if HAVE_BASE
namespace parprim::detail::cuda::base_segments {
/// The library's driver (detail/segments_dispatch.cuh's reduce_offsets: the library's plan, then
/// the one pass or the three steps) on the base kernels.
template <class I, class In, class T, class Op>
void reduce_offsets(const launch_options& options, int device, offset_heads<I> heads, const In* in,
                    std::size_t n, T* out, const T& init, Op op) {
  const segments::offset_span_plan lp = segments::plan_offset_spans<T, Op>(n, heads.k, device);
  const offset_span_plan plan{lp.tiles, lp.tiles_per_span, lp.delays,   lp.one_pass,
                              lp.ahead, lp.stretch,        lp.dependent};
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  if (plan.one_pass) {
    const look_back_memory<open_segment<T>> memory(plan.spans(), n, "per-segment reduction");
    const std::size_t states_bytes = memory.scratch_bytes();
    segments::offsets_scratch scratch(options, device,
                                      states_bytes + (tiles + 1) * sizeof(std::size_t),
                                      memory.status_words(), memory.status_layout());
    call_scratch& cs = scratch.get();
    auto* first =
        reinterpret_cast<std::size_t*>(static_cast<char*>(cs.device_scratch()) + states_bytes);
    launch(locate_tiles<I>, segments::helper_grid(tiles + 1, device), segments::helper_block, 0,
           stream, heads, n, tiles, first, false, scratch.verdict(), cs.epoch());
    auto kernel = reduce_offset_spans<I, In, T, Op>;
    if constexpr (is_commutative_v<Op>)
      if (plan.stretch) kernel = reduce_offset_spans<I, In, T, Op, tiles_per_sm<T>, true>;
    launch_kernel(plan.dependent, kernel,
                  plan.blocks(heads.k, std::size_t(multiprocessor_count(device)) * 8), tile_block,
                  0, stream, heads, in, n, out, init, op, first, plan,
                  memory.state(cs.device_scratch(), cs.status(), cs.ticket(), cs.epoch()),
                  scratch.verdict(), scratch.refused());
    scratch.finish(options);
    return;
  }
  using V = open_segment<T>;
  using P = plain_problem<V, V, open_segment_op<Op>>;
  using D = typename scan_driver<cuda_scan_rung::decoupled_look_back, P>::type;
  const D driver = make_driver<D>(tiles, device);
  const std::size_t scan_bytes = align256(driver.scratch_bytes());
  const std::size_t first_bytes = align256((tiles + 1) * sizeof(std::size_t));
  const std::size_t tail_bytes = align256(tiles * sizeof(V));
  segments::offsets_scratch scratch(
      options, device, scan_bytes + first_bytes + tail_bytes + tiles * sizeof(tile_lead<T>),
      driver.status_words(), driver.status_layout());
  call_scratch& cs = scratch.get();
  auto* bytes = static_cast<unsigned char*>(cs.device_scratch());
  auto* first = reinterpret_cast<std::size_t*>(bytes + scan_bytes);
  auto* tails = reinterpret_cast<V*>(bytes + scan_bytes + first_bytes);
  auto* leads = reinterpret_cast<tile_lead<T>*>(bytes + scan_bytes + first_bytes + tail_bytes);
  launch(locate_tiles<I>, segments::helper_grid(tiles + 1, device), segments::helper_block, 0,
         stream, heads, n, tiles, first, false, scratch.verdict(), cs.epoch());
  const auto tile_kernel = scans_most_tiles<T>(n, heads.k)
                               ? reduce_tiles<I, In, T, Op, scanning_tiles_per_sm<T>>
                               : reduce_tiles<I, In, T, Op>;
  launch(tile_kernel, tiles, tile_block, 0, stream, heads, in, n, out, init, op, first, tails,
         leads, scratch.verdict(), cs.epoch(), scratch.refused(), plan.ahead);
  driver.enqueue(P{tails, tails, tiles, open_segment_op<Op>{op}, false, {}},
                 scan_scratch{bytes, cs.status(), cs.ticket(), cs.epoch(), options.deterministic},
                 stream);
  launch(close_tiles<I, T, Op>, segments::helper_grid(tiles > heads.k ? tiles : heads.k, device),
         segments::helper_block, 0, stream, heads, tails, leads, tiles, out, init, op,
         scratch.verdict(), cs.epoch());
  scratch.finish(options);
}
}  // namespace parprim::detail::cuda::base_segments
#endif

/// The bench's offsets (bench/cuda/segments.cpp make_offsets; the power-law lengths from this
/// file's own generator).
std::vector<std::int32_t> make_offsets(std::size_t n, std::size_t length) {
  std::vector<std::int32_t> o{0};
  if (length == 0) {
    std::mt19937_64 rng(0x5e6e17);
    for (std::uint64_t at = 0; at < n;) {
      const double u = static_cast<double>(rng() >> 11) * 0x1p-53;
      at = std::min<std::uint64_t>(n, at + 1 + static_cast<std::uint64_t>(std::exp2(17.0 * u)));
      o.push_back(static_cast<std::int32_t>(at));
    }
  } else {
    for (std::size_t at = 0; at < n;) {
      at = std::min(n, at + length);
      o.push_back(static_cast<std::int32_t>(at));
    }
  }
  return o;
}

/// The library's call in parts, each timed alone (us): the check by itself (an enqueue-only
/// call's), locate_tiles with the check and without, and the call on offsets already checked
/// (locate_tiles without the check, the tile kernel, the wait) beside the call that checks.
/// Then the one pass at several spans, in stretches or not, and the three steps with and without
/// each block asking L2 for the tile one wave of blocks ahead (R = SMs x 4), the library's
/// choice marked; every variant's
/// results bitwise against `want`.
template <class Input>
void steps(Input input, std::size_t n, const std::int32_t* begins, std::size_t k, int* out,
           const std::vector<int>& want) {
  ppc::launch_options o{};
  const seg::offset_heads<std::int32_t> heads{begins, k};
  const std::size_t tiles = seg::tile_count(n);
  pp::device_buffer<std::size_t> first(tiles + 1);
  pp::device_buffer<unsigned> verdict(1);
  const float check = time_us(
      [&] { ppc::check_segment_offsets<std::int32_t>(o, begins, k, n, "segmented_reduce"); });
  const auto locate = [&](bool with_check) {
    return time_us([&] {
      ppc::launch(seg::locate_tiles<std::int32_t>,
                  seg::helper_grid((with_check && k > tiles ? k : tiles) + 1, 0), seg::helper_block,
                  0, nullptr, heads, n, tiles, first.data(), with_check, verdict.data(), 1u);
    });
  };
  const float l_checked = locate(true), l_plain = locate(false);
  const auto call = [&](bool checked) {
    return time_us([&] {
      ppc::reduce_offset_segments<std::int32_t, int, int, pp::plus>(o, input().data(), n, begins, k,
                                                                    out, 0, pp::plus{}, checked);
    });
  };
  const float c_checking = call(false), c_checked = call(true);
  std::printf(
      "    parts: check alone %.1f, locate %.1f (without the check %.1f), call %.1f (on checked "
      "offsets %.1f) us\n",
      check, l_checked, l_plain, c_checking, c_checked);
  const seg::offset_span_plan chosen = seg::plan_offset_spans<int, pp::plus>(n, k, 0);
  std::vector<int> got(k);
  const auto run = [&](const seg::offset_span_plan& plan) {
    cudaMemset(out, 0x7f, k * 4);
    seg::reduce_offsets<std::int32_t, int, int, pp::plus>(o, 0, heads, input().data(), n, out, 0,
                                                          pp::plus{}, false, &plan);
    cudaMemcpy(got.data(), out, k * 4, cudaMemcpyDeviceToHost);
    if (got != want) {
      ++failures;
      std::printf("    WRONG: one pass %d, tiles a span %u, ahead %u\n", plan.one_pass ? 1 : 0,
                  plan.tiles_per_span, plan.ahead);
    }
    return time_us([&] {
      seg::reduce_offsets<std::int32_t, int, int, pp::plus>(o, 0, heads, input().data(), n, out, 0,
                                                            pp::plus{}, false, &plan);
    });
  };
  const auto mark = [&](const seg::offset_span_plan& p) {
    return p.one_pass == chosen.one_pass && p.ahead == chosen.ahead &&
                   p.stretch == chosen.stretch &&
                   (!p.one_pass || p.tiles_per_span == chosen.tiles_per_span)
               ? "*"
               : " ";
  };
  if (chosen.dependent) {  // the library's plan launched after locate_tiles or while it runs
    seg::offset_span_plan after = chosen;
    after.dependent = false;
    for (int round = 0; round < 3; ++round) {
      const float d = run(chosen), a = run(after);
      std::printf("    round %d: launched while locating %7.1f us, after it %7.1f us (%.3f)\n",
                  round, d, a, a / d);
    }
  }
  if (std::getenv("OFFSETS_SWEEP_FULL") == nullptr) return;
  const std::size_t resident = std::size_t(ppc::multiprocessor_count(0)) * 4;
  const unsigned fill = unsigned((tiles + resident - 1) / resident);
  for (bool stretch : {false, true}) {
    for (unsigned per : {8u, 16u, 32u, fill}) {
      const std::size_t spans = (tiles + per - 1) / per;
      const ppc::look_back_delays d = ppc::look_back_tuning::sleeps(spans)
                                          ? ppc::look_back_delays{400, 200, 400}
                                          : ppc::look_back_tuning::no_sleep;
      std::printf("    one pass%s, tiles a span %4u%s:", stretch ? " in stretches" : "", per,
                  per == fill ? " (one wave)" : "");
      const seg::offset_span_plan p{tiles, per, d, true, 0, stretch, true};
      std::printf(" %s %7.1f\n", mark(p), run(p));
    }
  }
  std::printf("    three steps:");
  for (unsigned ahead : {0u, unsigned(resident)}) {
    const seg::offset_span_plan p{tiles, 1,    ppc::look_back_tuning::no_sleep, false, ahead,
                                  false, false};
    std::printf("  ahead %u%s %7.1f", ahead, mark(p), run(p));
  }
  std::printf("\n");
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 26, std::size_t{1} << 24}) {
    const int copies = n > (std::size_t{1} << 26) ? 1 : 4;  // rotated values: together > 3x L2
    std::vector<int> x(n);
    for (auto& v : x) v = int(rng() % 17) - 8;
    std::vector<pp::device_buffer<int>> ins;
    for (int c = 0; c < copies; ++c) {
      ins.emplace_back(n);
      cudaMemcpy(ins.back().data(), x.data(), n * 4, cudaMemcpyHostToDevice);
    }
    for (std::size_t len : {std::size_t{32}, std::size_t{1024}, std::size_t{4096},
                            std::size_t{8192}, std::size_t{65536}, std::size_t{0}, n}) {
      if (std::getenv("OFFSETS_SWEEP_LONG") != nullptr && len < 4096) continue;
      const std::vector<std::int32_t> o = make_offsets(n, len);
      const std::size_t k = o.size() - 1;
      pp::device_buffer<std::int32_t> begins(k + 1);
      cudaMemcpy(begins.data(), o.data(), (k + 1) * 4, cudaMemcpyHostToDevice);
      pp::device_buffer<int> out(k), other(k);
      int rot = 0;
      const auto input = [&] { return ins[rot++ % copies].span(); };
      const auto lib = [&] {
        pp::segmented_reduce(pp::cuda, pp::device_span<const int>(input()),
                             pp::offsets(pp::device_span<const std::int32_t>(begins.span())),
                             out.span(), 0, pp::plus{});
      };
      lib();
      std::vector<int> want(k), got(k);
      cudaMemcpy(want.data(), out.data(), k * 4, cudaMemcpyDeviceToHost);
      // a host check of the library's call itself
      bool ok = true;
      for (std::size_t s = 0; s < k && ok; ++s) {
        long long sum = 0;
        for (std::int32_t i = o[s]; i < o[s + 1]; ++i) sum += x[i];
        ok = static_cast<int>(sum) == want[s];
      }
      void* temp = nullptr;
      std::size_t temp_bytes = 0;
      cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, ins[0].data(), other.data(), int(k),
                                      begins.data(), begins.data() + 1);
      cudaMalloc(&temp, temp_bytes);
      const auto cub_call = [&] {
        cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, input().data(), other.data(), int(k),
                                        begins.data(), begins.data() + 1);
        cudaStreamSynchronize(nullptr);
      };
      cub_call();
      cudaMemcpy(got.data(), other.data(), k * 4, cudaMemcpyDeviceToHost);
      ok = ok && got == want;
#if HAVE_BASE
      const auto base = [&] {
        ppc::launch_options opt{};
        ppc::base_segments::reduce_offsets(
            opt, 0, ppc::base_segments::offset_heads<std::int32_t>{begins.data(), k},
            input().data(), n, other.data(), 0, pp::plus{});
      };
      cudaMemset(other.data(), 0x7f, k * 4);
      base();
      cudaMemcpy(got.data(), other.data(), k * 4, cudaMemcpyDeviceToHost);
      ok = ok && got == want;
#endif
      failures += ok ? 0 : 1;
      std::printf("n = 2^%d, segments of %s (k = %zu)%s\n",
                  n == (std::size_t{1} << 28)   ? 28
                  : n == (std::size_t{1} << 26) ? 26
                                                : 24,
                  len == 0   ? "mixed"
                  : len == n ? "n"
                             : std::to_string(len).c_str(),
                  k, ok ? "" : "  WRONG");
      for (int round = 0; round < 3; ++round) {
        const float l = time_us(lib), c = time_us(cub_call);
#if HAVE_BASE
        const float b = time_us(base);
        std::printf(
            "  round %d: library %8.1f us  base %8.1f us  CUB %8.1f us  CUB/library %.3f  "
            "base/library %.3f\n",
            round, l, b, c, c / l, b / l);
#else
        std::printf("  round %d: library %8.1f us  CUB %8.1f us  CUB/library %.3f\n", round, l, c,
                    c / l);
#endif
      }
      steps(input, n, begins.data(), k, out.data(), want);
      cudaFree(temp);
    }
  }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
