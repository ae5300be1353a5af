#pragma once
/// \file
/// \brief reduce_by_key on scan rung 6's staged tile (block/tile_shared_bulk.cuh): the one-pass
/// reduction of counted heads of kernels/segments_look_back.cuh, with each tile's values brought
/// into shared memory by one bulk copy (Hopper's TMA) as soon as its block has drawn the tile,
/// and its keys read by each warp together (key_run_heads::warp_run), as the scans by key read
/// theirs. A thread then holds one run (segment_run: its heads and its fold since the last) through
/// the look-back instead of its elements, and more tiles' bytes are in flight on each SM.
///
/// Each tile:
/// 1. (`tile_shared_bulk::scan`) folds each thread's elements restarting at heads, and scans the
///    threads' runs with `segment_run_op`: each thread has the run of the tile's elements before
///    its own;
/// 2. publishes its run and looks back for the run of everything before it (resolve_carry: the
///    tree look-back where `op`'s grouping cannot change the result, else the fixed tree): how
///    many heads come before the tile, and the fold of the segment open at its start;
/// 3. each thread holding a head walks its elements again from the run before them; a head's
///    slot in the tile gets the result of the segment that it closes (in place: the thread's own
///    slot, which no other thread reads), and its position goes to the tile's list of heads in
///    shared memory (indexed by the head's number in the tile);
/// 4. after a barrier the block stores the closed segments' results, read from the slots the
///    list names, and the keys of the tile's runs (key_heads::store_staged) as contiguous runs.
///    The thread holding the input's last element writes the last segment and the count.
///
/// Operands meet `op` in sequence order everywhere (non-commutative operators are fine).
///
/// segmented_reduce with head flags stays on the register tile: its flags staged beside the
/// values and the list of heads would pass the 48 KiB of static shared memory a block may hold
/// (int32: 28 + 7 + 14 KiB).

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/block/tile_shared_bulk.cuh>
#include <parprim/backends/cuda/kernels/segments_look_back.cuh>

namespace parprim::detail::cuda::segments {

/// \brief The scan problem of the staged per-segment tile: values `T` read unconverted, heads
/// from `ReadHeads` (key_run_heads: the keys, element 0 a head), each thread's value the run of
/// its elements (`run_value`: the fold since its last head and how many it holds).
template <class T, class Op, class ReadHeads>
struct counted_run_problem {
  using value_type = segment_run<T>;
  using op_type = segment_run_op<Op>;
  using element_type = T;
  using heads_type = ReadHeads;
  using element_op_type = Op;
  static constexpr bool segmented = true;
  static constexpr bool transforms = false;

  const T* in;
  ReadHeads heads;
  std::size_t n;
  Op op;

