#pragma once
/// \file
/// \brief Scan rung 4: warp-shuffle reduce-then-scan over the grid. A grid of a few blocks per
/// multiprocessor; block b owns a contiguous run of tiles.
///
/// 1. `reduce_runs_kernel`: each block folds its run (register-blocked tiles, shuffles),
///    writing one total per block;
/// 2. `scan_runs_kernel`: each block folds the totals of the blocks before it (a warp,
///    in order: this is the scan of block totals, each block taking its own element) with the
///    prefix, then scans its run tile by tile, carrying the fold from tile to tile.
/// Reads n twice and writes n once (three passes instead of rungs 1-3's four); the second
/// read of a run follows the first by a whole grid's worth of data, so it comes from DRAM.

#include <cstddef>

#include <parprim/backends/cuda/block/tile_registers.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/warp/warp_reduce.cuh>

namespace parprim::detail::cuda {

/// \brief The elements of block b's run: tiles [b * tiles_per_block, ...).
struct run_of_tiles {
  std::size_t tiles_per_block;
  std::size_t tiles;
};

template <class Tile, class Problem>
__global__ void __launch_bounds__(Tile::block_size, Tile::min_blocks_per_sm)
    reduce_runs_kernel(Problem p, run_of_tiles runs, typename Problem::value_type* totals) {
  using V = typename Problem::value_type;
  __shared__ typename Tile::storage storage;
  const auto op = p.value_op();
  const std::size_t begin = blockIdx.x * runs.tiles_per_block;
  const std::size_t end =
      begin + runs.tiles_per_block < runs.tiles ? begin + runs.tiles_per_block : runs.tiles;
  Tile t;
  V total{};
  for (std::size_t tile = begin; tile < end; ++tile) {
    const std::size_t first = tile * Tile::tile_size;
    const auto len =
        static_cast<unsigned>(p.n - first < Tile::tile_size ? p.n - first : Tile::tile_size);
    const V x = t.reduce(p, op, first, len, storage);
    total = tile == begin ? x : static_cast<V>(op(total, x));
    Tile::sync_for_reuse();
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

/// \brief Warp 0 (all lanes) gets in lane 0 the fold of `values[0, count)` in order, each lane
/// folding a run of consecutive values first. count >= 1.
template <class V, class Op>
__device__ V warp_fold_in_order(const V* values, std::size_t count, const Op& op) {
  const unsigned lane = threadIdx.x % warp_threads;
  const std::size_t run = (count + warp_threads - 1) / warp_threads;
  const std::size_t lo = lane * run;
  const std::size_t hi = lo + run < count ? lo + run : count;
  V x = values[lo < count ? lo : 0];
  for (std::size_t i = lo + 1; i < hi; ++i) x = static_cast<V>(op(x, values[i]));
  const auto lanes = static_cast<unsigned>((count + run - 1) / run);
  return warp_reduce_ordered(x, lane, lanes, op);
}

template <class Tile, class Problem>
__global__ void __launch_bounds__(Tile::block_size, Tile::min_blocks_per_sm)
    scan_runs_kernel(Problem p, run_of_tiles runs, const typename Problem::value_type* totals) {
  using V = typename Problem::value_type;
  __shared__ typename Tile::storage storage;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  const auto op = p.value_op();
  if (threadIdx.x < warp_threads) {
    const maybe<V> before = blockIdx.x > 0
                                ? maybe<V>{warp_fold_in_order(totals, blockIdx.x, op), true}
                                : maybe<V>{totals[0], false};
    if (threadIdx.x == 0) carry_slot[0] = combine(p.prefix(), before, op);
  }
  __syncthreads();
  maybe<V> carry = carry_slot[0];
  const std::size_t begin = blockIdx.x * runs.tiles_per_block;
  const std::size_t end =
      begin + runs.tiles_per_block < runs.tiles ? begin + runs.tiles_per_block : runs.tiles;
  Tile t;
  for (std::size_t tile = begin; tile < end; ++tile) {
    const std::size_t first = tile * Tile::tile_size;
    const auto len =
        static_cast<unsigned>(p.n - first < Tile::tile_size ? p.n - first : Tile::tile_size);
    const V total = t.scan(p, op, first, len, storage);
    t.emit(p, op, first, carry);
    carry = combine(carry, maybe<V>{total, true}, op);
    Tile::sync_for_reuse();
  }
}

}  // namespace parprim::detail::cuda
