#pragma once
/// \file
/// \brief The definitions of the CUDA per-segment entries (declared in detail/segments_entry.hpp):
/// argument checks, temporaries and the launches of kernels/segment_tiles.cuh.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <parprim/backends/cuda/detail/device_guard.hpp>
#include <parprim/backends/cuda/detail/error.hpp>
#include <parprim/backends/cuda/detail/launch.cuh>
#include <parprim/backends/cuda/detail/scan_dispatch.cuh>
#include <parprim/backends/cuda/detail/segments_entry.hpp>
#include <parprim/backends/cuda/detail/temp_storage.hpp>
#include <parprim/backends/cuda/kernels/segment_tiles.cuh>
#include <parprim/detail/offsets.hpp>
#include <parprim/error.hpp>

namespace parprim::detail::cuda {

namespace segments {

/// \brief Threads of the grid-stride helper kernels, and their grid for `count` items.
inline constexpr unsigned helper_block = 256;
inline std::size_t helper_grid(std::size_t count, int device) {
  const std::size_t wanted = (count + helper_block - 1) / helper_block;
  const std::size_t cap = static_cast<std::size_t>(multiprocessor_count(device)) * 8;
  return wanted < 1 ? 1 : (wanted < cap ? wanted : cap);
}

/// \brief Device, stream and pointer checks of a call.
inline void check_call(const launch_options& options, int device, const char* fn,
                       std::initializer_list<std::pair<const void*, const char*>> pointers) {
  check_stream(options.stream, device, fn);
  for (const auto& [p, what] : pointers)
    if (p != nullptr) check_device_pointer(p, fn, what);
}

/// \brief The same options, returning once enqueued: the steps inside one call.
inline launch_options enqueue_only(launch_options options) {
  options.sync = false;
  return options;
}

/// \brief The plan of counted heads: counts per tile, scanned (exclusive, in place) into each
/// tile's base, the total after the last tile.
template <class Heads>
segment_plan plan(const launch_options& options, int device, Heads heads, std::size_t n) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  auto base = std::make_unique<temp_block>(device, options.stream, options.memory,
                                           (tiles + 1) * sizeof(std::size_t));
  auto* counts = static_cast<std::size_t*>(base->get());
  std::size_t total = 0;
  if (n > 0) {
    launch(count_tile_heads<Heads>, tiles, tile_block, 0, stream, heads, n, counts);
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(counts + tiles, 0, sizeof(std::size_t), stream));
    const std::size_t zero = 0;
    scan<cuda_scan_rung::decoupled_look_back, std::size_t, std::size_t, plus>(
        enqueue_only(options), counts, counts, tiles + 1, scan_kind::exclusive, &zero, nullptr,
        plus{});
    PARPRIM_CUDA_CHECK(
        cudaMemcpyAsync(&total, counts + tiles, sizeof(total), cudaMemcpyDeviceToHost, stream));
  }
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return segment_plan(std::move(base), n, total);
}

/// \brief Steps 2 and 3 on the stream, then the call's end (wait unless nosync).
template <class Heads, class In, class T, class Op>
void reduce(const launch_options& options, int device, Heads heads, const In* in, std::size_t n,
            T* out, bool has_init, const T& init, Op op, const std::size_t* base) {
  if (n == 0) return;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  const std::size_t tail_bytes = align256(tiles * sizeof(open_segment<T>));
  temp_block states(device, options.stream, options.memory,
                    tail_bytes + tiles * sizeof(tile_lead<T>));
  auto* tails = static_cast<open_segment<T>*>(states.get());
  auto* leads = reinterpret_cast<tile_lead<T>*>(static_cast<char*>(states.get()) + tail_bytes);
  launch(reduce_tiles<Heads, In, T, Op>, tiles, tile_block, 0, stream, heads, in, n, out, has_init,
         init, op, base, tails, leads);
  const open_segment_op<Op> sop{op};
  scan<cuda_scan_rung::decoupled_look_back, open_segment<T>, open_segment<T>, open_segment_op<Op>>(
      enqueue_only(options), tails, tails, tiles, scan_kind::inclusive, nullptr, nullptr, sop);
  launch(close_tiles<T, Op>, helper_grid(tiles, device), helper_block, 0, stream, tails, leads,
         tiles, out, has_init, init, op);
  if (options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace segments

template <class K>
segment_plan plan_key_segments(const launch_options& options, const K* keys, std::size_t n) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "reduce_by_key", {{keys, "the keys"}});
  return segments::plan(options, guard.device(), segments::key_heads<K>{keys, nullptr}, n);
}

