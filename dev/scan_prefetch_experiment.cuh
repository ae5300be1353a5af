#pragma once
/// \file
/// \brief EXPERIMENT, not part of the library (measured slower; kept for the record, see
/// docs/kernels.md and docs/results/h200-scan-dev-2026-11-22.txt, run I). It was driven from
/// single_pass_look_back::enqueue with a grid of (blocks that fit) x SMs, dynamic shared memory
/// staged_tile_bytes, and draws = tiles + grid. 2^28 int32: 1,074 us against 702 us for one
/// block per tile.
///
/// Rung 5 with the next tile in flight: the same decoupled look-back, on a persistent
/// grid (as many blocks as fit on the device), each block taking tiles from the counter in
/// order and, while it looks back and stores tile t, copying its next tile into shared memory
/// (`cp.async`). With one block per tile, a block's memory traffic stops while it waits for
/// its predecessors; here its next loads are in the air during that wait. Plain scans of
/// arithmetic inputs, 16-byte aligned (the copy moves 16-byte words); a partial last tile is
/// loaded directly.
///
/// Progress: a block holds at most two tickets, the tile it is finishing and the next, and
/// finishes them in order. The oldest unfinished tile's owner is therefore working on it, and
/// its look-back only waits for older tiles, all finished: no deadlock, whatever the
/// scheduler does. Every block draws tickets until it draws one past the last tile, so a call
/// makes exactly tiles + grid draws; the last draw resets the counter for the next call.

#include <cuda_pipeline.h>

#include <cstddef>
#include <type_traits>

#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>

namespace parprim::detail::cuda {

/// \brief The element type a problem reads.
template <class Problem>
using problem_input_t = std::remove_cv_t<std::remove_pointer_t<decltype(Problem::in)>>;

/// \brief Whether `Tile` over `Problem` can stage its tiles in shared memory: a plain scan of
/// an arithmetic input whose tile is a whole number of 16-byte words.
template <class Tile, class Problem>
inline constexpr bool stageable_v =
    !Problem::segmented && std::is_arithmetic_v<problem_input_t<Problem>> &&
    (Tile::tile_size * sizeof(problem_input_t<Problem>)) % 16 == 0;

/// \brief Shared memory of the staged tile, in bytes.
template <class Tile, class Problem>
inline constexpr std::size_t staged_tile_bytes =
    Tile::tile_size * sizeof(problem_input_t<Problem>);

template <class Tile, class Problem, unsigned FoldTilesPerLane>
__global__ void __launch_bounds__(Tile::block_size)
    scan_look_back_prefetch_kernel(Problem p, std::size_t tiles,
                                   look_back_state<typename Problem::value_type> st,
                                   bool deterministic, look_back_delays delays,
                                   unsigned draws) {
  using V = typename Problem::value_type;
  using In = problem_input_t<Problem>;
  static_assert(stageable_v<Tile, Problem>, "scan_look_back_prefetch_kernel: plain scans of "
                                            "arithmetic inputs in 16-byte words only");
  constexpr unsigned words = staged_tile_bytes<Tile, Problem> / 16;
  extern __shared__ uint4 stage[];  // the next tile's input, words
  __shared__ typename Tile::storage storage;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  __shared__ unsigned ticket_slot;
  const auto op = p.value_op();
  const auto draw = [&] {
    if (threadIdx.x == 0) {
      const unsigned id = atomicAdd(st.ticket, 1u);
      if (id == draws - 1) *st.ticket = 0;  // the call's last draw: ready for the next call
      ticket_slot = id;
    }
  };
  const auto full = [&](std::size_t tile) { return (tile + 1) * Tile::tile_size <= p.n; };
  const auto prefetch = [&](std::size_t tile) {
    const uint4* src = reinterpret_cast<const uint4*>(p.in + tile * Tile::tile_size);
    for (unsigned w = threadIdx.x; w < words; w += Tile::block_size)
      __pipeline_memcpy_async(stage + w, src + w, 16);
    __pipeline_commit();
  };

  draw();
  __syncthreads();
  std::size_t tile = ticket_slot;
  if (tile >= tiles) return;  // this block's one draw past the end (the same in every thread)
  __syncthreads();            // every thread has read the ticket before the next draw
  if (full(tile)) prefetch(tile);
  for (;;) {
    if (full(tile)) __pipeline_wait_prior(0);
    __syncthreads();  // the staged tile is visible to every thread
    const std::size_t first = tile * Tile::tile_size;
    const auto len =
        static_cast<unsigned>(p.n - first < Tile::tile_size ? p.n - first : Tile::tile_size);
    Tile t;
    V total;
    if (full(tile)) {
      // the same problem reading the staged copy: element i of the tile at stage[i - first]
      Problem staged = p;
      staged.in = reinterpret_cast<const In*>(stage) - first;
      total = t.scan(staged, op, first, len, storage);
    } else {
      total = t.scan(p, op, first, len, storage);
    }
    // scan() has passed a barrier after every thread's loads: the stage is free. The next
    // ticket is drawn only now, so tiles are taken in about the order they are worked on.
    draw();
    __syncthreads();
    const std::size_t next = ticket_slot;
    if (next < tiles && full(next)) prefetch(next);
    if (threadIdx.x < warp_threads)
      resolve_carry<FoldTilesPerLane>(p, tile, tiles, total, st, deterministic, delays,
                                      carry_slot[0]);
    __syncthreads();  // also: every thread has read ticket_slot before the next draw
    t.emit(p, op, first, carry_slot[0]);
    if (next >= tiles) return;
    tile = next;
  }
}

}  // namespace parprim::detail::cuda
