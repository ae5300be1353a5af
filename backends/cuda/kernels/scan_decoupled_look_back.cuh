#pragma once
/// \file
/// \brief Scan rungs 5 and 6 (6 is the default): single pass with decoupled look-back (Merrill
/// and Garland), made deterministic. Reads n and writes n, once each. Rung 6 is this kernel with
/// the tile staged in shared memory by bulk copies (block/tile_shared_bulk.cuh) where it applies.
///
/// Blocks take tiles in launch order from an atomic counter (so every tile a block waits for
/// belongs to a block that is already running: no deadlock, whatever the scheduler does).
/// Each block loads its tile into registers and scans it (block/tile_registers.cuh), then:
/// 1. publishes the tile's *aggregate* A_b (its fold), status AGGREGATE;
/// 2. a warp looks back over the 32 tiles before it (then the 32 before those, ...) until it
///    finds a tile j whose *inclusive prefix* P_j is published, waiting only for tiles that
///    have published nothing yet;
/// 3. computes its exclusive prefix E_b = (((P_j op A_{j+1}) op A_{j+2}) ... op A_{b-1}),
///    publishes P_b = E_b op A_b, status PREFIX, and stores its tile with E_b folded in.
///
/// Determinism. For operators whose grouping cannot change the result (integer arithmetic,
/// min, max: `exact_grouping_v`) the window is folded with a tree, as CUB does
/// (`look_back_tree`). For the others (floating-point sums, user operators) which j is found
/// (a matter of timing) changes how the operations associate, and results can change from run
/// to run. So by default those take the *fixed tree* (`look_back_fixed_tree`): no prefixes are
/// published; tile b folds the totals of the complete groups of 32^k tiles before it, level by
/// level, each group's total published by its last tile. Every value is then a fixed function
/// of the input (and n, and the tile size): the same call gives the same bits, and no tile
/// waits on a chain through its predecessors, only on the aggregates of the (at most 31) tiles
/// before it in its group of 32 and on totals published by earlier tiles.
///
/// Status words hold `epoch << 2 | kind` (temp_storage_lease::epoch, below 2^30): no reset of
/// the flags between calls. Values of up to 12 bytes travel in one word with their status
/// (`tile_states`); a poll is then one load. Pollers back off with `__nanosleep`.