template <class In, class T, class Op>
void reduce_flag_segments(const launch_options& options, const segment_plan& plan, const In* in,
                          const std::uint8_t* flags, T* out, T init, Op op) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {flags, "the head flags"}, {out, "the output"}});
  segments::reduce(options, guard.device(), segments::flag_heads{flags}, in, plan.size(), out, true,
                   init, op, plan.tile_base());
}

template <class K, class In, class T, class Op>
void reduce_key_segments(const launch_options& options, const segment_plan& plan, const K* keys,
                         const In* in, K* keys_out, T* out, Op op) {
  device_guard guard(options.device);
  segments::check_call(
      options, guard.device(), "reduce_by_key",
      {{keys, "the keys"}, {in, "the input"}, {keys_out, "the output keys"}, {out, "the output"}});
  segments::reduce(options, guard.device(), segments::key_heads<K>{keys, keys_out}, in, plan.size(),
                   out, false, T{}, op, plan.tile_base());
}

template <class I>
void check_segment_offsets(const launch_options& options, const I* begins, std::size_t k,
                           std::size_t n, const char* fn) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), fn, {{begins, "the offsets"}});
  const auto stream = static_cast<cudaStream_t>(options.stream);
  // one kernel and one copy back: the first decrease and both ends (segments::check_offsets)
  unsigned long long report[3];
  {
    temp_block slot(guard.device(), options.stream, options.memory, sizeof(report));
    auto* device_report = static_cast<unsigned long long*>(slot.get());
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(device_report, 0xff, sizeof(report[0]), stream));
    launch(segments::check_offsets<I>, segments::helper_grid(k, guard.device()),
           segments::helper_block, 0, stream, begins, k, device_report);
    PARPRIM_CUDA_CHECK(
        cudaMemcpyAsync(report, device_report, sizeof(report), cudaMemcpyDeviceToHost, stream));
    PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  I ends[2];
  std::memcpy(&ends[0], &report[1], sizeof(I));
  std::memcpy(&ends[1], &report[2], sizeof(I));
  const unsigned long long bad = report[0];
  check_offset_ends(ends[0], ends[1], k, n, fn);  // the host backends' wording (offsets.hpp)
  if (bad <= k) {
    I pair[2];
    PARPRIM_CUDA_CHECK(cudaMemcpy(pair, begins + (bad - 1), sizeof(pair), cudaMemcpyDeviceToHost));
    throw_offsets_decrease(fn, static_cast<std::size_t>(bad), pair[0], pair[1]);
  }
}

template <class I, class In, class T, class Op>
void reduce_offset_segments(const launch_options& options, const In* in, std::size_t n,
                            const I* begins, std::size_t k, T* out, T init, Op op) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {begins, "the offsets"}, {out, "the output"}});
  if (k == 0) return;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  launch(segments::fill_empty_segments<I, T>, segments::helper_grid(k, guard.device()),
         segments::helper_block, 0, stream, begins, k, out, init);
  const segments::offset_heads<I> heads{begins, k};
  const std::size_t tiles = segments::tile_count(n);
  temp_block first(guard.device(), options.stream, options.memory,
                   (tiles + 1) * sizeof(std::size_t));
  auto* first_segment = static_cast<std::size_t*>(first.get());
  if (n > 0)
    launch(segments::tile_first_segments<I>, segments::helper_grid(tiles + 1, guard.device()),
           segments::helper_block, 0, stream, heads, tiles, first_segment);
  segments::reduce(options, guard.device(), heads, in, n, out, true, init, op, first_segment);
  if (n == 0 && options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class K>
void enqueue_key_run_flags(const launch_options& options, const K* keys, std::size_t n,
                           std::uint8_t* flags) {
  device_guard guard(options.device);
  if (n == 0) return;
  launch(
      segments::key_run_flags<K>,
      segments::helper_grid((n + segments::tile_items - 1) / segments::tile_items, guard.device()),
      segments::helper_block, 0, static_cast<cudaStream_t>(options.stream), keys, n, flags);
}

}  // namespace parprim::detail::cuda
