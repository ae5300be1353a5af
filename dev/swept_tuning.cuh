#pragma once
// Scratch (dev/ only): rung 5/6 tuning whose look-back waits and register cap a sweep sets: the
// waits from swept_first_ns / swept_pause_ns (read at each launch), the cap from MinB, and the
// look-back compiled for run-time determinism (-1) or fixed (0, 1: look_back_tuning::determinism),
// the closing tiles' first sleep from swept_closing_ns.
#include <cstddef>
#include <parprim/parprim.hpp>

inline unsigned swept_first_ns = 1200, swept_pause_ns = 650,
                swept_closing_ns = parprim::detail::cuda::look_back_delays::same_as_first;

template <unsigned MinB, int Determinism = -1>
struct swept_tuning : parprim::detail::cuda::look_back_tuning {
  template <class Tile>
  static constexpr unsigned min_blocks_per_sm = MinB;
  static constexpr int determinism = Determinism;
  template <class Problem>
  static parprim::detail::cuda::look_back_delays delays(std::size_t tiles, bool /*fixed_tree*/) {
    if (!sleeps(tiles)) return no_sleep;
    return {swept_first_ns, swept_pause_ns, swept_pause_ns, swept_closing_ns};
  }
};
