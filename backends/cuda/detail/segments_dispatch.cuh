#pragma once
/// \file
/// \brief The definitions of the CUDA per-segment entries (declared in detail/segments_entry.hpp):
/// argument checks, temporaries and the launches of kernels/segments_look_back.cuh (head flags,
/// keys) and kernels/segment_tiles.cuh (offsets).

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
#include <parprim/backends/cuda/kernels/segments_look_back.cuh>
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

/// \brief The number of heads of n elements (n > 0; the check of `out`'s size before a
/// reduction writes). Waits for the stream. The tiles add into device memory, copied back: in
/// the cache's mapped host slot every tile's atomic add crossed to host memory (H200,
/// reduce_by_key with outputs of k, 2^28, runs of 1024: 65.9 ms instead of 1.14).
template <class Heads>
std::size_t count_segments(const launch_options& options, int device, Heads heads, std::size_t n) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  temp_block slot(device, options.stream, options.memory, sizeof(unsigned long long));
  auto* total = static_cast<unsigned long long*>(slot.get());
  PARPRIM_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(*total), stream));
  launch(count_heads<Heads>, tile_count(n), tile_block, 0, stream, heads, n, total);
  unsigned long long segments = 0;
  PARPRIM_CUDA_CHECK(
      cudaMemcpyAsync(&segments, total, sizeof(segments), cudaMemcpyDeviceToHost, stream));
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(segments);
}

/// \brief The one-pass reduction of counted heads (kernels/segments_look_back.cuh): one launch,
/// then a wait for the number of segments, which the kernel writes where the host reads it
/// (the cache's mapped host slot, or device memory and one copy back). dev/ sweeps give
/// `MinBlocksPerSM` and `delays` (else run_look_back_delays).
template <class Heads, class In, class T, class Op, unsigned MinBlocksPerSM = tiles_per_sm<T>>
std::size_t reduce_counted(const launch_options& options, int device, Heads heads, const In* in,
                           std::size_t n, T* out, bool has_init, const T& init, Op op,
                           const look_back_delays* delays = nullptr) {
  if (n == 0) return 0;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  const look_back_memory<segment_run<T>> memory(tiles, n, "per-segment reduction");
  call_scratch scratch(device, options.stream, options.memory, memory.scratch_bytes(),
                       memory.status_words(), memory.status_layout(), true);
  const look_back_state<segment_run<T>> st =
      memory.state(scratch.device_scratch(), scratch.status(), scratch.ticket(), scratch.epoch());
  auto* count = static_cast<std::size_t*>(scratch.result_slot());
  launch(reduce_segments_look_back<Heads, In, T, Op, MinBlocksPerSM>, tiles, tile_block, 0, stream,
         heads, in, n, out, has_init, init, op, tiles, st,
         delays != nullptr ? *delays : run_look_back_delays(tiles), count);
  std::size_t segments = 0;
  if (scratch.host_slot() == nullptr)
    PARPRIM_CUDA_CHECK(
        cudaMemcpyAsync(&segments, count, sizeof(segments), cudaMemcpyDeviceToHost, stream));
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  scratch.finished_cleanly();
  if (scratch.host_slot() != nullptr) std::memcpy(&segments, scratch.host_slot(), sizeof(segments));
  return segments;
}

