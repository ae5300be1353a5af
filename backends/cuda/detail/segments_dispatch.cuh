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
#include <parprim/backends/cuda/kernels/segments_short.cuh>
#include <parprim/backends/cuda/kernels/segments_staged.cuh>
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

/// \brief Nothing enqueued after a reduction of counted heads (see reduce_into_room).
struct nothing_after {
  void operator()(const std::size_t*) const {}
};

/// \brief A one-pass reduction of counted heads: `enqueue(state, count slot)` launches it over
/// `tiles` tiles of n > 0 elements, `after(count slot)` what follows it on the stream, then the
/// host waits for the number of segments, which the kernel writes where the host reads it (the
/// cache's mapped host slot, or device memory and one copy back).
template <class T, class Enqueue, class After>
std::size_t run_counted(const launch_options& options, int device, std::size_t n, std::size_t tiles,
                        const Enqueue& enqueue, const After& after) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const look_back_memory<segment_run<T>> memory(tiles, n, "per-segment reduction");
  call_scratch scratch(device, options.stream, options.memory, memory.scratch_bytes(),
                       memory.status_words(), memory.status_layout(), true);
  auto* count = static_cast<std::size_t*>(scratch.result_slot());
  enqueue(
      memory.state(scratch.device_scratch(), scratch.status(), scratch.ticket(), scratch.epoch()),
      count);
  after(static_cast<const std::size_t*>(count));
  std::size_t segments = 0;
  if (scratch.host_slot() == nullptr)
    PARPRIM_CUDA_CHECK(
        cudaMemcpyAsync(&segments, count, sizeof(segments), cudaMemcpyDeviceToHost, stream));
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  scratch.finished_cleanly();
  if (scratch.host_slot() != nullptr) std::memcpy(&segments, scratch.host_slot(), sizeof(segments));
  return segments;
}

/// \brief The one-pass reduction of counted heads in registers (kernels/segments_look_back.cuh)
/// into `out` of `room` slots (and the keys' `heads.room`): results past it are not written.
/// dev/ sweeps give `MinBlocksPerSM` and `delays` (else run_look_back_delays).
template <class Heads, class In, class T, class Op, unsigned MinBlocksPerSM = tiles_per_sm<T>,
          class After = nothing_after>
std::size_t reduce_counted(const launch_options& options, int device, Heads heads, const In* in,
                           std::size_t n, T* out, std::size_t room, bool has_init, const T& init,
                           Op op, const look_back_delays* delays = nullptr,
                           const After& after = {}) {
  if (n == 0) return 0;
  const std::size_t tiles = tile_count(n);
  return run_counted<T>(
      options, device, n, tiles,
      [&](const auto& st, std::size_t* count) {
        launch(reduce_segments_look_back<Heads, In, T, Op, MinBlocksPerSM>, tiles, tile_block, 0,
               static_cast<cudaStream_t>(options.stream), heads, in, n, out, room, has_init, init,
               op, tiles, st, delays != nullptr ? *delays : run_look_back_delays(tiles), count);
      },
      after);
}

/// \brief Whether reduce_by_key of `T` values (read as `In`) with keys `K` runs on the staged
/// tile (kernels/segments_staged.cuh): values read unconverted, of a size the tile holds.
template <class K, class In, class T, class Op>
inline constexpr bool staged_keys_fit_v =
    std::is_same_v<In, T> &&
    (shared_bulk_tile_fits_v<counted_run_problem<T, Op, key_run_heads<K>>, T>);

/// \brief The one-pass reduction of counted heads on the staged tile (kernels/
/// segments_staged.cuh), as reduce_counted. dev/ sweeps give `MinBlocksPerSM`, `KeyBatch` and
/// `delays`.
template <class Heads, class T, class Op, unsigned MinBlocksPerSM = 0,
          unsigned KeyBatch = staged_key_batch, class After = nothing_after>
