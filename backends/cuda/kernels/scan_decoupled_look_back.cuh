#pragma once
/// \file
/// \brief Scan rung 5, the default: single pass with decoupled look-back (Merrill and
/// Garland), made deterministic. Reads n and writes n, once each.
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

/// \brief Tuning of rung 5 for Hopper.
struct look_back_tuning {
  /// 512 threads x 16 int32: 32 KiB tiles, so one step of the look-back chain (a window of
  /// 32 tiles) covers 1 MiB of input.
  static constexpr unsigned block_size = 512;
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
                                   const maybe<V>& prefix, const Op& op) {
  const unsigned lane = threadIdx.x % warp_threads;
  maybe<V> acc{V{}, false};  // fold of the windows already walked (to the right)
  std::size_t hi = tile;
  for (;;) {
    const std::size_t lo = hi > warp_threads ? hi - warp_threads : 0;
    const bool valid = lo + lane < hi;
    V value{};
    unsigned word = 0;
    for (unsigned pause = 16;; pause = pause < 256 ? 2 * pause : pause) {
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

/// \brief Warp 0 (all lanes): lane 0 gets the exclusive prefix of tile `tile` >= 1.
template <class V, class Op>
__device__ maybe<V> look_back(std::size_t tile, const look_back_state<V>& st,
                              const maybe<V>& prefix, const Op& op) {
  const unsigned lane = threadIdx.x % warp_threads;
  // 1. windows of 32 tiles, newest first, until one holds a published prefix
  std::size_t hi = tile;
  std::size_t lo = 0;
  unsigned prefix_lanes = 0;
  V value{};
  for (;;) {
    lo = hi > warp_threads ? hi - warp_threads : 0;
    const bool valid = lo + lane < hi;
    unsigned word = 0;
    for (unsigned pause = 16;; pause = pause < 256 ? 2 * pause : pause) {
      word = valid ? st.states.poll(lo + lane, st.epoch, value) : 0;
      if (__all_sync(full_warp_mask, !valid || (word >> 2) == st.epoch)) break;
      __nanosleep(pause);
    }
    prefix_lanes = __ballot_sync(full_warp_mask, valid && (word & 3u) == published_prefix);
    if (prefix_lanes != 0 || lo == 0) break;
    hi = lo;
  }
  // 2. fold left to right from the newest published prefix (or from the prefix operand when
  //    the walk reached tile 0 without one), window by window up to the tile before ours.
  //    A later window is read again: every tile there has published; a tile that has
  //    published its prefix since is a new, equally exact, starting point.
  maybe<V> acc = prefix;
  for (;;) {
    unsigned from = 0;  // first lane of this window to fold in
    if (prefix_lanes != 0) {
      const unsigned j = 31 - __clz(prefix_lanes);
      acc = {shuffle_from(value, j), true};
      from = j + 1;
    }
    const auto lanes = static_cast<unsigned>(hi - lo);
    // `from` and `lanes` are the same in every lane, so every lane takes part in each shuffle;
    // usually the newest prefix is a tile or two back and this loop is short
    for (unsigned k = from; k < lanes; ++k)
      acc = combine(acc, maybe<V>{shuffle_from(value, k), true}, op);
    if (hi == tile) break;
    lo = hi;
    hi = lo + warp_threads < tile ? lo + warp_threads : tile;
    const bool valid = lo + lane < hi;
    const unsigned word = valid ? st.states.poll(lo + lane, st.epoch, value) : 0;
    prefix_lanes = __ballot_sync(full_warp_mask, valid && (word & 3u) == published_prefix);
  }
  return acc;
}

template <class Tile, class Problem>
__global__ void __launch_bounds__(Tile::block_size)
    scan_look_back_kernel(Problem p, std::size_t tiles,
                          look_back_state<typename Problem::value_type> st, bool deterministic) {
  using V = typename Problem::value_type;
  __shared__ typename Tile::storage storage;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  __shared__ unsigned tile_slot;
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (id == tiles - 1) *st.ticket = 0;  // every block has its tile: ready for the next call
    tile_slot = id;
  }
  __syncthreads();
  const std::size_t tile = tile_slot;
  const auto op = p.value_op();
  const std::size_t first = tile * Tile::tile_size;
  const auto len =
      static_cast<unsigned>(p.n - first < Tile::tile_size ? p.n - first : Tile::tile_size);
  Tile t;
  const V total = t.scan(p, op, first, len, storage);
  const bool has_successor = tile + 1 < tiles;
  if (threadIdx.x < warp_threads) {
    maybe<V> e = p.prefix();
    if (tile > 0) {
      if (threadIdx.x == 0 && has_successor)
        st.states.publish(tile, st.epoch << 2 | published_aggregate, total);
      if (exact_grouping_v<typename Problem::op_type, V> || !deterministic)
        e = look_back_tree(tile, st, e, op);
      else
        e = look_back(tile, st, e, op);
    }
    if (threadIdx.x == 0) {
      carry_slot[0] = e;
      if (has_successor)
        st.states.publish(tile, st.epoch << 2 | published_prefix,
                          combine(e, maybe<V>{total, true}, op).value);
    }
  }
  __syncthreads();
  t.emit(p, op, first, carry_slot[0]);
}

}  // namespace parprim::detail::cuda
