/// \file
/// \brief The plan of the deterministic look-back's fixed tree
/// (backends/cuda/detail/look_back_levels.hpp), run on the host by a model of the kernel: tiles
/// take tickets in order, a random one of the tiles in flight moves at each step, a tile's
/// look-back goes ahead only once every state it reads is published. Checked for every tile
/// count around the powers of 32: no tile ever waits on itself or a later tile (the model
/// never stalls), every state a tile reads was published by an earlier tile and only once, and
/// the prefix is exactly tiles 0 .. b-1 in order: the values are intervals [lo, hi] of tiles,
/// and the operator joins only adjacent intervals (a gap, an overlap or a swap is an error).
/// Needs no GPU: the kernel's warp code is tested by the CUDA scan suites on the GPU.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/backends/cuda/detail/look_back_levels.hpp>

#include "support/harness.hpp"

namespace {

using plan = parprim::detail::cuda::look_back_levels;
namespace pt = parprim_test;

/// Tiles [lo, hi]; `bad` once two non-adjacent intervals were joined.
struct interval {
  std::size_t lo = 0;
  std::size_t hi = 0;
  bool bad = false;
};
interval join(const interval& a, const interval& b) {
  return {a.lo, b.hi, a.bad || b.bad || a.hi + 1 != b.lo};
}

struct state {
  bool published = false;
  std::size_t by = 0;  // the tile that published it
  interval value;
};

/// Runs the model for `tiles` tiles, at most `in_flight` at once; returns "" or what failed.
std::string run_model(std::size_t tiles, std::size_t in_flight, pt::rng_t& r) {
  const plan levels = plan::of(tiles);
  if (levels.count < 1 || levels.count > plan::max_levels) return "bad level count";
  if (tiles > 1 && (std::size_t(1) << (plan::radix_bits * levels.count)) < tiles)
    return "too few levels";
  std::vector<state> states(levels.nodes);
  auto publish = [&](std::size_t node, std::size_t tile, const interval& v) -> std::string {
    if (node >= states.size()) return "state " + std::to_string(node) + " out of range";
    if (states[node].published) return "state " + std::to_string(node) + " published twice";
    states[node] = {true, tile, v};
    return "";
  };
  std::vector<std::size_t> flight;  // tiles that published their aggregate, looking back
  std::size_t next = 0;
  std::size_t done = 0;
  while (done < tiles) {
    while (flight.size() < in_flight && next < tiles) {  // a block takes a ticket, publishes
      if (next + 1 < tiles)
        if (auto e = publish(next, next, {next, next}); !e.empty()) return e;
      flight.push_back(next++);
    }
    // The tiles whose look-back can finish now.
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < flight.size(); ++i) {
      const std::size_t b = flight[i];
      bool ok = true;
      for (unsigned k = 0; k < levels.count && ok; ++k)
        for (unsigned l = 0; l < plan::digit(b, k) && ok; ++l)
          ok = states[plan::sibling(tiles, b, k, l)].published;
      if (ok) ready.push_back(i);
    }
    if (ready.empty()) return "stalled with " + std::to_string(flight.size()) + " tiles in flight";
    const std::size_t i = ready[pt::uniform_int<std::size_t>(r, 0, ready.size() - 1)];
    const std::size_t b = flight[i];
    flight.erase(flight.begin() + static_cast<std::ptrdiff_t>(i));
    // The kernel's fold: levels from the top, each the left-to-right fold of its groups.
    bool has = false;
    interval prefix;
    std::vector<interval> level_fold(levels.count);
    for (unsigned k = levels.count; k-- > 0;) {
      const unsigned count = plan::digit(b, k);
      if (count == 0) continue;
      interval s;
      for (unsigned l = 0; l < count; ++l) {
        const state& st = states[plan::sibling(tiles, b, k, l)];
        if (st.by >= b) return "tile " + std::to_string(b) + " read a state of a later tile";
        s = l == 0 ? st.value : join(s, st.value);
      }
      level_fold[k] = s;
      prefix = has ? join(prefix, s) : s;
      has = true;
    }
    if (b == 0 ? has : (!has || prefix.bad || prefix.lo != 0 || prefix.hi + 1 != b))
      return "tile " + std::to_string(b) + ": wrong prefix [" + std::to_string(prefix.lo) + ", " +
             std::to_string(prefix.hi) + "]" + (prefix.bad ? " (joined out of order)" : "");
    if (b + 1 < tiles) {  // the totals of the groups it completes
      interval total{b, b};
      for (unsigned k = 0; k + 1 < levels.count && plan::digit(b, k) == plan::radix - 1; ++k) {
        total = join(level_fold[k], total);
        if (auto e = publish(plan::group_of(tiles, b, k + 1), b, total); !e.empty()) return e;
      }
    }
    ++done;
  }
  return "";
}

TEST(CudaScanLookBackPlan, EveryTileGetsExactlyItsPredecessorsInOrder) {
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  std::vector<std::size_t> counts = {1,    2,    3,    31,   32,   33,    63,    64,    65,   1000,
                                     1023, 1024, 1025, 2047, 2049, 32767, 32768, 32769, 40000};
  pt::rng_t r = pt::make_rng(seed, 0);
  for (int i = 0; i < 3; ++i) counts.push_back(pt::uniform_int<std::size_t>(r, 2, 40000));
  for (const std::size_t tiles : counts)
    for (const std::size_t in_flight : {std::size_t(1), std::size_t(7), std::size_t(600)}) {
      pt::rng_t rt = pt::make_rng(seed, tiles, in_flight);
      EXPECT_EQ(run_model(tiles, in_flight, rt), "")
          << tiles << " tiles, " << in_flight << " in flight";
    }
}

TEST(CudaScanLookBackPlan, LevelsAndStatesOfLargeTileCounts) {
  // 32^L >= tiles with the least L, and the states of all levels: tiles + ceil(tiles / 32) + ...
  for (const std::size_t tiles :
       {std::size_t(1), std::size_t(32), std::size_t(33), std::size_t(1) << 20,
        (std::size_t(1) << 20) + 1, std::size_t(0xffffffffu)}) {
    const plan l = plan::of(tiles);
    unsigned want = 1;
    while ((std::size_t(1) << (5 * want)) < tiles) ++want;
    EXPECT_EQ(l.count, want) << tiles << " tiles";
    std::size_t nodes = 0;
    std::size_t width = tiles;
    for (unsigned k = 0; k < l.count; ++k, width = (width + 31) / 32) nodes += width;
    EXPECT_EQ(l.nodes, nodes) << tiles << " tiles";
    // the last tile's reads and the last group total stay inside the states
    const std::size_t last = tiles - 1;
    for (unsigned k = 0; k < l.count; ++k) {
      if (plan::digit(last, k) > 0) {
        EXPECT_LT(plan::sibling(tiles, last, k, plan::digit(last, k) - 1), l.nodes);
      }
    }
    EXPECT_LT(plan::group_of(tiles, last, l.count - 1), l.nodes);
  }
}

}  // namespace
