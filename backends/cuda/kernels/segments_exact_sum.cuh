#pragma once
/// \file
/// \brief parprim::exact_plus per segment on the GPU: the segmented scans (and the scans by
/// key) and the per-segment sums (segmented_reduce with head flags or offsets, reduce_by_key).
/// Every result is the exact sum of its operands rounded once, so its bits are the host
/// backends' (docs/reproducible.md).
///
/// Three launches over chunks of consecutive elements, one chunk per thread (the driver,
/// detail/exact_segments_launch.cuh, sizes the chunks so that one wave of threads covers the
/// input). Heads are one-byte flags (element 0 always starts a segment); keys and offsets are
/// turned into flags first.
/// 1. `exact_chunk_states`: each thread adds its chunk's elements into a superaccumulator,
///    starting it again at every head: the chunk's *open segment* (the sum since its last
///    head, or of the whole chunk) and its number of heads;
/// 2. `scan_exact_chunk_states` (one block): the exclusive scan of those states with the flag
///    operator gives each chunk the segment open at its start (its sum so far) and the number
///    of heads before it;
/// 3. `walk_exact_chunks`: each thread walks its chunk again from that state, starting again at
///    heads, and hands every step to an *emitter*: the scans write every running sum rounded;
///    the per-segment sums write a segment's sum rounded where it ends (at the next head, or
///    at the last element), numbered by counting heads or from the offsets.
/// The superaccumulators are integers, so no grouping or chunking shows in the bits. They
/// cost far more per element than a float add (an integer deposit, and a rounding per scan
/// output): these calls buy the same bits everywhere with speed.

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/kernels/segment_tiles.cuh>
#include <parprim/detail/exact_accumulator.hpp>