std::size_t reduce_counted_staged(const launch_options& options, int device, Heads heads,
                                  const T* in, std::size_t n, T* out, std::size_t room,
                                  bool has_init, const T& init, Op op,
                                  const look_back_delays* delays = nullptr,
                                  const After& after = {}) {
  if (n == 0) return 0;
  using reader = decltype(heads.reader());
  using P = counted_run_problem<T, Op, reader>;
  using Tile = staged_run_tile<T, Op, reader>;
  constexpr unsigned per_sm = MinBlocksPerSM > 0 ? MinBlocksPerSM : staged_tiles_per_sm<Tile>;
  const std::size_t tiles = (n + Tile::tile_size - 1) / Tile::tile_size;
  return run_counted<T>(
      options, device, n, tiles,
      [&](const auto& st, std::size_t* count) {
        launch(reduce_segments_staged<Tile, P, Heads, per_sm, KeyBatch>, tiles, Tile::block_size, 0,
               static_cast<cudaStream_t>(options.stream), P{in, heads.reader(), n, op}, heads, out,
               room, has_init, init, tiles, st,
               delays != nullptr ? *delays : run_look_back_delays(tiles), count);
      },
      after);
}

/// \brief A reduction of counted heads of n > 0 elements into outputs of `room` slots: `out`,
/// and `keys_out` for key runs (else null). Returns the number of segments, and writes the
/// outputs only when every result fits. `reduce(to, keys_to, room, after)` runs the one-pass
/// reduction into `to` and `keys_to` of `room` slots, enqueueing `after(count slot)` behind it;
/// `heads` counts the segments (count_segments), reading `head_bytes` bytes.
/// - With room for n results, the one pass writes the outputs.
/// - Where moving `room` results twice takes fewer bytes than counting the heads, the results go
///   to a temporary of `room` slots, and copy_results_if_room moves them into the outputs on the
///   GPU when they all fit: the heads and elements are read once.
/// - Otherwise the heads are counted first, and the reduction writes into the outputs directly
///   when the results fit.
template <class T, class K, class Heads, class Reduce>
std::size_t reduce_into_room(const launch_options& options, int device, Heads heads, std::size_t n,
                             T* out, K* keys_out, std::size_t room, std::size_t head_bytes,
                             const Reduce& reduce) {
  if (room >= n) return reduce(out, keys_out, n, nothing_after{});
  const std::size_t result_bytes = sizeof(T) + (keys_out != nullptr ? sizeof(K) : 0);
  if (room == 0 || room > head_bytes / (2 * result_bytes)) {
    const std::size_t segments = count_segments(options, device, heads, n);
    return segments > room ? segments : reduce(out, keys_out, room, nothing_after{});
  }
  const std::size_t values_bytes = align256(room * sizeof(T));
  temp_block staged(device, options.stream, options.memory,
                    values_bytes + (keys_out != nullptr ? room * sizeof(K) : 0));
  auto* values = static_cast<T*>(staged.get());
  K* keys = keys_out != nullptr
                ? reinterpret_cast<K*>(static_cast<unsigned char*>(staged.get()) + values_bytes)
                : nullptr;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  return reduce(values, keys, room, [&](const std::size_t* count) {
    launch(copy_results_if_room<T, K>, helper_grid(room, device), helper_block, 0, stream,
           static_cast<const T*>(values), out, static_cast<const K*>(keys), keys_out, count, room);
  });
}