#include <cstddef>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/tile_registers.cuh>
#include <parprim/backends/cuda/detail/completion_signal.cuh>
#include <parprim/backends/cuda/detail/look_back_levels.hpp>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/kernels/reduce_vectorized_single_pass.cuh>
#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/backends/cuda/warp/warp_reduce.cuh>
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief When the look-back polls: it sleeps `first_ns` before its first poll (time for the
/// tiles before it to publish, so fewer polls find nothing), then between failed polls
/// `pause_ns`, doubling up to `max_pause_ns`. Sleeping pollers leave the L2 slices that hold
/// the status words of the newest tiles to the stores that publish them.
struct look_back_delays {
  unsigned first_ns = 0;
  unsigned pause_ns = 16;
  unsigned max_pause_ns = 256;
  /// The fixed tree: what a tile that closes a group of 32 tiles (its lowest digit 31) sleeps
  /// before its first poll instead of `first_ns`; the next tiles wait for the total it
  /// publishes. `same_as_first`: `first_ns`.
  static constexpr unsigned same_as_first = ~0u;
  unsigned closing_first_ns = same_as_first;
};

/// \brief Tuning of rung 5 for Hopper (measured on the H200, dev/scan_sweep.cu; see
/// docs/kernels.md).
struct look_back_tuning {
  /// Threads per block of the tuned shapes (plain scans of 4- and 8-byte inputs; segmented
  /// pairs half as many threads), and of the others (detail/scan_dispatch.cuh: rung5_shape).
  static constexpr unsigned block_size_small = 256;
  static constexpr unsigned block_size_large = 512;
  /// Elements per thread of the tuned 4-byte tiles (256 threads): plain 28, segmented 24 (2^28
  /// int32, dev/segmented_sweep.cu: plain 676 us at 28, 696 at 24; segmented 1,044 at 24, 1,049
  /// at 20, 1,082 at 16).
  static constexpr unsigned plain_items = 28;
  static constexpr unsigned segmented_items = 24;
  /// -1: the launch picks, by the policy's `deterministic`, a kernel compiled with the one
  /// look-back it runs (the fixed tree, or the tree look-back); 0 or 1: only that kernel (dev/
  /// sweeps). One kernel holding both (the look-back chosen at run time) held more registers:
  /// H200, 2^27 float64 (dev/rung6_wide_sweep.cu), exclusive sum 655.7 us (24 bytes of stack)
  /// against 600.2 (none), inclusive 618.8 against 601.4, segmented sum 997.1 against 972.4.
  static constexpr int determinism = -1;
  /// Blocks per SM the kernel asks the compiler to fit: the tile's (tile_registers).
  template <class Tile>
  static constexpr unsigned min_blocks_per_sm = Tile::min_blocks_per_sm;
  /// Below this many tiles pollers do not wait before the first poll (a short chain: latency
  /// matters more than the traffic of failed polls).
  static constexpr std::size_t sleep_from_tiles = 512;
  /// Polling without sleeping: short chains.
  static constexpr look_back_delays no_sleep{0, 16, 256};
  static constexpr bool sleeps(std::size_t tiles) { return tiles >= sleep_from_tiles; }
  /// A synchronous call below this many tiles waits for the kernel's completion signal
  /// (detail/completion_signal.cuh) instead of its stream: every block then holds its tile
  /// until its bulk stores are written and counts itself done, which a call of a few waves or
  /// more would pay in tiles in flight for a gain of about a microsecond.
  static constexpr std::size_t signal_below_tiles = 512;
  /// 2^28 int32 (43690 tiles): 842 us without a first wait, 696 us with 1.2 us and 650 ns
  /// between polls; segmented pairs carry more work per tile and do best with shorter waits.
  /// The fixed tree (deterministic, inexact operators; `fixed_tree`) waits for the same tiles as
  /// the tree look-back (its group's aggregates), so it takes the same waits.
  template <class Problem>
  static look_back_delays delays(std::size_t tiles, bool /*fixed_tree*/) {
    if (!sleeps(tiles)) return no_sleep;
    if constexpr (Problem::segmented)
      return {700, 350, 350};
    else
      return {1200, 650, 650};
  }
};

/// \brief Tuning of rung 6 (tile_shared_bulk) for Hopper: rung 5's, with longer waits. A tile
/// staged in shared memory leaves its SM's other 5-6 tiles the memory while it waits, and fewer
/// failed polls pay off more than an early answer (2^28 int32 on the H200, dev/
/// rung6_shape_sweep.cu, runs A and B in docs/results/h200-scan-dev-2026-11-23b.txt: plain
/// 606.7 us with {1200, 650}, 591.6 with {2400, 1200}, 599.7 with {3200, 800} in a slower run
/// whose {1200, 650} took 617.1; segmented 656.0 -> 638.8; at 2^24 {3200, 800} is as fast as
/// {1200, 650}, longer pauses lose up to 5 %).
struct tma_look_back_tuning : look_back_tuning {
  /// The tile this many tickets ahead is prefetched into L2 (tile_shared_bulk's PrefetchTiles):
  /// plain scans 128; segmented scans none (slower with any distance tried, run C).
  template <class Problem>
  static constexpr unsigned prefetch_tiles = Problem::segmented ? 0u : 128u;
  /// Segmented 8-byte values through the fixed tree (float64 sums: 16-byte value-and-head
  /// pairs, 4 tiles per SM) keep rung 5's shorter waits: 2^27 float64, segments of 1024, 949.5
  /// us against 1,001.1 with {3200, 800}; one segment 931.8 against 1,004.2; 2^24 131.5 against
  /// 141.7 (H200, dev/rung6_wide_sweep.cu).
  /// The fixed tree (`fixed_tree`: deterministic plain scans of operators whose grouping
  /// matters) on floating-point values polls sooner below fixed_tree_short_waits_below tiles:
  /// {400, 100} (user structs keep {3200, 800}: not measured). H200, dev/rung6_float_sweep.cu,
  /// one process, medians of 15 calls, two runs: float32 2^24 (2,341 tiles) 59.5 and 59.9-60.4
  /// us against 62.1 and 61.7-64.2 with {3200, 800} (CUB InclusiveSum 57.5-60.1); from about
  /// 2^26 float32 (9,362 tiles: 169.5-173.0 against 166.6-168.8) and at 2^24 float64 (4,682
  /// tiles: 96.4-97.8 against 95.3-101.7) the long waits are as fast or faster
  /// (docs/results/h200/fixed-tree-float-scans/).
  /// Above the threshold the tiles that close a group of 32 sleep half as long (1600 ns) before
  /// their first poll: the next tiles wait for the totals they publish. H200, the same sweep,
  /// three processes of three rounds: float64 2^28 1,150-1,166 us against 1,173-1,184 with 3200
  /// ns (1.5-2 %), 2^26 303-309 against 308-314; float32 2^28 586-595 against 588-601 (within
  /// the noise); every setting bitwise equal (docs/results/h200/fixed-tree-closing/).
  static constexpr std::size_t fixed_tree_short_waits_below = 4096;
  template <class Problem>
  static look_back_delays delays(std::size_t tiles, bool fixed_tree) {
    if (!sleeps(tiles)) return no_sleep;
    if constexpr (Problem::segmented && sizeof(typename Problem::element_type) == 8 &&
                  !exact_grouping_v<typename Problem::op_type, typename Problem::value_type>)
      return {1200, 650, 650};
    if constexpr (!Problem::segmented && std::is_floating_point_v<typename Problem::value_type>)
      if (fixed_tree) {
        if (tiles < fixed_tree_short_waits_below) return {400, 100, 100};
        return {3200, 800, 800, 1600};
      }
    return {3200, 800, 800};
  }
};

/// \brief What a tile has published.
enum look_back_kind : unsigned { published_aggregate = 1, published_prefix = 2 };

/// \brief Where a value sits in its state word after the 4-byte status: bytes 4 .. for values of
/// up to 12 bytes; a segmented pair of an 8-byte value (16 bytes with its padding) as its head
/// flag in byte 4 and its value in bytes 8 .. 15, so that it too fits one 16-byte word.
template <class V>
struct packed_layout {
  static constexpr bool fits = sizeof(V) <= 12;
  template <class Word>
  __device__ static void pack(Word& w, const V& v) {
    memcpy(reinterpret_cast<unsigned char*>(&w) + 4, &v, sizeof(V));
  }
  template <class Word>
  __device__ static void unpack(const Word& w, V& v) {
    memcpy(&v, reinterpret_cast<const unsigned char*>(&w) + 4, sizeof(V));
  }
};
template <class T>
requires(sizeof(T) == 8) struct packed_layout<flagged<T>> {
  static constexpr bool fits = true;
  template <class Word>
  __device__ static void pack(Word& w, const flagged<T>& v) {
    w.y = v.head ? 1u : 0u;
    memcpy(reinterpret_cast<unsigned char*>(&w) + 8, &v.value, sizeof(T));
  }
  template <class Word>
  __device__ static void unpack(const Word& w, flagged<T>& v) {
    v.head = w.y != 0;
    memcpy(&v.value, reinterpret_cast<const unsigned char*>(&w) + 8, sizeof(T));
  }
};

/// \brief Whether a value travels with its status in one 8- or 16-byte word (as CUB's tile
/// state does): then a poll is one load, with no fence between status and value.
template <class V>
inline constexpr bool packed_status_v = packed_layout<V>::fits;

/// \brief The published state of every tile: per tile a status word `epoch << 2 | kind` and
/// the value (the aggregate, later replaced by the inclusive prefix). Packed: value and status
/// in one word, stored and loaded with single 8- or 16-byte accesses. Otherwise: separate
/// status, aggregate and prefix arrays, the value stored before the status with a fence in
/// between, and read after seeing the status, with a fence in between.
template <class V, bool Packed = packed_status_v<V>>
struct tile_states;

template <class V>
struct tile_states<V, true> {
  using word = std::conditional_t<sizeof(V) <= 4, uint2, uint4>;
  static std::size_t bytes(std::size_t tiles) { return tiles * sizeof(word); }
  static constexpr bool uses_status_words = false;

  word* words;

  __device__ void publish(std::size_t t, unsigned status, const V& v) const {
    word w{};
    w.x = status;
    packed_layout<V>::pack(w, v);
    __stcg(words + t, w);
  }
  /// \brief The status of tile t and, when it is published, its value.
  __device__ unsigned poll(std::size_t t, unsigned epoch, V& v) const {
    const word w = __ldcg(words + t);
    if ((w.x >> 2) == epoch) packed_layout<V>::unpack(w, v);
    return w.x;
  }
};

template <class V>
struct tile_states<V, false> {
  static std::size_t bytes(std::size_t tiles) { return 2 * tiles * sizeof(V); }
  static constexpr bool uses_status_words = true;

  V* aggregates;  // [count], then the prefixes [count]
  unsigned* status;
  std::size_t count;  // states: the fixed tree's nodes (level 0 is the tiles)

  __device__ void publish(std::size_t t, unsigned word, const V& v) const {
    ((word & 3u) == published_prefix ? aggregates + count : aggregates)[t] = v;
    __threadfence();
    *reinterpret_cast<volatile unsigned*>(status + t) = word;
  }
  __device__ unsigned poll(std::size_t t, unsigned epoch, V& v) const {
    const unsigned word = *reinterpret_cast<const volatile unsigned*>(status + t);
    if ((word >> 2) == epoch) {
      __threadfence();
      v = coherent_load<V>{(word & 3u) == published_prefix ? aggregates + count : aggregates}(t);
    }
    return word;
  }
};

/// \brief The look-back's memory: the tile states, the tile counter, this call's epoch.
template <class V>
struct look_back_state {
  tile_states<V> states;
  unsigned* ticket;
  unsigned epoch;
  unsigned levels;  // the fixed tree's levels a tile reads (look_back_levels::count)
};

/// \brief Warp 0 (all lanes): lane 0 gets the exclusive prefix of tile `tile` >= 1, folding
/// each window with a tree as it walks back (CUB's look-back): one round trip per window, five
/// shuffle steps per window. The grouping depends on which tiles had published their prefix,
/// so for operators without exact_grouping_v results may differ in the last bits from run to
/// run; used for exact operators and under `.deterministic(false)`.
template <class V, class Op>
__device__ maybe<V> look_back_tree(std::size_t tile, const look_back_state<V>& st,
                                   const maybe<V>& prefix, const Op& op,
                                   const look_back_delays& d) {
  const unsigned lane = threadIdx.x % warp_threads;
  if (d.first_ns > 0) __nanosleep(d.first_ns);
  maybe<V> acc{V{}, false};  // fold of the windows already walked (to the right)
  std::size_t hi = tile;
  for (;;) {
    const std::size_t lo = hi > warp_threads ? hi - warp_threads : 0;
    const bool valid = lo + lane < hi;
    V value{};
    unsigned word = 0;
    for (unsigned pause = d.pause_ns;;
         pause = 2 * pause < d.max_pause_ns ? 2 * pause : d.max_pause_ns) {
      word = valid ? st.states.poll(lo + lane, st.epoch, value) : 0;
      if (__all_sync(full_warp_mask, !valid || (word >> 2) == st.epoch)) break;
      __nanosleep(pause);
    }
    const unsigned prefix_lanes =
        __ballot_sync(full_warp_mask, valid && (word & 3u) == published_prefix);
    const unsigned start = prefix_lanes != 0 ? 31 - __clz(prefix_lanes) : 0;
    const auto lanes = static_cast<unsigned>(hi - lo);
    const V shifted = shuffle_down(value, start);  // lane l: window lane start + l
    const V w = warp_reduce_ordered(shifted, lane, lanes - start, op);
    acc = combine(maybe<V>{w, true}, acc, op);
    if (prefix_lanes != 0) return acc;
    if (lo == 0) return combine(prefix, acc, op);
    hi = lo;
  }
}

/// \brief What warp 0 keeps of the fixed tree's levels as it reads them. An operator that is not
/// commutative: lane k holds S_k, the ordered fold (`warp_reduce_ordered`) of level k's groups,
/// and the prefix is `prefix op S_{L-1} op ... op S_0`, folded left to right. A commutative one:
/// each lane folds the values it read (lane l: group l of every level read, from the bottom), and
/// one `warp_reduce_ordered` folds the lanes at the end: a fixed order too, with one warp fold in
/// place of one a level.
template <class V, bool LanesFirst>
struct fixed_tree_folds {
  V held{};
  unsigned lanes_held = 0;  // LanesFirst: lane l holds a value when l < lanes_held

  /// Level k's groups, lane l holding group l < count (> 0); `s` its ordered fold S_k.
  template <class Op>
  __device__ void add(const V& value, const V& s, unsigned lane, unsigned count, unsigned k,
                      const Op& op) {
    if constexpr (LanesFirst) {
      if (lane < count) held = lane < lanes_held ? static_cast<V>(op(held, value)) : value;
      lanes_held = count > lanes_held ? count : lanes_held;
    } else {
      if (lane == k) held = s;
    }
  }
  /// Lane 0: `prefix` followed by every level read (digits of `tile` below `levels`).
  template <class Op>
  __device__ maybe<V> prefix(const maybe<V>& prefix, std::size_t tile, unsigned levels,
                             unsigned lane, const Op& op) const {
    if constexpr (LanesFirst) {
      if (lanes_held == 0) return prefix;
      return combine(prefix, maybe<V>{warp_reduce_ordered(held, lane, lanes_held, op), true}, op);
    } else {
      maybe<V> e = prefix;
      for (unsigned j = levels; j-- > 0;)
        if (look_back_levels::digit(tile, j) > 0)
          e = combine(e, maybe<V>{shuffle_from(held, j), true}, op);
      return e;
    }
  }
};

/// \brief Warp 0 (all lanes): reads levels [first, first + Group) of the fixed tree (those below
/// `levels`) at once (lane l < d_k polls group l of level k) and adds them to `folds`. Levels
/// whose digit is 0 read nothing. Returns the ordered fold S_k of the last level read where
/// `Closing` or the operator is not commutative (the closing tiles' totals).
template <unsigned Group, bool Closing, class V, class Op, bool LanesFirst>
__device__ V read_fixed_tree_levels(std::size_t tile, std::size_t tiles, unsigned first,
                                    const look_back_state<V>& st, const Op& op,
                                    const look_back_delays& d,
                                    fixed_tree_folds<V, LanesFirst>& folds) {
  using plan = look_back_levels;
  const unsigned lane = threadIdx.x % warp_threads;
  V value[Group];
  bool got[Group];
#pragma unroll
  for (unsigned g = 0; g < Group; ++g) got[g] = false;
  for (unsigned pause = d.pause_ns;;
       pause = 2 * pause < d.max_pause_ns ? 2 * pause : d.max_pause_ns) {
    bool ready = true;
#pragma unroll
    for (unsigned g = 0; g < Group; ++g) {
      const unsigned k = first + g;
      if (k >= st.levels) continue;
      const unsigned count = plan::digit(tile, k);
      if (lane < count && !got[g])
        got[g] = (st.states.poll(plan::sibling(tiles, tile, k, lane), st.epoch, value[g]) >> 2) ==
                 st.epoch;
      ready = ready && (lane >= count || got[g]);
    }
    if (__all_sync(full_warp_mask, ready)) break;
    __nanosleep(pause);
  }
  V s{};
#pragma unroll
  for (unsigned g = 0; g < Group; ++g) {
    const unsigned k = first + g;
    if (k >= st.levels) continue;
    const unsigned count = plan::digit(tile, k);
    if (count == 0) continue;
    if (Closing || !LanesFirst) s = shuffle_from(warp_reduce_ordered(value[g], lane, count, op), 0);
    folds.add(value[g], s, lane, count, k, op);
  }
  return s;
}

/// \brief Warp 0 (all lanes): lane 0 gets the exclusive prefix of tile `tile` >= 1 as a fixed
/// tree over the tiles' aggregates (deterministic for any operator, and no chain through the
/// tiles). Write `tile` in base 32, digits d_{L-1} ... d_0. At level k the tiles before ours
/// that share our level-(k+1) group form d_k complete level-k groups; their totals are read
/// (lane l < d_k reads group l) and folded (`fixed_tree_folds`: level by level in order, or,
/// for a commutative operator, lane by lane). A level-k group's total (k >= 1) is published by
/// its last tile: `T_1 = S_0 op A`, `T_{k+1} = S_k op T_k` (A: the tile's aggregate, S_k the
/// ordered fold of level k's groups), each as soon as the level below it is read, before the
/// tile reads any higher level: a total then waits only on totals of smaller groups (a level-k
/// total on k rounds of reads), never on earlier groups' totals of its own level, which would
/// chain the groups one after another. Every value is a fixed function of the input, n and the
/// tile size, whichever tiles were quick; every total a tile reads is published by an earlier
/// tile (no deadlock); at most L round trips to the L2, `Group` levels polled at once above the
/// published ones.
template <unsigned Group, class V, class Op>
__device__ maybe<V> look_back_fixed_tree(std::size_t tile, std::size_t tiles, const V& aggregate,
                                         const look_back_state<V>& st, const maybe<V>& prefix,
                                         const Op& op, const look_back_delays& d) {
  using plan = look_back_levels;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned levels = st.levels;
  const bool closes = plan::digit(tile, 0) == plan::radix - 1;
  const unsigned first_ns = closes && d.closing_first_ns != look_back_delays::same_as_first
                                ? d.closing_first_ns
                                : d.first_ns;
  if (first_ns > 0) __nanosleep(first_ns);
  fixed_tree_folds<V, is_commutative_v<Op>> folds;
  unsigned k = 0;
  // The groups this tile completes (its lowest digits are 31): level by level from the bottom,
  // each total published once the level below it is read.
  if (tile + 1 < tiles) {
    V total = aggregate;
    for (; k + 1 < levels && plan::digit(tile, k) == plan::radix - 1; ++k) {
      total = static_cast<V>(
          op(read_fixed_tree_levels<1, true>(tile, tiles, k, st, op, d, folds), total));
      if (lane == 0)
        st.states.publish(plan::group_of(tiles, tile, k + 1), st.epoch << 2 | published_aggregate,
                          total);
    }
  }
  for (; k < levels; k += Group)
    read_fixed_tree_levels<Group, false>(tile, tiles, k, st, op, d, folds);
  return folds.prefix(prefix, tile, levels, lane, op);
}

/// \brief Warp 0 (all lanes) of the block owning `tile`: publishes the tile's aggregate, looks
/// back (the fixed tree where the grouping matters and `deterministic`, else the tree look-back,
/// which then publishes the tile's inclusive prefix); thread 0 leaves the tile's carry in
/// `carry`.
template <int Determinism, class Problem, class V = typename Problem::value_type>
__device__ void resolve_carry(const Problem& p, std::size_t tile, std::size_t tiles, const V& total,
                              const look_back_state<V>& st, bool deterministic,
                              const look_back_delays& delays, maybe<V>& carry) {
  const auto op = p.value_op();
  const bool has_successor = tile + 1 < tiles;
  const bool fixed_tree = !exact_grouping_v<typename Problem::op_type, V> &&
                          (Determinism < 0 ? deterministic : Determinism == 1);
  if (threadIdx.x == 0 && has_successor && (tile > 0 || fixed_tree))
    st.states.publish(tile, st.epoch << 2 | published_aggregate, total);
  maybe<V> e = p.prefix();
  if (tile > 0) {
    // Four levels polled at once for 4-byte values, one at a time above: each level's value is
    // held in registers by every lane of warp 0 while the tile's elements are (two at once for
    // 8-byte values took rung 5's segmented float tile from 64 to 90 registers; on rung 6's
    // plain float64 tile two or four at once spilled 16 or 34 bytes and ran 3-10 % slower at
    // 2^26-2^28, docs/results/h200/fixed-tree-closing/).
    constexpr unsigned group = sizeof(V) <= 4 ? 4u : 1u;
    if (fixed_tree)
      e = look_back_fixed_tree<group>(tile, tiles, total, st, e, op, delays);
    else
      e = look_back_tree(tile, st, e, op, delays);
  }
  if (threadIdx.x == 0) {
    carry = e;
    if (has_successor && !fixed_tree)
      st.states.publish(tile, st.epoch << 2 | published_prefix,
                        combine(e, maybe<V>{total, true}, op).value);
  }
}

/// \brief The elements of the tile starting at `first` (< n): a whole tile but for the last.
template <class Tile>
__device__ unsigned tile_length(std::size_t n, std::size_t first) {
  return static_cast<unsigned>(n - first < Tile::tile_size ? n - first : Tile::tile_size);
}

/// \brief One block per tile; `MinBlocksPerSM` caps the registers so that many blocks fit on
/// an SM (an idle block's look-back is hidden only by the other blocks of its SM).
/// `Determinism`: 1 the fixed tree, 0 the tree look-back, -1 the one `deterministic` names
/// (both compiled in; see look_back_tuning::determinism).
template <class Tile, class Problem, unsigned MinBlocksPerSM = Tile::min_blocks_per_sm,
          int Determinism = -1>
__global__ void __launch_bounds__(Tile::block_size, MinBlocksPerSM)
    scan_look_back_kernel(Problem p, std::size_t tiles,
                          look_back_state<typename Problem::value_type> st, bool deterministic,
                          look_back_delays delays, completion_signal signal) {
  using V = typename Problem::value_type;
  __shared__ typename Tile::storage storage;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  __shared__ unsigned tile_slot;
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (id == tiles - 1) *st.ticket = 0;  // every block has its tile: ready for the next call
    tile_slot = id;
    // A tile that loads by bulk copies starts them here, before the block's first barrier.
    if constexpr (requires { Tile::start_load(p, std::size_t{}, 0u, storage); }) {
      const std::size_t first = id * std::size_t(Tile::tile_size);
      Tile::start_load(p, first, tile_length<Tile>(p.n, first), storage);
    }
  }
  __syncthreads();
  const std::size_t tile = tile_slot;
  const auto op = p.value_op();
  const std::size_t first = tile * Tile::tile_size;
  const unsigned len = tile_length<Tile>(p.n, first);
  Tile t;
  const V total = t.scan(p, op, first, len, storage);
  if (threadIdx.x < warp_threads)
    resolve_carry<Determinism>(p, tile, tiles, total, st, deterministic, delays, carry_slot[0]);
  __syncthreads();
  t.emit(p, op, first, carry_slot[0]);
  // A tile that loads by bulk copies also stores by them (thread 0).
  if (signal.active())
    signal.block_finished(
        tiles, requires { Tile::start_load(p, std::size_t{}, 0u, storage); });
}

}  // namespace parprim::detail::cuda