namespace parprim::detail::cuda::exact_segments {

/// \brief Threads per block of the chunk passes, and of the one-block scan of chunk states.
inline constexpr unsigned chunk_block = 128;
inline constexpr unsigned state_scan_block = 512;

/// \brief What a chunk leaves for the scan over chunks: the sum of the segment open at its end
/// (since its last head, or of all of it) and its number of heads.
template <class F>
struct chunk_state {
  exact_accumulator<F> open;
  std::uint64_t heads;
};

/// \brief `a` becomes `a` followed by `b` (the flag operator on chunk states; associative).
template <class F>
__device__ void append(chunk_state<F>& a, const chunk_state<F>& b) {
  if (b.heads != 0)
    a.open = b.open;
  else
    a.open.merge(b.open);
  a.heads += b.heads;
}

/// \brief Whether element i starts a segment.
__device__ inline bool is_head(const std::uint8_t* flags, std::size_t i) {
  return i == 0 || flags[i] != 0;
}

/// \brief The chunk of thread c: elements [first, last).
struct chunk_range {
  std::size_t first, last;
  __device__ chunk_range(std::size_t c, std::size_t per, std::size_t n)
      : first(c * per), last(n - c * per < per ? n : c * per + per) {}
};

/// \brief Pass 1: every chunk's state.
template <class In, class F>
__global__ void __launch_bounds__(chunk_block)
    exact_chunk_states(const In* __restrict__ in, const std::uint8_t* __restrict__ flags,
                       std::size_t n, std::size_t per, std::size_t chunks,
                       chunk_state<F>* __restrict__ states) {
  const std::size_t c = blockIdx.x * std::size_t{chunk_block} + threadIdx.x;
  if (c >= chunks) return;
  const chunk_range r(c, per, n);
  chunk_state<F> s{};
  for (std::size_t i = r.first; i < r.last; ++i) {
    if (is_head(flags, i)) {
      s.open = exact_accumulator<F>{};
      ++s.heads;
    }
    s.open.add(static_cast<F>(in[i]));
  }
  states[c] = s;
}

/// \brief Pass 2, one block: `states[c]` becomes the fold of the states before chunk c (in
/// place). Each thread folds a run of chunks, thread 0 scans the runs' totals (`totals`:
/// `state_scan_block` states of scratch), and each thread rewrites its run.
template <class F>
__global__ void __launch_bounds__(state_scan_block)
    scan_exact_chunk_states(chunk_state<F>* states, std::size_t chunks, chunk_state<F>* totals) {
  const std::size_t per = (chunks + state_scan_block - 1) / state_scan_block;
  const std::size_t first = threadIdx.x * per < chunks ? threadIdx.x * per : chunks;
  const std::size_t last = chunks - first < per ? chunks : first + per;
  chunk_state<F> run{};
  for (std::size_t c = first; c < last; ++c) append(run, states[c]);
  totals[threadIdx.x] = run;
  __syncthreads();
  if (threadIdx.x == 0) {
    chunk_state<F> before{};
    for (unsigned t = 0; t < state_scan_block; ++t) {
      const chunk_state<F> total = totals[t];
      totals[t] = before;
      append(before, total);
    }
  }
  __syncthreads();
  run = totals[threadIdx.x];
  for (std::size_t c = first; c < last; ++c) {
    const chunk_state<F> s = states[c];
    states[c] = run;
    append(run, s);
  }
}

/// \brief Pass 3: chunk c walks its elements from `carries[c]` (pass 2's result). `reset` is
/// what a segment's sum starts from (empty, or the accumulator of `init`). The emitter gets:
/// `segment(i, counted)` (the number of the segment open at element i, `counted` the number
/// by counting heads), `open(i, s)` at a head, `close(s, sum)` where segment s ends, and
/// `element(i, sum, x)`, which adds x to the running sum.
template <class In, class F, class Emit>
__global__ void __launch_bounds__(chunk_block)
    walk_exact_chunks(const In* in, const std::uint8_t* __restrict__ flags, std::size_t n,
                      std::size_t per, std::size_t chunks,
                      const chunk_state<F>* __restrict__ carries, exact_accumulator<F> reset,
                      Emit emit) {
  const std::size_t c = blockIdx.x * std::size_t{chunk_block} + threadIdx.x;
  if (c >= chunks) return;
  const chunk_range r(c, per, n);
  exact_accumulator<F> sum = reset;
  sum.merge(carries[c].open);
  // the segment open before the chunk: the one that holds element first - 1 (none for chunk 0,
  // whose element 0 is a head; `counted` then wraps and is not used)
  std::size_t counted = carries[c].heads - 1;
  std::size_t segment = r.first > 0 ? emit.segment(r.first - 1, counted) : 0;
  for (std::size_t i = r.first; i < r.last; ++i) {
    const F x = static_cast<F>(in[i]);  // read before the output is written (in place)
    if (is_head(flags, i)) {
      if (i > 0) emit.close(segment, sum);
      sum = reset;
      segment = emit.segment(i, ++counted);
      emit.open(i, segment);
    }
    emit.element(i, sum, x);
  }
  if (r.last == n) emit.close(segment, sum);
}

/// \brief The scans' emitter: every running sum, rounded, after (inclusive) or before
/// (exclusive) its element.
template <class F>
struct scan_outputs {
  F* out;
  bool exclusive;
  __device__ std::size_t segment(std::size_t, std::size_t counted) const { return counted; }
  __device__ void open(std::size_t, std::size_t) const {}
  __device__ void close(std::size_t, const exact_accumulator<F>&) const {}
  __device__ void element(std::size_t i, exact_accumulator<F>& sum, F x) const {
    if (exclusive) out[i] = sum.template round<F>();
    sum.add(x);
    if (!exclusive) out[i] = sum.template round<F>();
  }
};

/// \brief The per-segment sums' emitter: `out[s]` = segment s's sum rounded; `Numbers` names
/// the segments (counted heads, key runs with their first key, or CSR offsets).
template <class F, class Numbers>
struct segment_sums {
  F* out;
  Numbers numbers;
  __device__ std::size_t segment(std::size_t i, std::size_t counted) const {
    return numbers.segment(i, counted);
  }
  __device__ void open(std::size_t i, std::size_t s) const { numbers.open(i, s); }
  __device__ void close(std::size_t s, const exact_accumulator<F>& sum) const {
    out[s] = sum.template round<F>();
  }
  __device__ void element(std::size_t, exact_accumulator<F>& sum, F x) const { sum.add(x); }
};

/// \brief Segments numbered by counting heads (head flags).
struct counted_numbers {
  __device__ std::size_t segment(std::size_t, std::size_t counted) const { return counted; }
  __device__ void open(std::size_t, std::size_t) const {}
};

/// \brief Key runs numbered by counting; each run's first key to `keys_out[run]`.
template <class K>
struct key_numbers {
  const K* keys;
  K* keys_out;
  __device__ std::size_t segment(std::size_t, std::size_t counted) const { return counted; }
  __device__ void open(std::size_t i, std::size_t s) const { keys_out[s] = keys[i]; }
};

/// \brief CSR segments: element i is in the last segment s with `begins[s] <= i`.
template <class I>
struct offset_numbers {
  segments::offset_heads<I> heads;
  __device__ std::size_t segment(std::size_t i, std::size_t) const { return heads.segment_of(i); }
  __device__ void open(std::size_t, std::size_t) const {}
};

/// \brief Head flags of CSR segments (`flags` zeroed before): 1 at the first element of every
/// non-empty segment.
template <class I>
__global__ void offset_head_flags(const I* begins, std::size_t k, std::uint8_t* flags) {
  for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s < k;
       s += std::size_t{gridDim.x} * blockDim.x)
    if (begins[s] < begins[s + 1]) flags[static_cast<std::size_t>(begins[s])] = 1;
}

}  // namespace parprim::detail::cuda::exact_segments
