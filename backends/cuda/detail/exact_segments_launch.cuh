#pragma once
/// \file
/// \brief The definitions of the exact per-segment entries (declared in
/// detail/exact_segments_entry.hpp): argument checks, the head flags of keys and offsets, and
/// the three launches of kernels/segments_exact_sum.cuh.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/detail/exact_segments_entry.hpp>
#include <parprim/backends/cuda/detail/scan_dispatch.cuh>
#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/backends/cuda/kernels/segments_exact_sum.cuh>

namespace parprim::detail::cuda {

namespace exact_segments {

/// \brief Elements per chunk: enough chunks for about 1024 threads per multiprocessor (one
/// wave), at least 16 elements each.
inline std::size_t chunk_length(std::size_t n, int device) {
  const std::size_t threads = static_cast<std::size_t>(multiprocessor_count(device)) * 1024;
  const std::size_t per = ceil_div(n, threads);
  return per < 16 ? 16 : per;
}

/// \brief Enqueues the three passes over n > 0 elements with head flags `flags`; every
/// segment's sum starts from `reset`; `emit` writes the results.
template <class In, class F, class Emit>
void run(const launch_options& options, int device, const In* in, const std::uint8_t* flags,
         std::size_t n, const exact_accumulator<F>& reset, const Emit& emit) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t per = chunk_length(n, device);
  const std::size_t chunks = ceil_div(n, per);
  const std::size_t state_bytes = align256(chunks * sizeof(chunk_state<F>));
  temp_block scratch(device, options.stream, options.memory,
                     state_bytes + state_scan_block * sizeof(chunk_state<F>));
  auto* states = static_cast<chunk_state<F>*>(scratch.get());
  auto* totals =
      reinterpret_cast<chunk_state<F>*>(static_cast<unsigned char*>(scratch.get()) + state_bytes);
  const std::size_t grid = ceil_div(chunks, chunk_block);
  launch(exact_chunk_states<In, F>, grid, chunk_block, 0, stream, in, flags, n, per, chunks,
         states);
  launch(scan_exact_chunk_states<F>, 1, state_scan_block, 0, stream, states, chunks, totals);
  launch(walk_exact_chunks<In, F, Emit>, grid, chunk_block, 0, stream, in, flags, n, per, chunks,
         static_cast<const chunk_state<F>*>(states), reset, emit);
}

/// \brief The end of an entry: wait for the GPU unless the policy says not to.
inline void finish(const launch_options& options) {
  if (options.sync)
    PARPRIM_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(options.stream)));
}

}  // namespace exact_segments

template <class In, class F>
void exact_segmented_scan(const launch_options& options, const In* in, const std::uint8_t* flags,
                          F* out, std::size_t n, scan_kind kind, const exact_accumulator<F>* init) {
  const char* fn =
      kind == scan_kind::exclusive ? "segmented_exclusive_scan" : "segmented_inclusive_scan";
  device_guard guard(options.device);
  check_stream(options.stream, guard.device(), fn);
  check_segmented_scan_operands(in, flags, out, n, kind, init, fn);
  if (n == 0) return;
  const bool exclusive = kind == scan_kind::exclusive;
  // an exclusive scan's segments start from init (checked above), an inclusive one's from nothing
  exact_segments::run(options, guard.device(), in, flags, n,
                      exclusive ? *init : exact_accumulator<F>{},
                      exact_segments::scan_outputs<F>{out, exclusive});
  exact_segments::finish(options);
}

template <class In, class F>
void exact_flag_segments(const launch_options& options, const segment_plan& plan, const In* in,
                         const std::uint8_t* flags, F* out, const exact_accumulator<F>& init) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {flags, "the head flags"}, {out, "the output"}});
  if (plan.size() == 0) return;
  exact_segments::run(options, guard.device(), in, flags, plan.size(), init,
                      exact_segments::segment_sums<F, exact_segments::counted_numbers>{out, {}});
  exact_segments::finish(options);
}

template <class K, class In, class F>
void exact_key_segments(const launch_options& options, const segment_plan& plan, const K* keys,
                        const In* in, K* keys_out, F* out) {
  device_guard guard(options.device);
  segments::check_call(
      options, guard.device(), "reduce_by_key",
      {{keys, "the keys"}, {in, "the input"}, {keys_out, "the output keys"}, {out, "the output"}});
  const std::size_t n = plan.size();
  if (n == 0) return;
  temp_block flags(guard.device(), options.stream, options.memory, n);
  auto* f = static_cast<std::uint8_t*>(flags.get());
  enqueue_key_run_flags<K>(options, keys, n, f);
  exact_segments::run(
      options, guard.device(), in, static_cast<const std::uint8_t*>(f), n, exact_accumulator<F>{},
      exact_segments::segment_sums<F, exact_segments::key_numbers<K>>{out, {keys, keys_out}});
  exact_segments::finish(options);
}

template <class I, class In, class F>
void exact_offset_segments(const launch_options& options, const In* in, std::size_t n,
                           const I* begins, std::size_t k, F* out,
                           const exact_accumulator<F>& init) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce",
                       {{in, "the input"}, {begins, "the offsets"}, {out, "the output"}});
  if (k == 0) return;
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const std::size_t helper_grid = segments::helper_grid(k, guard.device());
  launch(segments::fill_empty_segments<I, F>, helper_grid, segments::helper_block, 0, stream,
         begins, k, out, init.template round<F>());
  if (n > 0) {
    temp_block flags(guard.device(), options.stream, options.memory, n);
    auto* f = static_cast<std::uint8_t*>(flags.get());
    PARPRIM_CUDA_CHECK(cudaMemsetAsync(f, 0, n, stream));
    launch(exact_segments::offset_head_flags<I>, helper_grid, segments::helper_block, 0, stream,
           begins, k, f);
    exact_segments::run(options, guard.device(), in, static_cast<const std::uint8_t*>(f), n, init,
                        exact_segments::segment_sums<F, exact_segments::offset_numbers<I>>{
                            out, {segments::offset_heads<I>{begins, k}}});
  }
  exact_segments::finish(options);
}

}  // namespace parprim::detail::cuda