/// \brief The offsets' steps 1-3 (kernels/segment_tiles.cuh) on the stream, then the call's end
/// (wait unless nosync).
template <class I, class In, class T, class Op>
void reduce_offsets(const launch_options& options, int device, offset_heads<I> heads, const In* in,
                    std::size_t n, T* out, const T& init, Op op) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  const std::size_t first_bytes = align256((tiles + 1) * sizeof(std::size_t));
  const std::size_t tail_bytes = align256(tiles * sizeof(open_segment<T>));
  temp_block states(device, options.stream, options.memory,
                    first_bytes + tail_bytes + tiles * sizeof(tile_lead<T>));
  auto* bytes = static_cast<char*>(states.get());
  auto* first = reinterpret_cast<std::size_t*>(bytes);
  auto* tails = reinterpret_cast<open_segment<T>*>(bytes + first_bytes);
  auto* leads = reinterpret_cast<tile_lead<T>*>(bytes + first_bytes + tail_bytes);
  launch(tile_first_segments<I>, helper_grid(tiles + 1, device), helper_block, 0, stream, heads,
         tiles, first);
  launch(reduce_tiles<I, In, T, Op>, tiles, tile_block, 0, stream, heads, in, n, out, init, op,
         first, tails, leads);
  const open_segment_op<Op> sop{op};
  scan<cuda_scan_rung::decoupled_look_back, open_segment<T>, open_segment<T>, open_segment_op<Op>>(
      enqueue_only(options), tails, tails, tiles, scan_kind::inclusive, nullptr, nullptr, sop);
  launch(close_tiles<I, T, Op>, helper_grid(tiles > heads.k ? tiles : heads.k, device),
         helper_block, 0, stream, heads, tails, leads, tiles, out, init, op);
  if (options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace segments

template <class K>
segment_plan plan_key_segments(const launch_options& options, const K* keys, std::size_t n) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "reduce_by_key", {{keys, "the keys"}});
  return segment_plan(n, n == 0
                             ? 0
                             : segments::count_segments(options, guard.device(),
                                                        segments::key_heads<K>{keys, nullptr}, n));
}

template <class In, class T, class Op>
std::size_t reduce_flag_segments(const launch_options& options, const In* in,
                                 const std::uint8_t* flags, std::size_t n, T* out, T init, Op op) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {flags, "the head flags"}, {out, "the output"}});
  return segments::reduce_counted(options, guard.device(), segments::flag_heads{flags}, in, n, out,
                                  true, init, op);
}

template <class K, class In, class T, class Op>
std::size_t reduce_key_segments(const launch_options& options, const K* keys, const In* in,
                                std::size_t n, K* keys_out, T* out, Op op) {
  device_guard guard(options.device);
  segments::check_call(
      options, guard.device(), "reduce_by_key",
      {{keys, "the keys"}, {in, "the input"}, {keys_out, "the output keys"}, {out, "the output"}});
  return segments::reduce_counted(options, guard.device(), segments::key_heads<K>{keys, keys_out},
                                  in, n, out, false, T{}, op);
}

template <class I>
void check_segment_offsets(const launch_options& options, const I* begins, std::size_t k,
                           std::size_t n, const char* fn) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), fn, {{begins, "the offsets"}});
  const auto stream = static_cast<cudaStream_t>(options.stream);
  // one kernel and one wait: the first decrease and both ends (segments::check_offsets), written
  // where the host reads them (the cache's mapped host slot; device memory and one copy back
  // with a memory resource)
  unsigned long long report[3];
  {
    call_scratch scratch(guard.device(), options.stream, options.memory, 0, 0, 0, true);
    auto* device_report = static_cast<unsigned long long*>(scratch.result_slot());
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(device_report, 0xff, sizeof(report[0]), stream));
    launch(segments::check_offsets<I>, segments::helper_grid(k, guard.device()),
           segments::helper_block, 0, stream, begins, k, device_report);
    if (scratch.host_slot() == nullptr)
      PARPRIM_CUDA_CHECK(
          cudaMemcpyAsync(report, device_report, sizeof(report), cudaMemcpyDeviceToHost, stream));
    PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    scratch.finished_cleanly();
    if (scratch.host_slot() != nullptr) std::memcpy(report, scratch.host_slot(), sizeof(report));
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
  if (n > 0) {  // close_tiles writes the empty segments too
    segments::reduce_offsets(options, guard.device(), segments::offset_heads<I>{begins, k}, in, n,
                             out, init, op);
    return;
  }
  launch(segments::fill_empty_segments<I, T>, segments::helper_grid(k, guard.device()),
         segments::helper_block, 0, stream, begins, k, out, init);
  if (options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
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