/// \brief How the offsets' tiles of `T` under `Op` are reduced (kernels/segment_tiles.cuh),
/// measured with dev/segments_offsets_sweep.cu:
/// - commutative operators on segments of 2 tiles or more on average (most tiles only fold): one
///   pass over one wave of spans, folding the stretches of such tiles without a block step
///   between them. H200, int32 sums: 2^28 in segments of 65536 313.7 -> 262.1 us (the three
///   steps; CUB 245.9), power-law lengths 341.5 -> 317.1 (CUB 298.4), one segment 294.8 ->
///   260.2; 2^26 in segments of 65536 102.1 -> 87.6 (CUB 73.4);
/// - otherwise in one pass while one wave of blocks holds every span of at most 16 tiles (a
///   block walks its span, so its look-back and the last wave's idle blocks are paid once), else
///   in three steps, each block asking L2 for the tile one wave of blocks ahead where the
///   segments are shorter than 2 tiles. H100, int32 sums: at 2^24 spans of 8 tiles took 46-77 us
///   where the three steps took 50-81 (spans of 1 tile 63-98, of 32 tiles 64-135); at 2^26 the
///   three steps took 116-210 us, the one pass 112-227 at 32 tiles a span (slower on short
///   segments); at 2^28 the three steps won everywhere (segments of 32: 727 us against 826 at
///   the best span; of 65536: 380 against 395). The look-back's waits moved the one pass by
///   1-3 %. H200, the prefetch: 2^28 segments of 32 687 -> 672 us, of 1024 590 -> 571.
template <class T, class Op>
offset_span_plan plan_offset_spans(std::size_t n, std::size_t k, int device) {
  const std::size_t tiles = tile_count(n);
  const std::size_t sms = static_cast<std::size_t>(multiprocessor_count(device));
  const bool long_segments = k > 0 && n / k >= 2 * tile_size;
  const auto delays = [&](std::size_t per) {
    return look_back_tuning::sleeps((tiles + per - 1) / per) ? look_back_delays{400, 200, 400}
                                                             : look_back_tuning::no_sleep;
  };
  if constexpr (is_commutative_v<Op>) {
    if (long_segments) {
      const std::size_t resident = sms * tiles_per_sm<T>;
      const std::size_t per = tiles < resident ? 1 : (tiles + resident - 1) / resident;
      return {tiles, static_cast<unsigned>(per), delays(per), true, 0, true, true};
    }
  }
  const std::size_t resident = sms * 4;
  std::size_t per = (tiles + resident - 1) / resident;
  const bool one_pass = per <= 16;
  per = per < 1 ? 1 : (per > 16 ? 16 : per);
  const unsigned ahead = one_pass || long_segments ? 0 : static_cast<unsigned>(resident);
  return {tiles, static_cast<unsigned>(per), delays(per), one_pass, ahead, false, one_pass};
}

/// \brief The temporary memory of an offsets call: `device_bytes` of scratch and the look-back's
/// status words (`status_words` in `layout`), then the verdict word in a layout unit of its own
/// past them (status memory: see offsets_verdict_bad), and the host slot for the refusal.
class offsets_scratch {
 public:
  offsets_scratch(const launch_options& options, int device, std::size_t device_bytes,
                  std::size_t status_words, unsigned layout)
      : unit_(layout / sizeof(unsigned) > 0 ? layout / sizeof(unsigned) : 1),
        verdict_at_((status_words + unit_ - 1) / unit_ * unit_),
        scratch_(device, options.stream, options.memory, device_bytes, verdict_at_ + unit_, layout,
                 true) {}
  call_scratch& get() { return scratch_; }
  unsigned* verdict() const { return scratch_.status() + verdict_at_; }
  unsigned* refused() const { return static_cast<unsigned*>(scratch_.result_slot()); }
  /// \brief The call's end: an enqueue-only call returns (true); else waits and returns
  /// whether the offsets were accepted.
  bool finish(const launch_options& options) {
    if (!options.sync) {
      finish_call(options, scratch_);
      return true;
    }
    const auto stream = static_cast<cudaStream_t>(options.stream);
    unsigned refusal = 0;
    if (scratch_.host_slot() == nullptr)
      PARPRIM_CUDA_CHECK(
          cudaMemcpyAsync(&refusal, refused(), sizeof(refusal), cudaMemcpyDeviceToHost, stream));
    PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    scratch_.finished_cleanly();
    if (scratch_.host_slot() != nullptr)
      std::memcpy(&refusal, scratch_.host_slot(), sizeof(refusal));
    return refusal == 0;
  }

 private:
  std::size_t unit_;
  std::size_t verdict_at_;
  call_scratch scratch_;
};

