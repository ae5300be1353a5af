/// \file
/// \brief The plan of the deterministic look-back's fixed tree
/// (backends/cuda/detail/look_back_levels.hpp), run on the host by a model of the kernel: tiles
/// take tickets in order, a random one of the tiles in flight takes its next round of reads at
/// each step, once every state that round reads is published (a tile that completes groups
/// publishes their totals level by level from the bottom, then reads the other levels one or
/// four at a time, as the kernel does). Checked for every tile
/// count around the powers of 32: no tile ever waits on itself or a later tile (the model
/// never stalls), every state a tile reads was published by an earlier tile and only once, and
/// the prefix is exactly tiles 0 .. b-1 in order: the values are intervals [lo, hi] of tiles,
/// and the operator joins only adjacent intervals (a gap, an overlap or a swap is an error);
/// and no chain: every prefix is at most one round of reads per level behind the aggregates
/// (publishing a total after reading higher levels chains the groups and fails this).
/// Needs no GPU: the kernel's warp code is tested by the CUDA scan suites on the GPU.

#include <algorithm>
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
  unsigned depth = 0;  // rounds of reads behind it: 0 for an aggregate
  interval value;
};

/// One round of a tile's look-back: the levels [first, first + count) it reads at once, and
/// whether it then publishes the total of its level-(first + 1) group.
struct round {
  unsigned first = 0;
  unsigned count = 0;
  bool publishes = false;
};

/// The kernel's rounds for tile b (look_back_fixed_tree): the groups it completes level by level
/// from the bottom, each total published at once; then the other levels, `group` at a time.
std::vector<round> rounds_of(std::size_t b, std::size_t tiles, unsigned levels, unsigned group) {
  std::vector<round> rs;
  unsigned k = 0;
  if (b + 1 < tiles)
    for (; k + 1 < levels && plan::digit(b, k) == plan::radix - 1; ++k) rs.push_back({k, 1, true});
  for (; k < levels; k += group) rs.push_back({k, group, false});
  return rs;
}

/// A tile in flight: its rounds, the next one, what it has read.
struct flight_tile {
  std::size_t b = 0;
  std::vector<round> rounds;
  std::size_t next = 0;
  unsigned depth = 0;  // the deepest state read so far
  std::vector<interval> level_fold;
  std::vector<bool> has_level;
  interval total;  // the total of the groups it completed so far (its aggregate first)
};

/// Runs the model for `tiles` tiles, at most `in_flight` at once, `group` levels read at once;
/// returns "" or what failed.
std::string run_model(std::size_t tiles, std::size_t in_flight, unsigned group, pt::rng_t& r) {
  const plan levels = plan::of(tiles);
  if (levels.count < 1 || levels.count > plan::max_levels) return "bad level count";
  if (tiles > 1 && (std::size_t(1) << (plan::radix_bits * levels.count)) < tiles)
    return "too few levels";
  std::vector<state> states(levels.nodes);
  auto publish = [&](std::size_t node, std::size_t tile, unsigned depth,
                     const interval& v) -> std::string {
    if (node >= states.size()) return "state " + std::to_string(node) + " out of range";
    if (states[node].published) return "state " + std::to_string(node) + " published twice";
    states[node] = {true, tile, depth, v};
    return "";
  };
  auto ready = [&](const flight_tile& t) {
    const round& rd = t.rounds[t.next];
    for (unsigned k = rd.first; k < rd.first + rd.count && k < levels.count; ++k)
      for (unsigned l = 0; l < plan::digit(t.b, k); ++l)
        if (!states[plan::sibling(tiles, t.b, k, l)].published) return false;
    return true;
  };
  std::vector<flight_tile> flight;  // tiles that published their aggregate, looking back
  std::size_t next = 0;
  std::size_t done = 0;
  while (done < tiles) {
    while (flight.size() < in_flight && next < tiles) {  // a block takes a ticket, publishes
      if (next + 1 < tiles)
        if (auto e = publish(next, next, 0, {next, next}); !e.empty()) return e;
      flight_tile t;
      t.b = next;
      t.rounds = rounds_of(next, tiles, levels.count, group);
      t.level_fold.resize(levels.count);
      t.has_level.resize(levels.count);
      t.total = {next, next};
      flight.push_back(std::move(t));
      ++next;
    }
    // The first tile from a random one on whose next round can go ahead takes it.
    const std::size_t from = pt::uniform_int<std::size_t>(r, 0, flight.size() - 1);
    std::size_t i = from;
    while (!ready(flight[i]))
      if ((i = (i + 1) % flight.size()) == from)
        return "stalled with " + std::to_string(flight.size()) + " tiles in flight";
    flight_tile& t = flight[i];
    const round rd = t.rounds[t.next++];
    for (unsigned k = rd.first; k < rd.first + rd.count && k < levels.count; ++k)
      for (unsigned l = 0; l < plan::digit(t.b, k); ++l) {  // the left-to-right fold of level k
        const state& st = states[plan::sibling(tiles, t.b, k, l)];
        if (st.by >= t.b) return "tile " + std::to_string(t.b) + " read a state of a later tile";
        t.level_fold[k] = l == 0 ? st.value : join(t.level_fold[k], st.value);
        t.has_level[k] = true;
        t.depth = std::max(t.depth, st.depth);
      }
    if (rd.publishes) {
      t.total = join(t.level_fold[rd.first], t.total);
      if (auto e = publish(plan::group_of(tiles, t.b, rd.first + 1), t.b, t.depth + 1, t.total);
          !e.empty())
        return e;
    }
    if (t.next < t.rounds.size()) continue;
    // The prefix: the levels folded from the top.
    bool has = false;
    interval prefix;
    for (unsigned k = levels.count; k-- > 0;)
      if (t.has_level[k]) {
        prefix = has ? join(prefix, t.level_fold[k]) : t.level_fold[k];
        has = true;
      }
    const std::size_t b = t.b;
    if (b == 0 ? has : (!has || prefix.bad || prefix.lo != 0 || prefix.hi + 1 != b))
      return "tile " + std::to_string(b) + ": wrong prefix [" + std::to_string(prefix.lo) + ", " +
             std::to_string(prefix.hi) + "]" + (prefix.bad ? " (joined out of order)" : "");
    // No chain: a prefix is at most one round of reads per level behind the aggregates.
    if (t.depth + 1 > levels.count)
      return "tile " + std::to_string(b) + ": its prefix is " + std::to_string(t.depth + 1) +
             " rounds of reads deep (levels: " + std::to_string(levels.count) + ")";
    flight.erase(flight.begin() + static_cast<std::ptrdiff_t>(i));
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
    for (const std::size_t in_flight : {std::size_t(1), std::size_t(7), std::size_t(600)})
      for (const unsigned group : {1u, 4u}) {  // levels read at once (8- and 4-byte values)
        pt::rng_t rt = pt::make_rng(seed, tiles, in_flight * 8 + group);
        EXPECT_EQ(run_model(tiles, in_flight, group, rt), "")
            << tiles << " tiles, " << in_flight << " in flight, " << group << " levels at once";
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
