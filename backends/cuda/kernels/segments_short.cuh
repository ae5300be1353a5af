#pragma once
/// \file
/// \brief The per-segment reduction of short CSR segments: one thread a segment.
///
/// Where every segment holds at most `short_segment_cap` elements (the offsets' check says so:
/// detail/segments_dispatch.cuh), a thread reduces whole segments by itself and writes each
/// result once: no tile, no scan of open segments, no search. Lane l of a warp takes segments
/// base + j * 32 + l for j < `PerThread`, so the offsets, the first elements of the segments
/// and the results are read and written by whole warps at consecutive addresses. The thread
/// reads the offsets of its `PerThread` segments first, then their elements position by
/// position (element p of every segment that has one), so `PerThread` independent loads are in
/// flight at each step. Operands meet `op` in sequence order; `init` is the left-most operand of
/// every segment (and the result of an empty one).
///
/// Against the tile kernels (kernels/segment_tiles.cuh), which scan every tile that holds a head,
/// this moves only the offsets, the elements and the results: segments of one element read the
/// offsets and the input once and write each result with one store.

#include <cstddef>

namespace parprim::detail::cuda::segments {

/// Threads of a block of reduce_short_segments.
inline constexpr unsigned short_block = 256;
/// The longest segment reduce_short_segments takes. A warp's loads of longer segments reach
/// more cache lines at once than L1 keeps for all the warps of an SM: on an H100 at 2^28,
/// segments of 8 took 2.1 ms this way against 0.73 ms in the tiles, segments of 4 0.93 against
/// 0.96 (dev/segments_short_sweep.cu).
inline constexpr std::size_t short_segment_cap = 4;
/// Segments a thread takes at once: 8 of up to 8 bytes, 4 of larger values.
template <class T>
inline constexpr unsigned short_segments_per_thread = sizeof(T) <= 8 ? 8 : 4;

/// \brief `out[s] = init op in[begins[s]] op ... op in[begins[s + 1] - 1]` for s < k, every
/// segment at most short_segment_cap long (checked before the launch).
template <unsigned PerThread, class I, class In, class T, class Op>
__global__ void __launch_bounds__(short_block)
    reduce_short_segments(const I* __restrict__ begins, std::size_t k, const In* __restrict__ in,
                          T* __restrict__ out, T init, Op op) {
  constexpr std::size_t round = std::size_t{short_block} * PerThread;
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warp_first = std::size_t{threadIdx.x / 32} * 32 * PerThread + lane;
  for (std::size_t base = blockIdx.x * round; base < k; base += std::size_t{gridDim.x} * round) {
    std::size_t from[PerThread];
    unsigned length[PerThread];
    unsigned longest = 0;
#pragma unroll
    for (unsigned j = 0; j < PerThread; ++j) {
      const std::size_t s = base + warp_first + std::size_t{j} * 32;
      from[j] = 0;
      length[j] = 0;
      if (s < k) {
        const I b = begins[s];
        from[j] = static_cast<std::size_t>(b);
        length[j] = static_cast<unsigned>(static_cast<std::size_t>(begins[s + 1] - b));
        longest = length[j] > longest ? length[j] : longest;
      }
    }
    T value[PerThread];
#pragma unroll
    for (unsigned j = 0; j < PerThread; ++j) value[j] = init;
    for (unsigned p = 0; p < longest; ++p) {
#pragma unroll
      for (unsigned j = 0; j < PerThread; ++j)
        if (p < length[j]) value[j] = static_cast<T>(op(value[j], static_cast<T>(in[from[j] + p])));
    }
#pragma unroll
    for (unsigned j = 0; j < PerThread; ++j) {
      const std::size_t s = base + warp_first + std::size_t{j} * 32;
      if (s < k) out[s] = value[j];
    }
  }
}

}  // namespace parprim::detail::cuda::segments