/// \brief The three steps (kernels/segment_tiles.cuh), n > 0: locate_tiles, reduce_tiles, the
/// look-back scan of the tails (rung 5's driver, on this call's scratch) and close_tiles.
template <class I, class In, class T, class Op>
bool reduce_offsets_in_three_steps(const launch_options& options, int device, offset_heads<I> heads,
                                   const In* in, std::size_t n, T* out, const T& init, Op op,
                                   bool check, const offset_span_plan& plan) {
  using V = open_segment<T>;
  using P = plain_problem<V, V, open_segment_op<Op>>;
  using D = typename scan_driver<cuda_scan_rung::decoupled_look_back, P>::type;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = tile_count(n);
  const D driver = make_driver<D>(tiles, device);
  const std::size_t scan_bytes = align256(driver.scratch_bytes());
  const std::size_t first_bytes = align256((tiles + 1) * sizeof(std::size_t));
  const std::size_t tail_bytes = align256(tiles * sizeof(V));
  offsets_scratch scratch(options, device,
                          scan_bytes + first_bytes + tail_bytes + tiles * sizeof(tile_lead<T>),
                          driver.status_words(), driver.status_layout());
  call_scratch& cs = scratch.get();
  auto* bytes = static_cast<unsigned char*>(cs.device_scratch());
  auto* first = reinterpret_cast<std::size_t*>(bytes + scan_bytes);
  auto* tails = reinterpret_cast<V*>(bytes + scan_bytes + first_bytes);
  auto* leads = reinterpret_cast<tile_lead<T>*>(bytes + scan_bytes + first_bytes + tail_bytes);
  launch(locate_tiles<I>, helper_grid((check && heads.k > tiles ? heads.k : tiles) + 1, device),
         helper_block, 0, stream, heads, n, tiles, first, check, scratch.verdict(), cs.epoch());
  // Where most tiles hold a head (segments shorter than a tile on average) they scan, and 5
  // tiles per SM (values of up to 4 bytes) run them faster; tiles that only fold run faster at
  // 4 (scanning_tiles_per_sm).
  const auto tile_kernel = scans_most_tiles<T>(n, heads.k)
                               ? reduce_tiles<I, In, T, Op, scanning_tiles_per_sm<T>>
                               : reduce_tiles<I, In, T, Op>;
  launch(tile_kernel, tiles, tile_block, 0, stream, heads, in, n, out, init, op, first, tails,
         leads, scratch.verdict(), cs.epoch(), scratch.refused(), plan.ahead);
  driver.enqueue(P{tails, tails, tiles, open_segment_op<Op>{op}, false, {}},
                 scan_scratch{bytes, cs.status(), cs.ticket(), cs.epoch(), options.deterministic},
                 stream);
  launch(close_tiles<I, T, Op>, helper_grid(tiles > heads.k ? tiles : heads.k, device),
         helper_block, 0, stream, heads, tails, leads, tiles, out, init, op, scratch.verdict(),
         cs.epoch());
  return scratch.finish(options);
}

/// \brief The one pass (kernels/segment_tiles.cuh): locate_tiles, then reduce_offset_spans.
template <class I, class In, class T, class Op>
bool reduce_offsets_in_one_pass(const launch_options& options, int device, offset_heads<I> heads,
                                const In* in, std::size_t n, T* out, const T& init, Op op,
                                bool check, const offset_span_plan& plan) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t tiles = plan.tiles;
  const look_back_memory<open_segment<T>> memory(plan.spans(), n, "per-segment reduction");
  const std::size_t states_bytes = memory.scratch_bytes();
  offsets_scratch scratch(options, device, states_bytes + (tiles + 1) * sizeof(std::size_t),
                          memory.status_words(), memory.status_layout());
  call_scratch& cs = scratch.get();
  auto* first =
      reinterpret_cast<std::size_t*>(static_cast<char*>(cs.device_scratch()) + states_bytes);
  launch(locate_tiles<I>, helper_grid((check && heads.k > tiles ? heads.k : tiles) + 1, device),
         helper_block, 0, stream, heads, n, tiles, first, check, scratch.verdict(), cs.epoch());
  auto kernel = reduce_offset_spans<I, In, T, Op>;
  if constexpr (is_commutative_v<Op>)
    if (plan.stretch) kernel = reduce_offset_spans<I, In, T, Op, tiles_per_sm<T>, true>;
  launch_kernel(plan.dependent, kernel,
                plan.blocks(heads.k, static_cast<std::size_t>(multiprocessor_count(device)) * 8),
                tile_block, 0, stream, heads, in, n, out, init, op, first, plan,
                memory.state(cs.device_scratch(), cs.status(), cs.ticket(), cs.epoch()),
                scratch.verdict(), scratch.refused());
  return scratch.finish(options);
}