  __host__ __device__ op_type value_op() const { return op_type{op}; }
  __host__ __device__ Op element_op() const { return op; }
  __device__ static segment_run<T> run_value(const T& fold, unsigned heads) {
    return {fold, static_cast<std::size_t>(__popc(heads))};
  }
};

/// \brief The staged tile of values `T` (rung 6's shape: 256 threads x 112 bytes).
template <class T, class Op, class ReadHeads>
using staged_run_tile =
    tile_shared_bulk<look_back_tuning::block_size_small, counted_run_problem<T, Op, ReadHeads>, 7>;

/// \brief Tiles per SM of the staged kernel (its register cap): 4 beside 4-byte values, 5 beside
/// 8-byte ones, the tile's own count beside 16-byte ones, at most what shared memory holds (the
/// tile and its list of heads, two bytes an element, in the 228 KiB of an H200 SM with each
/// block's 1 KiB reserve and slots: 5 tiles of 4-byte values, 6 of 8-byte). H200, 2^28,
/// dev/segments_look_back_sweep.cu, int32 keys and values at 4 and 5 tiles per SM: runs of 1
/// 1,411 and 1,528 us, of 32 661 and 711, of 1024 588 and 563 (float values 1,410 / 1,525, 730 /
/// 773, 678 / 639); 2^27 int64 keys and double values at 4 and 5: 1,663 / 1,638, 965 / 920, 866
/// / 799.
template <class Tile>
inline constexpr unsigned staged_tiles_per_sm = [] {
  using E = typename Tile::E;
  constexpr unsigned by_memory =
      233472u / static_cast<unsigned>(sizeof(typename Tile::storage) + 2 * Tile::tile_size + 1152);
  constexpr unsigned wanted = sizeof(E) == 4 ? 4u : sizeof(E) == 8 ? 5u : Tile::min_blocks_per_sm;
  return by_memory < wanted ? by_memory : wanted;
}();

/// \brief The keys a thread loads before it stores them (key_heads::store_staged): 4 (8 at a
/// time spilled at 4 and 5 tiles per SM; int32 keys and values, runs of 1, at 4 tiles per SM:
/// 1,411 us with 8, 1,360 with 4).
inline constexpr unsigned staged_key_batch = 4;

/// \brief Steps 1-4 of the file comment, one block per tile in ticket order. `Heads`: key_heads
/// (its keys_out receive the runs' keys); `p.heads` is its `reader()`. The results (and keys) of
/// runs numbered `room` and above are not written.
template <class Tile, class Problem, class Heads, unsigned MinBlocksPerSM,
          unsigned KeyBatch = staged_key_batch>
__global__ void __launch_bounds__(Tile::block_size, MinBlocksPerSM)
    reduce_segments_staged(Problem p, Heads heads, typename Problem::element_type* __restrict__ out,
                           std::size_t room, bool has_init, typename Problem::element_type init,
                           std::size_t tiles, look_back_state<typename Problem::value_type> st,
                           look_back_delays delays, std::size_t* __restrict__ segment_count) {
  using T = typename Problem::element_type;
  using Op = typename Problem::element_op_type;
  using V = segment_run<T>;
  const Op op = p.element_op();
  const auto rop = p.value_op();
  __shared__ typename Tile::storage storage;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  __shared__ unsigned tile_slot;
  __shared__ std::uint16_t head_position[Tile::tile_size];  // by the head's number in the tile
  static_assert(Tile::tile_size <= 65536, "reduce_segments_staged: positions fit 16 bits");
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (id == tiles - 1) *st.ticket = 0;  // every block has its tile: ready for the next call
    tile_slot = id;
    const std::size_t first = id * std::size_t(Tile::tile_size);
    Tile::start_load(p, first, tile_length<Tile>(p.n, first), storage);
  }
  __syncthreads();
  const std::size_t tile = tile_slot;
  const std::size_t first = tile * Tile::tile_size;
  const unsigned len = tile_length<Tile>(p.n, first);
  Tile t;
  const V total = t.scan(p, rop, first, len, storage);
  const maybe<V> carry = run_before_tile(rop, tile, tiles, total, st, delays, carry_slot[0]);
  const std::size_t before = carry.has ? carry.value.heads : 0;  // heads before the tile
  const auto result = [&](const T& v) { return with_init(has_init, init, v, op); };

  // step 3: the tile's heads are numbered before .. before + h - 1; the head numbered id closes
  // segment id - 1 (none for element 0 of the input)
  const unsigned mine = threadIdx.x * Tile::items;
  const bool holds_last = tile + 1 == tiles && threadIdx.x == (len - 1) / Tile::items;
  if (t.heads_ != 0 || holds_last) {
    maybe<V> cur = combine(carry, t.before_, rop);
    t.rewrite_mine([&](const T& x, unsigned k) {
      if ((t.heads_ >> k) & 1u) {
        const std::size_t id = cur.has ? cur.value.heads : 0;  // the new segment's number
        head_position[id - before] = static_cast<std::uint16_t>(mine + k);
        const T closed = cur.has ? result(cur.value.value) : x;  // x: nothing closes
        cur = {V{x, id + 1}, true};
        return closed;
      }
      cur.value.value = static_cast<T>(op(cur.value.value, x));  // cur.has: element 0 is a head
      return x;
    });
    if (holds_last) {
      if (cur.value.heads - 1 < room) out[cur.value.heads - 1] = result(cur.value.value);
      *segment_count = cur.value.heads;
    }
  }
  __syncthreads();

  // step 4: the segments the tile closes (before - 1 .. before + h - 2), then its runs' keys
  const auto h = static_cast<unsigned>(total.heads);
  const unsigned skip = before > 0 ? 0u : 1u;  // the input's first head closes nothing
  const std::size_t first_closed = before > 0 ? before - 1 : 0;
  const unsigned closed = kept(first_closed, h - skip, room);
  for (unsigned j = threadIdx.x; j < closed; j += Tile::block_size)
    out[first_closed + j] = t.data_[head_position[j + skip]];
  if constexpr (Heads::writes_heads)
    heads.template store_staged<Tile::block_size, Tile::items, KeyBatch>(first, head_position,
                                                                         before, h);
}

}  // namespace parprim::detail::cuda::segments
