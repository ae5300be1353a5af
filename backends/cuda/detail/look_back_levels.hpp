#pragma once
/// \file
/// \brief The plan of the fixed-tree look-back (kernels/scan_decoupled_look_back.cuh): which
/// published states a tile reads and which it publishes. Host and device code, so that the
/// plan is tested on the host by a model of the look-back (tests/cuda/look_back_plan_test.cpp).
///
/// Level 0 holds the tiles' aggregates (state index = tile); level k >= 1 the totals of aligned
/// groups of 32^k tiles, after the levels below it. Tile b, written in base 32 with digits
/// d_{L-1} ... d_0, reads at each level k the d_k groups before its own inside its level-(k+1)
/// group (lane l < d_k reads `sibling(b, k, l)`), and its prefix is the left-to-right fold of
/// those levels from the top. A tile whose lowest digits are 31 completes the groups above
/// them and publishes their totals (`group_of`).

#include <cstddef>

#include <parprim/detail/macros.hpp>

namespace parprim::detail::cuda {

struct look_back_levels {
  static constexpr unsigned radix_bits = 5;  // 32 groups per level: one a lane
  static constexpr unsigned radix = 1u << radix_bits;
  static constexpr unsigned max_levels = 7;  // 32^7 > 2^32 tiles
  /// Levels a tile reads: the least L >= 1 with 32^L >= tiles.
  unsigned count = 1;
  /// The states of all levels.
  std::size_t nodes = 0;

  static look_back_levels of(std::size_t tiles) {
    look_back_levels l;
    while ((std::size_t(1) << (radix_bits * l.count)) < tiles && l.count < max_levels) ++l.count;
    l.nodes = start(tiles, l.count);
    return l;
  }
  /// \brief The first state of level k (a loop of k steps: no array to index at run time).
  PARPRIM_HOST_DEVICE static std::size_t start(std::size_t tiles, unsigned k) {
    std::size_t first = 0;
    for (unsigned j = 0; j < k; ++j) {
      first += tiles;
      tiles = (tiles + radix - 1) >> radix_bits;
    }
    return first;
  }
  /// \brief Digit k of `tile` in base 32: how many level-k groups before the tile's own share
  /// its level-(k+1) group.
  PARPRIM_HOST_DEVICE static unsigned digit(std::size_t tile, unsigned k) {
    return static_cast<unsigned>(tile >> (radix_bits * k)) & (radix - 1);
  }
  /// \brief The state of the l-th level-k group of the level-(k+1) group holding `tile`.
  PARPRIM_HOST_DEVICE static std::size_t sibling(std::size_t tiles, std::size_t tile, unsigned k,
                                                 unsigned l) {
    return start(tiles, k) + ((tile >> (radix_bits * (k + 1))) << radix_bits) + l;
  }
  /// \brief The state of the level-k group holding `tile`.
  PARPRIM_HOST_DEVICE static std::size_t group_of(std::size_t tiles, std::size_t tile, unsigned k) {
    return start(tiles, k) + (tile >> (radix_bits * k));
  }
};

}  // namespace parprim::detail::cuda