/// \brief The offsets' reduction on the stream, then the call's end (wait unless nosync). With
/// `check` (a synchronous call) locate_tiles checks the offsets too; when they fail the kernels
/// write no result and this returns false after the wait (the caller then raises). Otherwise
/// it returns true. `tuned`: dev/ sweeps' plan.
template <class I, class In, class T, class Op>
bool reduce_offsets(const launch_options& options, int device, offset_heads<I> heads, const In* in,
                    std::size_t n, T* out, const T& init, Op op, bool check,
                    const offset_span_plan* tuned = nullptr) {
  const offset_span_plan plan =
      tuned != nullptr ? *tuned : plan_offset_spans<T, Op>(n, heads.k, device);
  if (plan.one_pass || n == 0)
    return reduce_offsets_in_one_pass(options, device, heads, in, n, out, init, op, check, plan);
  return reduce_offsets_in_three_steps(options, device, heads, in, n, out, init, op, check, plan);
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
                                 const std::uint8_t* flags, std::size_t n, T* out, std::size_t room,
                                 T init, Op op) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {flags, "the head flags"}, {out, "the output"}});
  if (n == 0) return 0;
  // values of up to 4 bytes: 5 tiles per SM (48 registers; the tile kernel's two walks, plain
  // and skewed, need more than that uncapped and would hold 4; dev/segments_look_back_sweep.cu)
  constexpr unsigned per_sm = sizeof(T) <= 4 ? 5 : segments::tiles_per_sm<T>;
  const segments::flag_heads heads{flags};
  const auto reduce = [&](T* to, std::uint8_t*, std::size_t slots, const auto& after) {
    return segments::reduce_counted<segments::flag_heads, In, T, Op, per_sm>(
        options, guard.device(), heads, in, n, to, slots, true, init, op, nullptr, after);
  };
  return segments::reduce_into_room<T, std::uint8_t>(options, guard.device(), heads, n, out,
                                                     nullptr, room, n, reduce);
}

template <class K, class In, class T, class Op>
std::size_t reduce_key_segments(const launch_options& options, const K* keys, const In* in,
                                std::size_t n, K* keys_out, T* out, std::size_t room, Op op) {
  device_guard guard(options.device);
  segments::check_call(
      options, guard.device(), "reduce_by_key",
      {{keys, "the keys"}, {in, "the input"}, {keys_out, "the output keys"}, {out, "the output"}});
  if (n == 0) return 0;
  const auto reduce = [&](T* to, K* keys_to, std::size_t slots, const auto& after) {
    const segments::key_heads<K> heads{keys, keys_to, slots};
    // values of 4, 8 or 16 bytes read unconverted: rung 6's staged tile (H200, 2^28 int32 keys
    // and values, dev/segments_look_back_sweep.cu: runs of 1024 747 -> 587 us, of 32 792 -> 659,
    // of 1 1,392 -> 1,367; CUB's ReduceByKey 799, 861 and 1,427)
    if constexpr (segments::staged_keys_fit_v<K, In, T, Op>) {
      return segments::reduce_counted_staged<segments::key_heads<K>, T, Op, 0,
                                             segments::staged_key_batch>(
          options, guard.device(), heads, in, n, to, slots, false, T{}, op, nullptr, after);
    } else {
      // the others (inputs converted into the values, other sizes) in registers; keys and
      // values of up to 4 bytes: 5 tiles per SM (H100, 2^28 int32, dev/segments_look_back_sweep.cu:
      // runs of 32 956 -> 903 us, of 1024 890-892 -> 835-838; runs of 1, every key its own run,
      // 1,917-1,930 -> 1,966-1,970; at 2^24 within 2 % either way)
      constexpr unsigned per_sm = sizeof(K) <= 4 && sizeof(T) <= 4 ? 5 : segments::tiles_per_sm<T>;
      return segments::reduce_counted<segments::key_heads<K>, In, T, Op, per_sm>(
          options, guard.device(), heads, in, n, to, slots, false, T{}, op, nullptr, after);
    }
  };
  return segments::reduce_into_room<T, K>(options, guard.device(),
                                          segments::key_heads<K>{keys, nullptr}, n, out, keys_out,
                                          room, n * sizeof(K), reduce);
}

