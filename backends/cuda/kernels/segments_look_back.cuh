#pragma once
/// \file
/// \brief The per-segment reductions of counted heads (segmented_reduce with head flags,
/// reduce_by_key) in one pass: the tiles of kernels/segment_tiles.cuh, each tile's segment
/// numbers found by a decoupled look-back over *runs* (Merrill and Garland's reduce-by-key
/// state) instead of a counting pass before it. The input (values, and flags or keys) is read
/// once; the results are written once. (reduce_by_key of values of 4, 8 or 16 bytes read
/// unconverted runs on scan rung 6's staged tile instead: kernels/segments_staged.cuh, which
/// shares `segment_run` and `run_before_tile` with this file.)
///
/// A run of elements is described by `segment_run`: the number of heads in it and the fold of
/// its elements after its last head (all of them when it has none). Runs compose with
/// `segment_run_op`, associative for any associative `op`. Each tile:
/// 1. loads its elements and their heads (one bit each); a tile with no head past its first
///    element (most tiles of long segments) only folds (one block reduction); any other scans
///    its threads' runs (a block scan with `segment_run_op`);
/// 2. publishes its run and looks back (scan_decoupled_look_back.cuh: the tree look-back where
///    `op`'s grouping cannot change the result, else the fixed tree, deterministic) for the run
///    of everything before it: how many heads come before the tile (so the number of the
///    segment open at its start) and that segment's fold so far;
/// 3. walks its elements again: each head closes the segment open before it (its result is
///    staged in shared memory, 4- and 8-byte values, skewed against bank conflicts in tiles
///    dense in heads, and stored with the tile's others as one contiguous run), and the keys of
///    reduce_by_key are written the same way. The last tile closes the last segment and writes
///    the number of segments where the host reads it.
///
/// Operands meet `op` in sequence order everywhere (non-commutative operators are fine);
/// `init`, when given, is the left-most operand of every segment.

#include <cstddef>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/contiguous_io.cuh>
#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>
#include <parprim/backends/cuda/kernels/segment_tiles.cuh>

