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
/// (`look_back_tree`). For the others (floating-point sums, user operators) by default:
/// CUB folds the window with a tree, so which j it finds (a matter of timing)
/// changes how the float operations associate, and results can change from run to run. Here
/// the window is folded *sequentially, left to right*: then E_b is exactly the chain
/// P_{b-1} = (...((prefix op A_0) op A_1) ... op A_{b-1}), the same operations on the same
/// values whichever j was found (by induction every published P_j is that chain's value). So
/// the result is a fixed function of the input: the same call gives the same bits. The price
/// is up to 31 dependent operations (one lane, values moved by shuffles) instead of a
/// five-level tree, off the memory path.
///
/// Status words hold `epoch << 2 | kind` (temp_storage_lease::epoch, below 2^30): no reset of
/// the flags between calls. Values of up to 12 bytes travel in one word with their status
/// (`tile_states`); a poll is then one load. Pollers back off with `__nanosleep`.

#include <cstddef>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/tile_registers.cuh>
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
};

/// \brief Tuning of rung 5 for Hopper (measured on the H200, dev/scan_sweep.cu; see
/// docs/kernels.md).
struct look_back_tuning {
  /// Threads per block of the tuned shapes (plain scans of 4- and 8-byte inputs; segmented
  /// pairs half as many threads), and of the others (detail/scan_dispatch.cuh: rung5_shape).
  static constexpr unsigned block_size_small = 256;
  static constexpr unsigned block_size_large = 512;
  /// Tiles per lane of the deterministic look-back's window. 2^28 floats, 256 x 24: 1055 us
  /// with 1 (64 registers, 4 blocks per SM), 1091 with 2, 1095 with 4 (80 registers, 3
  /// blocks per SM): the window's width is not what limits that path.
  static constexpr unsigned fold_tiles_per_lane = 1;
  /// Elements per thread of the tuned 4-byte tiles (256 threads): plain 28, segmented 24 (2^28
  /// int32, dev/segmented_sweep.cu: plain 676 us at 28, 696 at 24; segmented 1,044 at 24, 1,049
  /// at 20, 1,082 at 16).
  static constexpr unsigned plain_items = 28;
  static constexpr unsigned segmented_items = 24;
  /// Blocks per SM the kernel asks the compiler to fit: the tile's (tile_registers).
  template <class Tile>
  static constexpr unsigned min_blocks_per_sm = Tile::min_blocks_per_sm;
  /// Below this many tiles pollers do not wait before the first poll (a short chain: latency
  /// matters more than the traffic of failed polls).
  static constexpr std::size_t sleep_from_tiles = 512;
  /// Polling without sleeping: short chains and the sequential fold.
  static constexpr look_back_delays no_sleep{0, 16, 256};
  static constexpr bool sleeps(std::size_t tiles, bool sequential_fold) {
    return tiles >= sleep_from_tiles && !sequential_fold;
  }
  /// 2^28 int32 (43690 tiles): 842 us without a first wait, 696 us with 1.2 us and 650 ns
  /// between polls; segmented pairs carry more work per tile and do best with shorter waits.
  /// The sequential fold (deterministic, inexact operators) is a chain through every tile, and
  /// a sleep on it delays every later tile: no first wait, short pauses.
  template <class Problem>
  static look_back_delays delays(std::size_t tiles, bool sequential_fold) {
    if (!sleeps(tiles, sequential_fold)) return no_sleep;
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
  template <class Problem>
  static look_back_delays delays(std::size_t tiles, bool sequential_fold) {
    if (!sleeps(tiles, sequential_fold)) return no_sleep;
    return {3200, 800, 800};
  }
};

/// \brief What a tile has published.
enum look_back_kind : unsigned { published_aggregate = 1, published_prefix = 2 };

/// \brief Whether a value travels with its status in one 8- or 16-byte word (as CUB's tile
/// state does): then a poll is one load, with no fence between status and value.
template <class V>
inline constexpr bool packed_status_v = sizeof(V) <= 12;

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
    memcpy(reinterpret_cast<unsigned char*>(&w) + 4, &v, sizeof(V));
    __stcg(words + t, w);
  }
  /// \brief The status of tile t and, when it is published, its value.
  __device__ unsigned poll(std::size_t t, unsigned epoch, V& v) const {
    const word w = __ldcg(words + t);
    if ((w.x >> 2) == epoch) memcpy(&v, reinterpret_cast<const unsigned char*>(&w) + 4, sizeof(V));
    return w.x;
  }
};

