#pragma once
/// \file
/// \brief Scan rungs 1-3: scan-then-add over the grid (lecture 003). One tile per block:
///
/// 1. `scan_tiles_kernel`: each block scans its tile with the rung's block algorithm
///    (Kogge-Stone, Brent-Kung, coarsened three-phase), writes the in-tile results and the
///    tile's total; tile 0 has no tile before it, so its results are final (the prefix, e.g.
///    an exclusive scan's init, is folded in);
/// 2. the tile totals are scanned (exclusive, with the prefix) by the same rung, recursively;
/// 3. `add_carries_kernel`: every element of tile b >= 1 gets the fold of the tiles before it.
///
/// Reads n, writes n, reads n, writes n: four passes over the data against two for a
/// single-pass scan, which is what rungs 4 and 5 remove.

#include <cstddef>

#include <parprim/backends/cuda/detail/scan_problem.cuh>

namespace parprim::detail::cuda {

/// \brief Pass 1: block b scans tile b; `totals[b]` gets the tile's fold (without prefix).
template <class Tile, class Problem>
__global__ void __launch_bounds__(Tile::block_size)
    scan_tiles_kernel(Problem p, typename Problem::value_type* totals) {
  using V = typename Problem::value_type;
  __shared__ typename Tile::storage storage;
  const auto op = p.value_op();
  const std::size_t tile = blockIdx.x;
  const std::size_t first = tile * Tile::tile_size;
  const auto len =
      static_cast<unsigned>(p.n - first < Tile::tile_size ? p.n - first : Tile::tile_size);
  Tile t;
  const V total = t.scan(p, op, first, len, storage);
  const maybe<V> carry = tile == 0 ? p.prefix() : maybe<V>{total, false};
  t.emit(p, op, first, carry, tile == 0, tile);
  if (threadIdx.x == 0) totals[tile] = total;
}

/// \brief Pass 3: block b - 1 folds `carries[b]` (everything before tile b) into tile b >= 1.
template <unsigned BlockSize, unsigned TileSize, class Problem>
__global__ void __launch_bounds__(BlockSize)
    add_carries_kernel(Problem p, const typename Problem::value_type* totals,
                       const typename Problem::value_type* carries) {
  const std::size_t tile = std::size_t(blockIdx.x) + 1;
  const std::size_t first = tile * TileSize;
  const std::size_t tile_end = p.n - first < TileSize ? p.n : first + TileSize;
  const std::size_t end = p.fix_up_end(tile, tile_end, totals[tile]);
  const auto carry = carries[tile];
  for (std::size_t i = first + threadIdx.x; i < end; i += BlockSize) p.fix_up(i, i == first, carry);
}

}  // namespace parprim::detail::cuda