namespace parprim::detail::cuda {

namespace segments {

/// \brief A run of elements: its number of heads, and the fold of its elements after its last
/// head (of all of them when it has none).
template <class T>
struct segment_run {
  T value;
  std::size_t heads;
};

/// \brief Runs move as their value's words and their count's (a run of a 4-byte value is 16
/// bytes with its padding: three shuffles instead of four; see shuffle_parts).
template <class T, class Move>
__device__ __forceinline__ segment_run<T> shuffle_parts(const segment_run<T>& v, const Move& move) {
  return {shuffle_parts(v.value, move), shuffle_parts(v.heads, move)};
}

/// \brief Two adjacent runs as one: the right one's fold if it has a head, else both folded.
template <class Op>
struct segment_run_op {
  Op op;
  template <class T>
  __device__ segment_run<T> operator()(const segment_run<T>& a, const segment_run<T>& b) const {
    return {b.heads > 0 ? b.value : static_cast<T>(op(a.value, b.value)), a.heads + b.heads};
  }
};

}  // namespace segments

/// \brief Runs group exactly when `op` does (the head counts are integers).
template <class Op, class T>
struct exact_grouping<segments::segment_run_op<Op>, segments::segment_run<T>>
    : exact_grouping<Op, T> {};

/// \brief A run of values of up to 4 bytes travels with its status in one 16-byte word: the
/// value in bytes 4 .. 7, the head count in bytes 8 .. 15.
template <class T>
requires(sizeof(T) <= 4) struct packed_layout<segments::segment_run<T>> {
  static constexpr bool fits = true;
  template <class Word>
  __device__ static void pack(Word& w, const segments::segment_run<T>& v) {
    memcpy(reinterpret_cast<unsigned char*>(&w) + 4, &v.value, sizeof(T));
    memcpy(reinterpret_cast<unsigned char*>(&w) + 8, &v.heads, sizeof(v.heads));
  }
  template <class Word>
  __device__ static void unpack(const Word& w, segments::segment_run<T>& v) {
    memcpy(&v.value, reinterpret_cast<const unsigned char*>(&w) + 4, sizeof(T));
    memcpy(&v.heads, reinterpret_cast<const unsigned char*>(&w) + 8, sizeof(v.heads));
  }
};

namespace segments {

/// \brief `init op v`, or `v` without init (reduce_by_key).
template <class T, class Op>
__device__ __forceinline__ T with_init(bool has_init, const T& init, const T& v, const Op& op) {
  return has_init ? static_cast<T>(op(init, v)) : v;
}

/// \brief Every thread of the block: the run of everything before tile `tile`, whose run is
/// `total` (warp 0 publishes it and looks back: the tree look-back where `op`'s grouping cannot
/// change the result, else the fixed tree; `slot`, in shared memory, hands it to the block).
template <class T, class Op>
__device__ maybe<segment_run<T>> run_before_tile(const segment_run_op<Op>& rop, std::size_t tile,
                                                 std::size_t tiles, const segment_run<T>& total,
                                                 const look_back_state<segment_run<T>>& st,
                                                 const look_back_delays& delays,
                                                 maybe<segment_run<T>>& slot) {
  if (threadIdx.x < warp_threads)
    resolve_carry<exact_grouping_v<Op, T> ? 0 : 1>(
        tile_carry_problem<segment_run<T>, segment_run_op<Op>>{rop}, tile, tiles, total, st, true,
        delays, slot);
  __syncthreads();
  return slot;
}

/// \brief When the tiles' look-back polls (see look_back_delays). reduce_by_key of int32 keys and
/// values on an H100 (dev/segments_look_back_sweep.cu), 2^28, runs of 1 / 32 / 1024: {1200, 650}
/// 2,074 / 953 / 886 us; {700, 350} 2,082 / 959 / 892; {350, 200} 2,111 / 997 / 928; no first
/// wait 2,161 / 1,066 / 1,000; {2400, 1200} 2,132 / 1,067 / 1,043; at 2^24 {1200, 650} is also
/// the fastest (75.0 us at runs of 1024, 77.0 with {700, 350}). 3 tiles per SM instead of 4:
/// the same times.
inline look_back_delays run_look_back_delays(std::size_t tiles) {
  return look_back_tuning::sleeps(tiles) ? look_back_delays{1200, 650, 650}
                                         : look_back_tuning::no_sleep;
}

/// \brief Steps 1-3 of the file comment, one block per tile in ticket order (every tile a block
/// waits for belongs to a block that is already running). `Heads`: flag_heads or key_heads.
/// The number of segments goes to `*segment_count`; the results of segments numbered `room`
/// and above are not written (nor their keys: key_heads::room). `MinBlocksPerSM`: the register
/// cap (dev/ sweeps vary it).
template <class Heads, class In, class T, class Op, unsigned MinBlocksPerSM = tiles_per_sm<T>>
__global__ void __launch_bounds__(tile_block, MinBlocksPerSM)
    reduce_segments_look_back(Heads heads, const In* __restrict__ in, std::size_t n,
                              T* __restrict__ out, std::size_t room, bool has_init, T init, Op op,
                              std::size_t tiles, look_back_state<segment_run<T>> st,
                              look_back_delays delays, std::size_t* __restrict__ segment_count) {
  static_assert(Heads::counted, "reduce_segments_look_back: heads numbered by counting");
  using V = segment_run<T>;
  const segment_run_op<Op> rop{op};
  __shared__ unsigned tile_slot;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  __shared__ shared_array<V, tile_block / warp_threads> warp_totals;
  __shared__ shared_array<V, tile_block> inclusive;
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (id == tiles - 1) *st.ticket = 0;  // every block has its tile: ready for the next call
    tile_slot = id;
  }
  __syncthreads();
  const std::size_t tile = tile_slot;
  const bool last_tile = tile + 1 == tiles;
  const tile_span at(tile, n);
  In x[tile_items];
  load_contiguous_first<tile_items>(in + at.t0 + at.mine, x, at.count);
  const unsigned bits = tile_head_bits(heads, at);
  // whether a head follows the tile's first element: else the tile only folds
  const bool scans = __syncthreads_or((threadIdx.x == 0 ? bits & ~1u : bits) != 0) != 0;
  const unsigned last_thread = (at.len - 1) / tile_items;

  // step 1: the tile's run (thread 0)
  V total{};
  if (!scans) {
    total = {fold_tile_elements<T>(x, at, op), bits & 1u};
  } else {
    V own{T{}, 1};  // threads past the end: a head, so nothing of theirs reaches a valid thread
    if (at.count > 0) {
      own = {static_cast<T>(x[0]), static_cast<std::size_t>(__popc(bits))};
#pragma unroll
      for (unsigned k = 1; k < tile_items; ++k)
        if (k < at.count)
          own.value = (bits >> k) & 1u ? static_cast<T>(x[k])
                                       : static_cast<T>(op(own.value, static_cast<T>(x[k])));
    }
    inclusive[threadIdx.x] = block_inclusive_scan<tile_block>(own, rop, warp_totals.get());
    __syncthreads();
    total = inclusive[last_thread];
  }