namespace segments {

/// \brief check_segment_offsets, which with `cap` > 0 also returns whether no segment is longer
/// than `cap` elements (else true).
template <class I>
bool check_offsets_within(const launch_options& options, const I* begins, std::size_t k,
                          std::size_t n, const char* fn, std::size_t cap) {
  device_guard guard(options.device);
  check_call(options, guard.device(), fn, {{begins, "the offsets"}});
  const auto stream = static_cast<cudaStream_t>(options.stream);
  // one kernel and one wait: the first decrease, both ends and whether a segment is longer than
  // cap (check_offsets), written where the host reads them (the cache's mapped host slot;
  // device memory and one copy back with a memory resource)
  unsigned long long report[4];
  {
    call_scratch scratch(guard.device(), options.stream, options.memory, 0, 0, 0, true);
    auto* device_report = static_cast<unsigned long long*>(scratch.result_slot());
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(device_report, 0xff, sizeof(report), stream));
    launch(check_offsets<I>, helper_grid(k, guard.device()), helper_block, 0, stream, begins, k,
           device_report, cap);
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
  return report[3] != 0;
}

/// \brief Whether a call of k segments over n elements asks first whether all of them are
/// short (reduce_short_segments, kernels/segments_short.cuh): a few elements a segment on
/// average (at most `short_mean`) and enough of them that the check's wait is a small part of
/// the call.
inline constexpr std::size_t short_mean = 4;
inline constexpr std::size_t short_from = std::size_t{1} << 18;
inline bool short_segments_likely(std::size_t n, std::size_t k) {
  return n >= short_from && k >= n / short_mean;
}

/// \brief Enqueues reduce_short_segments over k segments, each at most short_segment_cap long,
/// and waits for it in a synchronous call.
template <class I, class In, class T, class Op>
void reduce_short(const launch_options& options, int device, const I* begins, std::size_t k,
                  const In* in, T* out, const T& init, Op op) {
  constexpr unsigned per_thread = short_segments_per_thread<T>;
  static_assert(short_block == helper_block, "a helper grid of threads taking per_thread each");
  const auto stream = static_cast<cudaStream_t>(options.stream);
  launch(reduce_short_segments<per_thread, I, In, T, Op>,
         helper_grid(ceil_div(k, per_thread), device), short_block, 0, stream, begins, k, in, out,
         init, op);
  if (options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace segments

template <class I>
void check_segment_offsets(const launch_options& options, const I* begins, std::size_t k,
                           std::size_t n, const char* fn) {
  segments::check_offsets_within<I>(options, begins, k, n, fn, 0);
}

template <class I, class In, class T, class Op>
void reduce_offset_segments(const launch_options& options, const In* in, std::size_t n,
                            const I* begins, std::size_t k, T* out, T init, Op op, bool checked) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {begins, "the offsets"}, {out, "the output"}});
  // A few elements a segment on average: the check (a second one where the offsets were checked
  // before, except in an enqueue-only call, which then waits for nothing) also says whether
  // every segment is short; then one thread a segment reduces them, else the tiles below do.
  if (segments::short_segments_likely(n, k) && (options.sync || !checked)) {
    if (segments::check_offsets_within<I>(options, begins, k, n, "segmented_reduce",
                                          segments::short_segment_cap)) {
      segments::reduce_short<I, In, T, Op>(options, guard.device(), begins, k, in, out, init, op);
      return;
    }
    checked = true;
  }
  // an enqueue-only call raises before it returns: the check and its wait come first
  if (!checked && !options.sync) {
    check_segment_offsets<I>(options, begins, k, n, "segmented_reduce");
    checked = true;
  }
  if (k == 0) {  // no segment to write; the one offset must still be 0 and n
    if (!checked) check_segment_offsets<I>(options, begins, k, n, "segmented_reduce");
    return;
  }
  if (segments::reduce_offsets(options, guard.device(), segments::offset_heads<I>{begins, k}, in, n,
                               out, init, op, !checked))
    return;
  // the offsets failed the check and nothing was written: find why, with the host's words
  check_segment_offsets<I>(options, begins, k, n, "segmented_reduce");
  throw invalid_argument("parprim::segmented_reduce: the offsets failed the device's check");
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