template <class V>
struct tile_states<V, false> {
  static std::size_t bytes(std::size_t tiles) { return 2 * tiles * sizeof(V); }
  static constexpr bool uses_status_words = true;

  V* aggregates;  // [tiles], then the prefixes [tiles]
  unsigned* status;
  std::size_t tiles;

  __device__ void publish(std::size_t t, unsigned word, const V& v) const {
    ((word & 3u) == published_prefix ? aggregates + tiles : aggregates)[t] = v;
    __threadfence();
    *reinterpret_cast<volatile unsigned*>(status + t) = word;
  }
  __device__ unsigned poll(std::size_t t, unsigned epoch, V& v) const {
    const unsigned word = *reinterpret_cast<const volatile unsigned*>(status + t);
    if ((word >> 2) == epoch) {
      __threadfence();
      v = coherent_load<V>{(word & 3u) == published_prefix ? aggregates + tiles : aggregates}(t);
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
};

/// \brief Whether `Op` on `V` gives the same bits however the operands are grouped: integer
/// arithmetic and bitwise operators (wrapping), minimum and maximum on any arithmetic type, and
/// the flag operator over such an operator. Then the look-back may fold with a tree.
template <class Op, class V>
struct exact_grouping : std::false_type {};
template <class V>
struct exact_grouping<plus, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<multiplies, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_and, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_or, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_xor, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<minimum, V> : std::is_arithmetic<V> {};
template <class V>
struct exact_grouping<maximum, V> : std::is_arithmetic<V> {};
template <class Op, class T>
struct exact_grouping<flag_op<Op>, flagged<T>> : exact_grouping<Op, T> {};
template <class Op, class V>
inline constexpr bool exact_grouping_v = exact_grouping<Op, V>::value;

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

/// \brief Warp 0 (all lanes): lane 0 gets the exclusive prefix of tile `tile` >= 1, folded
/// sequentially, left to right (deterministic for any operator). A window is `32 * K` tiles,
/// K consecutive tiles per lane: the prefix chain advances at most one window per round trip
/// to the L2 (a tile folds from the newest prefix its window shows), so a wider window lets
/// more tiles be in flight at once.
template <unsigned K, class V, class Op>
__device__ maybe<V> look_back(std::size_t tile, const look_back_state<V>& st,
                              const maybe<V>& prefix, const Op& op, const look_back_delays& d) {
  const unsigned lane = threadIdx.x % warp_threads;
  constexpr std::size_t span = std::size_t(warp_threads) * K;
  if (d.first_ns > 0) __nanosleep(d.first_ns);
  V value[K];
  // The newest published prefix of the window [lo, hi): its position lane * K + i, or -1.
  auto newest_prefix = [&](std::size_t lo, std::size_t hi, const unsigned(&word)[K]) {
    int mine = -1;
#pragma unroll
    for (unsigned i = 0; i < K; ++i)
      if (lo + lane * K + i < hi && (word[i] & 3u) == published_prefix) mine = static_cast<int>(i);
    const unsigned holders = __ballot_sync(full_warp_mask, mine >= 0);
    if (holders == 0) return -1;
    const unsigned last = warp_threads - 1 - __clz(holders);
    return static_cast<int>(last * K) + __shfl_sync(full_warp_mask, mine, last);
  };
  // 1. windows, newest first, until one holds a published prefix (waiting for every tile of
  //    a window to publish something)
  std::size_t hi = tile;
  std::size_t lo = 0;
  int found = -1;
  for (;;) {
    lo = hi > span ? hi - span : 0;
    unsigned word[K];
    for (unsigned pause = d.pause_ns;;
         pause = 2 * pause < d.max_pause_ns ? 2 * pause : d.max_pause_ns) {
      bool ready = true;
#pragma unroll
      for (unsigned i = 0; i < K; ++i) {
        const std::size_t t = lo + lane * K + i;
        word[i] = t < hi ? st.states.poll(t, st.epoch, value[i]) : 0;
        ready = ready && (t >= hi || (word[i] >> 2) == st.epoch);
      }
      if (__all_sync(full_warp_mask, ready)) break;
      __nanosleep(pause);
    }
    found = newest_prefix(lo, hi, word);
    if (found >= 0 || lo == 0) break;
    hi = lo;
  }
  // 2. fold left to right from the newest published prefix (or from the prefix operand when
  //    the walk reached tile 0 without one), window by window up to the tile before ours.
  //    A later window is read again: every tile there has published; a tile that has
  //    published its prefix since is a new, equally exact, starting point.
  maybe<V> acc = prefix;
  for (;;) {
    const auto count = static_cast<unsigned>(hi - lo);
    unsigned from = 0;  // first position of this window to fold in
    if (found >= 0) {
      const unsigned f = static_cast<unsigned>(found);
      V w[K];
#pragma unroll
      for (unsigned i = 0; i < K; ++i) w[i] = shuffle_from(value[i], f / K);
#pragma unroll
      for (unsigned i = 0; i < K; ++i)
        if (i == f % K) acc = {w[i], true};
      from = f + 1;
    }
    // The fold is the chain every later tile waits on, so its step is one application of op:
    // a lane's K values are fetched together, ahead of the operations, and the positions to
    // fold are predicates off the chain. `from` and `count` are the same in every lane, so
    // every lane takes part in each shuffle.
    if (!acc.has && from < count) {  // no prefix yet: the fold starts with its first value
      V w[K];
#pragma unroll
      for (unsigned i = 0; i < K; ++i) w[i] = shuffle_from(value[i], from / K);
#pragma unroll
      for (unsigned i = 0; i < K; ++i)
        if (i == from % K) acc = {w[i], true};
      ++from;
    }
    V a = acc.value;
    for (unsigned src = from / K; src * K < count; ++src) {
      V w[K];
#pragma unroll
      for (unsigned i = 0; i < K; ++i) w[i] = shuffle_from(value[i], src);
#pragma unroll
      for (unsigned i = 0; i < K; ++i)
        if (src * K + i >= from && src * K + i < count) a = static_cast<V>(op(a, w[i]));
    }
    if (acc.has) acc.value = a;
    if (hi == tile) break;
    lo = hi;
    hi = lo + span < tile ? lo + span : tile;
    unsigned word[K];
#pragma unroll
    for (unsigned i = 0; i < K; ++i) {
      const std::size_t t = lo + lane * K + i;
      word[i] = t < hi ? st.states.poll(t, st.epoch, value[i]) : 0;
    }
    found = newest_prefix(lo, hi, word);
  }
  return acc;
}

/// \brief Warp 0 (all lanes) of the block owning `tile`: publishes the tile's aggregate, looks
/// back, publishes its inclusive prefix; thread 0 leaves the tile's carry in `carry`.
template <unsigned FoldTilesPerLane, class Problem, class V = typename Problem::value_type>
__device__ void resolve_carry(const Problem& p, std::size_t tile, std::size_t tiles, const V& total,
                              const look_back_state<V>& st, bool deterministic,
                              const look_back_delays& delays, maybe<V>& carry) {
  const auto op = p.value_op();
  const bool has_successor = tile + 1 < tiles;
  maybe<V> e = p.prefix();
  if (tile > 0) {
    if (threadIdx.x == 0 && has_successor)
      st.states.publish(tile, st.epoch << 2 | published_aggregate, total);
    if (exact_grouping_v<typename Problem::op_type, V> || !deterministic)
      e = look_back_tree(tile, st, e, op, delays);
    else
      e = look_back<FoldTilesPerLane>(tile, st, e, op, delays);
  }
  if (threadIdx.x == 0) {
    carry = e;
    if (has_successor)
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
template <class Tile, class Problem, unsigned FoldTilesPerLane,
          unsigned MinBlocksPerSM = Tile::min_blocks_per_sm>
__global__ void __launch_bounds__(Tile::block_size, MinBlocksPerSM)
    scan_look_back_kernel(Problem p, std::size_t tiles,
                          look_back_state<typename Problem::value_type> st, bool deterministic,
                          look_back_delays delays) {
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
    resolve_carry<FoldTilesPerLane>(p, tile, tiles, total, st, deterministic, delays,
                                    carry_slot[0]);
  __syncthreads();
  t.emit(p, op, first, carry_slot[0]);
}

}  // namespace parprim::detail::cuda