  // step 2: the run before the tile
  const maybe<V> carry = run_before_tile(rop, tile, tiles, total, st, delays, carry_slot[0]);
  const std::size_t before = carry.has ? carry.value.heads : 0;  // heads before the tile
  const auto result = [&](const T& v) { return with_init(has_init, init, v, op); };

  // step 3
  if (!scans) {
    if (threadIdx.x == 0) {
      if (bits & 1u) {
        if (before > 0 && before - 1 < room) out[before - 1] = result(carry.value.value);
        heads.on_head(at.t0, before);
      }
      if (last_tile) {
        const V end = combine(carry, maybe<V>{total, true}, rop).value;
        if (end.heads - 1 < room) out[end.heads - 1] = result(end.value);
        *segment_count = end.heads;
      }
    }
    return;
  }
  // The tile's heads are numbered before .. before + H - 1; the segments it closes are those
  // numbered first_closed .. before + H - 2 (the one open before it, then its own but the
  // last). 4- and 8-byte results and the heads' positions are staged and stored as contiguous
  // runs after the walk, skewed (staging_array) in a tile of at least one head in four elements
  // (with a head at every element, a thread's stores are 16 slots apart) and with keys.
  constexpr bool stage_values = sizeof(T) <= 8 && std::is_trivially_copyable_v<T>;
  constexpr bool stage_heads = Heads::writes_heads;
  __shared__ staging_array<T, stage_values ? tile_size : 1> staged;
  __shared__ staging_array<std::uint16_t, stage_heads ? tile_size : 1> head_position;
  const std::size_t first_closed = before > 0 ? before - 1 : 0;
  const auto h = static_cast<unsigned>(inclusive[last_thread].heads);  // the tile's heads
  const auto walk_and_store = [&](auto skew) {
    [[maybe_unused]] constexpr bool skewed = decltype(skew)::value;
    if (at.count > 0) {
      maybe<V> cur =
          threadIdx.x > 0 ? combine(carry, maybe<V>{inclusive[threadIdx.x - 1], true}, rop) : carry;
#pragma unroll
      for (unsigned k = 0; k < tile_items; ++k) {
        if (k < at.count) {
          const T v = static_cast<T>(x[k]);
          if ((bits >> k) & 1u) {
            const std::size_t id = cur.has ? cur.value.heads : 0;  // the new segment's number
            if (cur.has) {
              if constexpr (stage_values)
                staged.template at<skewed>(static_cast<unsigned>(id - 1 - first_closed)) =
                    result(cur.value.value);
              else if (id - 1 < room)
                out[id - 1] = result(cur.value.value);
            }
            if constexpr (stage_heads)
              head_position.template at<skewed>(static_cast<unsigned>(id - before)) =
                  static_cast<std::uint16_t>(at.mine + k);
            else
              heads.on_head(at.t0 + at.mine + k, id);
            cur = {V{v, id + 1}, true};
          } else {  // cur.has: element 0 is a head
            cur.value.value = static_cast<T>(op(cur.value.value, v));
          }
        }
      }
      if (last_tile && at.mine + at.count == at.len) {
        if (cur.value.heads - 1 < room) out[cur.value.heads - 1] = result(cur.value.value);
        *segment_count = cur.value.heads;
      }
    }
    if constexpr (stage_values || stage_heads) {
      __syncthreads();
      if constexpr (stage_values) {
        const unsigned closed = kept(first_closed, before > 0 ? h : h - 1, room);
        const auto results = staged.template read<skewed>();
        for (unsigned j = threadIdx.x; j < closed; j += tile_block)
          out[first_closed + j] = results[j];
      }
      if constexpr (stage_heads)
        heads.template store_staged<tile_block, tile_size / tile_block>(
            at.t0, head_position.template read<skewed>(), before, h);
    }
  };
  // h is the same in every thread: the branch (and the barrier inside it) is the block's. The
  // keys' tiles always skew: with both walks the key kernel spilled more and lost more than the
  // plain layout saves on sparse tiles (H100, 2^28 int32, dev/segments_look_back_sweep.cu).
  if constexpr (stage_heads)
    walk_and_store(std::true_type{});
  else if (stage_values && h >= tile_size / 4)
    walk_and_store(std::true_type{});
  else
    walk_and_store(std::false_type{});
}

}  // namespace segments

}  // namespace parprim::detail::cuda
