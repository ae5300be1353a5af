#pragma once
/// \file
/// \brief The tiles of the per-segment reductions (segmented_reduce with head flags or CSR
/// offsets, reduce_by_key), and the kernels of the offsets form. The input is cut into tiles of
/// `tile_size` elements whatever the segments are, so the work per element does not depend on
/// segment lengths (one segment of n, n segments of one, or a mix). Heads numbered by counting
/// (flags, keys) are reduced in one pass by kernels/segments_look_back.cuh; CSR offsets number
/// their segments themselves. Both of their forms start with
///
/// 1. `locate_tiles`: each tile's first element's segment (a binary search) and, where the call
///    did not check the offsets before, the check itself (a decrease or a wrong end marks a
///    verdict word; the kernels after it then write no result, and the host raises after its
///    one wait). The one pass below starts while it runs (a programmatic dependent launch).
///
/// Every tile then loads its elements; a tile with no head past its first element (most tiles
/// of long segments; the offsets tell which) only folds them (`fold_tile`: one block
/// reduction); any other scans its threads' runs (value since the last head, that head's place)
/// with the flag operator (`scan_tile`), writes each segment that starts and ends in it, and
/// leaves its open segment at its end (its *tail*: from its last head, or all of it) and its
/// *lead* (the fold before its first head). The segment open before a tile ends at the tile's
/// first head, with its lead. Finding that segment:
///
/// - one pass (`reduce_offset_spans`, while one wave of blocks holds every span of at most 16
///   tiles: n up to about 2^25 on an H100; and at any n for commutative operators on segments
///   of 2 tiles or more on average): a block walks a span of consecutive tiles, carrying the
///   open segment from tile to tile, and a decoupled look-back over the spans
///   (scan_decoupled_look_back.cuh) gives it the segment open before its span; the blocks then
///   write `init` to the empty segments. For commutative operators a *stretch* of consecutive
///   tiles that only fold is folded by each thread into one value, with no block step between
///   the tiles, and reduced once where it ends (the plain reduction's pace on long segments);
/// - three steps (larger n, where the walk of long spans costs more than two more launches):
///   `reduce_tiles` (one block a tile) leaves every tail and lead in memory, the look-back scan
///   of the tails gives the segment open at each tile's end, and `close_tiles` (one thread a
///   tile) writes the segments that span tiles and the empty ones.
///
/// Operands meet `op` in sequence order everywhere (non-commutative operators are fine);
/// `init`, when given, is the left-most operand of every segment.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/block/block_reduce.cuh>
#include <parprim/backends/cuda/block/contiguous_io.cuh>
#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/async_copy.cuh>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/detail/dependent_launch.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>
#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/backends/cuda/warp/warp_scan.cuh>

namespace parprim::detail::cuda::segments {

/// Threads per tile and elements per thread: 4096-element tiles for every type.
inline constexpr unsigned tile_block = 256;
inline constexpr unsigned tile_items = 16;
inline constexpr std::size_t tile_size = std::size_t{tile_block} * tile_items;
/// \brief The number of tiles of n elements.
constexpr std::size_t tile_count(std::size_t n) {
  return (n + tile_size - 1) / tile_size;
}

/// \brief What a tile leaves beside its open segment: the fold of its elements before its first
/// head (`has_lead`), and whether it has a head.
template <class T>
struct tile_lead {
  T value;
  bool has_lead;
  bool has_head;
};

/// \brief The element of the scans over threads and tiles: the value of the segment open so
/// far, whether its head was seen, and that head's segment number.
template <class T>
struct open_segment {
  T value;
  std::size_t id;
  bool head;
};

/// \brief Open segments move as their value's words, their number's and one word for the head
/// (an open segment of a 4-byte value is 24 bytes with its padding: four shuffles instead of
/// six; see shuffle_parts).
template <class T, class Move>
__device__ __forceinline__ open_segment<T> shuffle_parts(const open_segment<T>& v,
                                                         const Move& move) {
  return {shuffle_parts(v.value, move), shuffle_parts(v.id, move), move(v.head ? 1u : 0u) != 0};
}

/// \brief The flag operator on open segments (the number travels with the head).
template <class Op>
struct open_segment_op {
  Op op;
  template <class T>
  __device__ open_segment<T> operator()(const open_segment<T>& a, const open_segment<T>& b) const {
    return b.head ? b : open_segment<T>{static_cast<T>(op(a.value, b.value)), a.id, a.head};
  }
};

/// \brief What resolve_carry (scan_decoupled_look_back.cuh) asks of a scan problem, for the
/// per-segment kernels' look-backs over tiles: values `V` (open segments, runs), their operator
/// `VOp`, no prefix before element 0.
template <class V, class VOp>
struct tile_carry_problem {
  using value_type = V;
  using op_type = VOp;
  VOp op;
  __device__ VOp value_op() const { return op; }
  __device__ maybe<V> prefix() const { return {V{}, false}; }
};

}  // namespace parprim::detail::cuda::segments

namespace parprim::detail::cuda {

/// \brief Open segments group exactly when `op` does (the numbers travel unchanged).
template <class Op, class T>
struct exact_grouping<segments::open_segment_op<Op>, segments::open_segment<T>>
    : exact_grouping<Op, T> {};

/// \brief An open segment of a value of up to 4 bytes travels with its look-back status in one
/// 16-byte word: the value in bytes 4 .. 7, the number in bytes 8 .. 15 with the head in its
/// top bit (segment numbers stay below 2^63).
template <class T>
requires(sizeof(T) <= 4) struct packed_layout<segments::open_segment<T>> {
  static constexpr bool fits = true;
  static constexpr std::size_t head_bit = std::size_t{1} << 63;
  template <class Word>
  __device__ static void pack(Word& w, const segments::open_segment<T>& v) {
    const std::size_t id = v.id | (v.head ? head_bit : 0);
    memcpy(reinterpret_cast<unsigned char*>(&w) + 4, &v.value, sizeof(T));
    memcpy(reinterpret_cast<unsigned char*>(&w) + 8, &id, sizeof(id));
  }
  template <class Word>
  __device__ static void unpack(const Word& w, segments::open_segment<T>& v) {
    std::size_t id = 0;
    memcpy(&v.value, reinterpret_cast<const unsigned char*>(&w) + 4, sizeof(T));
    memcpy(&id, reinterpret_cast<const unsigned char*>(&w) + 8, sizeof(id));
    v.id = id & ~head_bit;
    v.head = (id & head_bit) != 0;
  }
};

}  // namespace parprim::detail::cuda

namespace parprim::detail::cuda::segments {

/// \brief Heads at element 0 and at every non-zero flag; segments numbered by counting.
struct flag_heads {
  const std::uint8_t* flags;
  static constexpr bool counted = true;
  static constexpr bool writes_heads = false;  ///< on_head writes nothing
  static constexpr bool warp_reads = false;    ///< see tile_head_bits
  /// \brief Bit k set where element i + k (k < count) starts a segment.
  __device__ unsigned bits(std::size_t i, unsigned count) const {
    std::uint8_t f[tile_items] = {};  // past count: no head
    load_contiguous_first<tile_items>(flags + i, f, count);
    return nonzero_byte_bits(f) | (i == 0 ? 1u : 0u);
  }
  /// \brief Whether element i starts a segment.
  __device__ bool head_at(std::size_t i) const { return i == 0 || flags[i] != 0; }
  __device__ void on_head(std::size_t, std::size_t) const {}
};

/// \brief How many of `count` results numbered from `first` are below `room` (are written).
__device__ __forceinline__ unsigned kept(std::size_t first, unsigned count, std::size_t room) {
  return first >= room ? 0u : (room - first < count ? static_cast<unsigned>(room - first) : count);
}

/// \brief Heads where a key differs (`==`) from the one before; each run's first key is
/// written to `keys_out[segment]` when `keys_out` is not null and the segment is below `room`.
template <class K>
struct key_heads {
  const K* keys;
  K* keys_out;
  std::size_t room = ~std::size_t{0};  ///< slots of keys_out
  static constexpr bool counted = true;
  static constexpr bool writes_heads = true;
  /// A warp reads its keys together where they are whole 16-byte words (tile_head_bits).
  static constexpr bool warp_reads = key_run_heads<K>::template warp_reads<tile_items>;
  __device__ bool warp_aligned(std::size_t i) const {
    return key_run_heads<K>{keys}.warp_aligned(i);
  }
  /// \brief The heads as rung 6's staged tile reads them (kernels/segments_staged.cuh).
  __host__ __device__ key_run_heads<K> reader() const { return {keys}; }
  /// \brief Lane l's `bits(i + l * tile_items, tile_items)`, the warp reading its keys together
  /// (key_run_heads::warp_run).
  __device__ unsigned warp_bits(std::size_t i, unsigned lane) const {
    return key_run_heads<K>{keys}.template warp_run<tile_items>(i, lane);
  }
  __device__ unsigned bits(std::size_t i, unsigned count) const {
    K key[tile_items];
    load_contiguous_first<tile_items>(keys + i, key, count);
    unsigned b = i == 0 || !(key[0] == keys[i - 1]) ? 1u : 0u;
#pragma unroll
    for (unsigned k = 1; k < tile_items; ++k)
      if (k < count && !(key[k] == key[k - 1])) b |= 1u << k;
    return b;
  }
  __device__ bool head_at(std::size_t i) const {
    return i == 0 || !(keys[i] == keys[i - 1]);
  }
  __device__ void on_head(std::size_t i, std::size_t id) const {
    if (keys_out != nullptr && id < room) keys_out[id] = keys[i];
  }
  /// \brief `keys_out[first_id + j] = keys[t0 + position[j]]` for j < h (<= Block * Per) and
  /// first_id + j < room (`position`: the tile's head positions in shared memory, indexed by
  /// j), the block's threads
  /// taking j = threadIdx.x, + Block, ...: at most one key a thread when h <= Block; else a
  /// thread's loads of 32 bytes of keys first, then their stores, so the loads are in flight
  /// together (a store between them might alias the keys; more at a time made the tile kernel
  /// spill). H100, reduce_by_key of 2^28 int32, runs of 1: 1,907 us against 2,077 one key after the
  /// other; the batches for every h cost 5-7 % at runs of 32 and 1024
  /// (dev/segments_look_back_sweep.cu).
  /// `Batch` (0: 8 keys of up to 4 bytes, else 4): the keys a thread loads before it stores them.
  template <unsigned Block, unsigned Per, unsigned Batch = 0, class Positions>
  __device__ void store_staged(std::size_t t0, const Positions& position, std::size_t first_id,
                               unsigned h) const {
    // the last batch may pass Per: its j >= h
    constexpr unsigned batch = Batch > 0 ? Batch : sizeof(K) <= 4 ? 8 : 4;
    if (keys_out == nullptr) return;
    h = kept(first_id, h, room);
    if (h <= Block) {
      if (threadIdx.x < h) keys_out[first_id + threadIdx.x] = keys[t0 + position[threadIdx.x]];
      return;
    }
#pragma unroll
    for (unsigned r0 = 0; r0 < Per; r0 += batch) {
      K key[batch];
#pragma unroll
      for (unsigned r = 0; r < batch; ++r) {
        const unsigned j = (r0 + r) * Block + threadIdx.x;
        if (j < h) key[r] = keys[t0 + position[j]];
      }
#pragma unroll
      for (unsigned r = 0; r < batch; ++r) {
        const unsigned j = (r0 + r) * Block + threadIdx.x;
        if (j < h) keys_out[first_id + j] = key[r];
      }
    }
  }
};

/// \brief Heads at the first element of every non-empty CSR segment; numbered by the offsets.
template <class I>
struct offset_heads {
  const I* begins;  ///< k + 1 offsets, checked
  std::size_t k;
  static constexpr bool counted = false;
  /// \brief The segment that holds element i: the last s with begins[s] <= i; `*starts` tells
  /// whether that segment starts at i (begins[0] is 0: the offsets are checked).
  __device__ std::size_t segment_of(std::size_t i, bool* starts = nullptr) const {
    std::size_t lo = 0, hi = k;  // begins[lo] <= i < begins[hi]
    std::size_t at_lo = 0;       // begins[lo]
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const auto b = static_cast<std::size_t>(begins[mid]);
      if (b <= i) {
        lo = mid;
        at_lo = b;
      } else {
        hi = mid;
      }
    }
    if (starts != nullptr) *starts = at_lo == i;
    return lo;
  }
};

/// \brief Block-wide inclusive scan with any associative operator (thread order). Every thread
/// calls it; `warp_totals` is shared memory of `Block / 32` values, free again on return.
template <unsigned Block, class V, class Op>
__device__ V block_inclusive_scan(V v, const Op& op, V* warp_totals) {
  constexpr unsigned warps = Block / warp_threads;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  v = warp_inclusive_scan(v, lane, op);
  if (lane == warp_threads - 1) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    V w = warp_totals[lane < warps ? lane : 0];
    w = warp_inclusive_scan(w, lane, op);
    __syncwarp();
    if (lane < warps) warp_totals[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v = op(warp_totals[warp - 1], v);
  __syncthreads();
  return v;
}

/// \brief Where tile u lies and this thread's run in it.
struct tile_span {
  std::size_t t0;  ///< the tile's first element
  unsigned len;    ///< its elements (tile_size but in the last tile)
  unsigned mine;   ///< this thread's first element in the tile
  unsigned count;  ///< this thread's elements (0 past the end)
  __device__ tile_span(std::size_t u, std::size_t n)
      : t0(u * tile_size),
        len(n - t0 < tile_size ? static_cast<unsigned>(n - t0) : unsigned(tile_size)),
        mine(threadIdx.x * tile_items),
        count(mine < len ? (len - mine < tile_items ? len - mine : tile_items) : 0) {}
};

/// \brief This thread's head bits in tile `at` (bit k: element at.mine + k is a head): a warp
/// whose elements are all in the tile reads its keys together where the heads allow it
/// (`warp_reads`: coalesced, as the scans by key do), else each thread its own run. Every thread
/// of the block calls it.
template <class Heads>
__device__ __forceinline__ unsigned tile_head_bits(const Heads& heads, const tile_span& at) {
  if constexpr (Heads::warp_reads) {
    const unsigned warp_first = threadIdx.x / warp_threads * (warp_threads * tile_items);
    if (warp_first + warp_threads * tile_items <= at.len && heads.warp_aligned(at.t0 + warp_first))
      return heads.warp_bits(at.t0 + warp_first, threadIdx.x % warp_threads);
  }
  return at.count > 0 ? heads.bits(at.t0 + at.mine, at.count) : 0u;
}

/// \brief The number of heads of n elements, added to `*total` (zero before): one block per
/// tile (the check of `out`'s size before a reduction writes).
template <class Heads>
__global__ void __launch_bounds__(tile_block)
    count_heads(Heads heads, std::size_t n, unsigned long long* total) {
  __shared__ unsigned warp_counts[tile_block / warp_threads];
  unsigned c = __popc(tile_head_bits(heads, tile_span(blockIdx.x, n)));
  c = __reduce_add_sync(full_warp_mask, c);
  if (threadIdx.x % warp_threads == 0) warp_counts[threadIdx.x / warp_threads] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block_total = 0;
#pragma unroll
    for (unsigned w = 0; w < tile_block / warp_threads; ++w) block_total += warp_counts[w];
    atomicAdd(total, static_cast<unsigned long long>(block_total));
  }
}

/// \brief `to[s] = from[s]` (and `keys_to[s] = keys_from[s]` where `keys_to` is not null) for
/// s < `*count`, only when `*count <= room` (all the results fit): the results of a reduction of
/// counted heads, staged in a temporary of `room` slots, moved into the caller's outputs, which
/// stay untouched when there are more segments than they hold. Grid-stride.
template <class T, class K>
__global__ void __launch_bounds__(tile_block)
    copy_results_if_room(const T* __restrict__ from, T* __restrict__ to,
                         const K* __restrict__ keys_from, K* __restrict__ keys_to,
                         const std::size_t* count, std::size_t room) {
  const std::size_t c = *count;
  if (c > room) return;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t s = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; s < c; s += stride) {
    to[s] = from[s];
    if (keys_to != nullptr) keys_to[s] = keys_from[s];
  }
}

/// \brief Step 1's word for a tile: the segment that holds its first element, with
/// `starts_bit` set where that segment starts at the tile's first element (so a tile that only
/// folds needs no read of the offsets after its reduction: one memory latency less a tile).
struct tile_first {
  static constexpr std::size_t starts_bit = std::size_t{1} << 63;
  std::size_t word;
  __device__ std::size_t segment() const { return word & ~starts_bit; }
  __device__ bool starts() const { return (word & starts_bit) != 0; }
};

/// \brief The word of the offsets' verdict: `epoch << 2 | 3` once a check of this call failed.
/// It lies in the call's status memory, where no word holds this call's epoch before the call
/// sets it (and kind 3 is no look-back state), so it needs no reset.
__host__ __device__ constexpr unsigned offsets_verdict_bad(unsigned epoch) {
  return epoch << 2 | 3u;
}

/// \brief Step 1: `first[u]` = tile u's tile_first word, for every tile, and `first[tiles]` =
/// k - 1 (the bound of the last tile's search). With `check`, also the offsets' check in the
/// same pass: `*verdict` = offsets_verdict_bad(epoch) where one decreases, the first is not 0
/// or the last is not n (the host then finds which, raises, and step 2 writes nothing).
template <class I>
__global__ void locate_tiles(offset_heads<I> heads, std::size_t n, std::size_t tiles,
                             std::size_t* __restrict__ first, bool check, unsigned* verdict,
                             unsigned epoch) {
  allow_dependent_launch();  // reduce_offset_spans' blocks may start (they wait for this grid)
  const std::size_t items = (check && heads.k > tiles ? heads.k : tiles) + 1;
  for (std::size_t u = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; u < items;
       u += std::size_t{gridDim.x} * blockDim.x) {
    if (u < tiles) {
      bool starts = false;
      const std::size_t s = heads.segment_of(u * tile_size, &starts);
      first[u] = s | (starts ? tile_first::starts_bit : 0);
    } else if (u == tiles) {
      first[u] = heads.k - 1;
    }
    if (check && u <= heads.k) {
      const auto at = static_cast<std::size_t>(heads.begins[u]);
      const bool bad = u == 0 ? at != 0 || static_cast<std::size_t>(heads.begins[heads.k]) != n
                              : heads.begins[u] < heads.begins[u - 1];
      if (bad) *verdict = offsets_verdict_bad(epoch);
    }
  }
}

/// \brief Asks the L2 cache for tile u's elements ahead of their loads (a hint: whole tiles of
/// a 16-byte aligned input, sm_90 and later): the three steps' blocks ask for the tile one wave
/// of blocks ahead where the segments are short (their tiles scan, and a block waiting for its
/// loads has nothing else in flight).
template <class In>
__device__ __forceinline__ void prefetch_tile(const In* in, std::size_t n, std::size_t u) {
  if constexpr (bulk_copy_available) {
    const std::size_t t0 = u * tile_size;
    if (t0 < n && n - t0 >= tile_size && reinterpret_cast<std::uintptr_t>(in) % 16 == 0)
      bulk_prefetch_l2(in + t0, static_cast<unsigned>(tile_size * sizeof(In)));
  }
}

/// \brief Asks the L2 cache for the offsets a scanning tile u reads (those of the segments from
/// its first element's to the next tile's, `first` as locate_tiles left it), as prefetch_tile
/// does for its elements: the whole 16-byte words of that range (a hint; sm_90 and later).
template <class I>
__device__ __forceinline__ void prefetch_tile_offsets(const offset_heads<I>& heads,
                                                      const std::size_t* first, std::size_t tiles,
                                                      std::size_t u) {
  if constexpr (bulk_copy_available) {
    if (u >= tiles) return;
    const I* from = heads.begins + tile_first{first[u]}.segment();
    const I* to = heads.begins + tile_first{first[u + 1]}.segment() + 2;  // the last one's end
    const std::uintptr_t lo = (reinterpret_cast<std::uintptr_t>(from) + 15) & ~std::uintptr_t{15};
    const std::uintptr_t hi = reinterpret_cast<std::uintptr_t>(to) & ~std::uintptr_t{15};
    constexpr std::uintptr_t cap = 16384;  // a tile of one-element segments' offsets (int32)
    if (hi > lo)
      bulk_prefetch_l2(reinterpret_cast<const void*>(lo),
                       static_cast<unsigned>(hi - lo < cap ? hi - lo : cap));
  }
}

/// \brief Thread 0 gets the fold of the tile's elements in sequence order (each thread folds its
/// run, then one block reduction in thread order). Every thread calls it.
template <class T, class In, class Op>
__device__ __forceinline__ T fold_tile_elements(const In (&x)[tile_items], const tile_span& at,
                                                const Op& op) {
  __shared__ warp_slots<T, tile_block> slots;
  T v = at.count > 0 ? static_cast<T>(x[0]) : T{};
#pragma unroll
  for (unsigned k = 1; k < tile_items; ++k)
    if (k < at.count) v = static_cast<T>(op(v, static_cast<T>(x[k])));
  return block_reduce_ordered<tile_block>(v, (at.len + tile_items - 1) / tile_items, op,
                                          slots.get());
}

/// \brief Step 2 for a tile with no head past its first element (its first segment is the next
/// tile's; most tiles of long segments): the fold of its elements, in order, is its open
/// segment (numbered `first.segment()`, a head when that segment starts at the tile), and it
/// has no lead. One block reduction: no head table, no scan. Every thread calls it.
template <class In, class T, class Op>
__device__ __forceinline__ void fold_tile(const In (&x)[tile_items], const tile_span& at,
                                          const Op& op, tile_first first, open_segment<T>& tail,
                                          tile_lead<T>& lead) {
  const T v = fold_tile_elements<T>(x, at, op);
  if (threadIdx.x == 0) {
    const bool head = first.starts();
    tail = {v, head ? first.segment() : 0, head};
    lead.has_lead = false;
    lead.has_head = head;
  }
}

/// \brief What a tile's threads scan (scan_tile): the fold of the elements since the last head
/// seen (all of them where none), and 1 + that head's position in the tile (0: none). Its
/// segment number is read from the tile's table only where a segment is written, so two words
/// travel in the scan instead of an open_segment's four.
template <class T>
struct tile_run {
  T value;
  unsigned head;
};

/// \brief Tile runs move as their value's words and the head's word.
template <class T, class Move>
__device__ __forceinline__ tile_run<T> shuffle_parts(const tile_run<T>& v, const Move& move) {
  return {shuffle_parts(v.value, move), move(v.head)};
}

/// \brief The flag operator on tile runs (the later head's position wins).
template <class Op>
struct tile_run_op {
  Op op;
  template <class T>
  __device__ tile_run<T> operator()(const tile_run<T>& a, const tile_run<T>& b) const {
    return b.head != 0 ? b : tile_run<T>{static_cast<T>(op(a.value, b.value)), a.head};
  }
};

/// \brief The warp scan of tile runs (warp_segmented_inclusive_scan: the heads by one ballot,
/// each step shuffling the value only), then the last head's place from the lane holding it
/// (one shuffle). Same result as the generic scan with `tile_run_op`.
template <class T, class Op>
__device__ __forceinline__ tile_run<T> warp_inclusive_scan(tile_run<T> v, unsigned lane,
                                                           const tile_run_op<Op>& f) {
  unsigned start = 0;
  warp_segmented_inclusive_scan(v.value, v.head != 0, lane, f.op, start);
  return {v.value, __shfl_sync(full_warp_mask, v.head, start)};  // 0 where no lane <= lane has one
}

/// \brief The bytes of a scanning tile's shared words beside its marks (scan_tile): the
/// offsets it marks its heads from, a chunk at a time (4099 segments of 4-byte offsets, a tile
/// of segments of one element in one chunk; 2049 of 8-byte ones), then the results of the
/// segments it closes (result_slots), skewed as a staging_array. No more: 5 blocks of the
/// three steps' tile kernel (4-byte values, scanning_tiles_per_sm) and their 1 KiB each fit the
/// 196 KiB carve-out only up to 39,116 bytes a block. A first form at 40,044 (these words and
/// the heads' indices skewed, 16,896 bytes each) ran segments of 32 and 1024 5-10 % slower on
/// the H100, as much as 5 tiles per SM once gained over 4 (whether it lost a tile per SM or L1
/// cache was not measured).
inline constexpr unsigned scan_tile_word_bytes = 16384 + 16;

/// \brief The results a scanning tile stages in its shared words (scan_tile), by segment from
/// its first (the others are stored directly): 3975 of 4 bytes, 1929 of 8.
template <class T>
inline constexpr unsigned result_slots = [] {
  constexpr std::size_t per_row = staging_array<T, 1>::per_row;
  const std::size_t n = scan_tile_word_bytes * per_row / (sizeof(T) * (per_row + 1));
  return static_cast<unsigned>(n < tile_size ? n : tile_size);
}();

/// \brief A scanning tile's head marks (scan_tile) cleared: a byte per element.
__device__ __forceinline__ void clear_head_marks(std::uint8_t* head_bytes) {
  for (unsigned w = threadIdx.x; w < tile_size / 16; w += tile_block)
    reinterpret_cast<uint4*>(head_bytes)[w] = make_uint4(0, 0, 0, 0);
}

/// \brief The range of a wide scanning tile's 32-bit index words (scan_tile): a tile that spans
/// 2^32 - 1 segments or more gives its head of index j = hi * (2^32 - 1) + lo the word lo (never
/// all ones) and the mark 1 + hi (254 at most: 254 * (2^32 - 1) segments' offsets take more
/// than 4 TB).
inline constexpr std::size_t wide_index_range = 0xffffffffu;

/// \brief Marks the head of a segment [b, e) (scan_tile) with `byte` and the index word
/// `index` where the segment is non-empty and starts in the tile [t0, t0 + len).
__device__ __forceinline__ void mark_head(std::size_t b, std::size_t e, std::size_t t0,
                                          unsigned len, std::uint8_t byte, std::uint32_t index,
                                          std::uint8_t* head_bytes, std::uint32_t* head_index) {
  if (b >= t0 && b - t0 < len && e > b) {
    head_bytes[b - t0] = byte;
    head_index[b - t0] = index;
  }
}

/// \brief The marks of a scanning tile that spans more segments than it has threads
/// (scan_tile): the offsets of its `segments` segments (`begins`: its first one's) and the last
/// one's end come into `staged` (shared memory) a chunk at a time, every thread's copies in
/// flight at once (start_async_copy: no register held), the first beside the clearing of the
/// marks; segment j marks its head, where it is non-empty and starts in the tile, with the byte
/// 1 and the index word j (Wide: as wide_index_range says). Every thread calls it.
template <bool Wide, class I>
__device__ __forceinline__ void mark_heads_in_chunks(const I* begins, std::size_t segments,
                                                     std::size_t t0, unsigned len, I* staged,
                                                     std::uint8_t* head_bytes,
                                                     std::uint32_t* head_index) {
  constexpr unsigned chunk = scan_tile_word_bytes / sizeof(I) - 1;  // segments a chunk
  for (std::size_t base = 0; base < segments; base += chunk) {
    const unsigned here = segments - base < chunk ? unsigned(segments - base) : chunk;
    if (base > 0) __syncthreads();  // the previous chunk is read
    start_async_copy<tile_block>(staged, begins + base, here + 1);
    if (base == 0) clear_head_marks(head_bytes);
    wait_async_copies<I>();
    __syncthreads();
    for (unsigned j = threadIdx.x; j < here; j += tile_block) {
      std::size_t hi = 0, lo = base + j;
      if constexpr (Wide) {  // index = hi * 2^32 + rest = hi * (2^32 - 1) + (rest + hi)
        hi = lo >> 32;
        lo = (lo & wide_index_range) + hi;
        if (lo >= wide_index_range) lo -= wide_index_range, ++hi;
      }
      mark_head(static_cast<std::size_t>(staged[j]), static_cast<std::size_t>(staged[j + 1]), t0,
                len, static_cast<std::uint8_t>(1 + hi), static_cast<std::uint32_t>(lo), head_bytes,
                head_index);
    }
  }
}

/// \brief mark_heads_in_chunks for a wide tile, then the marks back to bytes of 0 and 1 and each
/// head's hi into `staged` as a byte by position; out of line (2^32 - 1 segments or more, all
/// but a tile's worth empty: the common tiles keep their code and registers).
template <class I>
__device__ __noinline__ void mark_wide_tile_heads(const I* begins, std::size_t segments,
                                                  std::size_t t0, unsigned len, I* staged,
                                                  std::uint8_t* head_bytes,
                                                  std::uint32_t* head_index) {
  mark_heads_in_chunks<true>(begins, segments, t0, len, staged, head_bytes, head_index);
  __syncthreads();
  auto* const hi = reinterpret_cast<std::uint8_t*>(staged);
  for (unsigned p = threadIdx.x; p < tile_size; p += tile_block) {
    const unsigned m = head_bytes[p];
    hi[p] = static_cast<std::uint8_t>(m > 0 ? m - 1 : 0);
    head_bytes[p] = m > 0 ? 1 : 0;
  }
}

/// \brief Step 2 for a tile with a head past its first element: the block marks the tile's
/// heads in shared memory (a byte each, with the segment number of each: segments
/// `first_segment` .. `last_segment`), scans its threads' runs (tile_run: value and last head's
/// position), and writes the segments that start and end in the tile. Only threads holding a
/// head walk their elements again (closing the segment before each head; the one before the
/// tile's first head is its lead); the thread of the tile's last element leaves the tile's open
/// segment (its tail). Every thread calls it.
template <class I, class In, class T, class Op>
__device__ __forceinline__ void scan_tile(const offset_heads<I>& heads, const In (&x)[tile_items],
                                          const tile_span& at, T* __restrict__ out, const T& init,
                                          const Op& op, std::size_t first_segment,
                                          std::size_t last_segment, open_segment<T>& tail,
                                          tile_lead<T>& lead) {
  static_assert(sizeof(T) <= 32,
                "parprim::segmented_reduce with offsets on parprim::cuda: accumulator types of "
                "up to 32 bytes");
  // a byte per element (1 at a head; after pass 1, 1 at each result staged in `words`) and, at
  // a head, its segment's number less first_segment
  __shared__ alignas(16) std::uint8_t head_bytes[tile_size];
  __shared__ std::uint32_t head_index[tile_size];
  // the offsets, a chunk at a time; then the results (scan_tile_word_bytes)
  constexpr unsigned slots = result_slots<T>;
  using results_t = staging_array<T, slots>;
  static_assert(sizeof(results_t) <= scan_tile_word_bytes && alignof(T) <= 32);
  __shared__ alignas(32) unsigned char words[scan_tile_word_bytes];
  I* const staged = reinterpret_cast<I*>(words);
  results_t& results = *reinterpret_cast<results_t*>(words);
  __shared__ shared_array<tile_run<T>, tile_block / warp_threads> warp_totals;
  __shared__ shared_array<tile_run<T>, tile_block> inclusive;
  const tile_run_op<Op> rop{op};
  const std::size_t t0 = at.t0;
  const unsigned len = at.len, mine = at.mine, count = at.count;
  // Where the tile spans more segments than it has threads (dense), its offsets come into
  // shared memory a chunk at a time (mark_heads_in_chunks) and the results of the segments it
  // closes are staged there after the marks (stored together at the end). Otherwise each
  // thread reads its segment's two offsets itself (one memory latency too) and stores its
  // results. Segment first_segment + j marks its head with the index word j when it is
  // non-empty and starts in the tile; a wide tile (2^32 - 1 segments or more, all but a tile's
  // worth empty) as wide_index_range says, its marks' bytes 1 + hi until the marks are
  // complete, then hi moves to `words`. The results staged (the segments' indices below it; in
  // a wide tile `wide_tile`, none staged) and first_segment wait in shared memory (registers
  // are short across the scan) until pass 2.
  const std::size_t segments = last_segment - first_segment + 1;
  const bool dense = segments > tile_block;        // the same in every thread
  const bool wide = segments >= wide_index_range;  // the same in every thread
  constexpr unsigned wide_tile = ~0u;
  __shared__ std::size_t index_base;
  __shared__ unsigned staged_results;
  if (threadIdx.x == 0) {
    index_base = first_segment;
    staged_results = wide    ? wide_tile
                     : dense ? (segments < slots ? unsigned(segments) : slots)
                             : 0u;
  }
  const I* const begins = heads.begins + first_segment;
  if (wide) {
    mark_wide_tile_heads(begins, segments, t0, len, staged, head_bytes, head_index);
  } else if (dense) {
    mark_heads_in_chunks<false>(begins, segments, t0, len, staged, head_bytes, head_index);
  } else {
    std::size_t b = 0, e = 0;
    if (threadIdx.x < segments) {
      b = static_cast<std::size_t>(begins[threadIdx.x]);
      e = static_cast<std::size_t>(begins[threadIdx.x + 1]);
    }
    clear_head_marks(head_bytes);
    __syncthreads();
    if (threadIdx.x < segments) mark_head(b, e, t0, len, 1, threadIdx.x, head_bytes, head_index);
  }
  __syncthreads();
  // the thread's 16 marks (bytes 0 or 1) as one 16-byte word, four at a time into bits
  static_assert(tile_items == 16, "scan_tile: a thread's marks are one 16-byte word");
  const uint4 marks = reinterpret_cast<const uint4*>(head_bytes)[threadIdx.x];
  // this thread's word of marks is read: cleared for the staged results' flags (the scan's
  // barriers stand between this and pass 2)
  reinterpret_cast<uint4*>(head_bytes)[threadIdx.x] = make_uint4(0, 0, 0, 0);
  const unsigned bits = (unit_byte_bits(marks.x) | unit_byte_bits(marks.y) << 4 |
                         unit_byte_bits(marks.z) << 8 | unit_byte_bits(marks.w) << 12) &
                        (count == tile_items ? ~0u : (1u << count) - 1u);
  const bool full = count == tile_items;

  // pass 1: this thread's run (threads past the end: a head, read by nobody); a full thread
  // folds without tests of its count, restarting at each head by a select
  tile_run<T> own{T{}, 1};
  if (full) {
    own.value = static_cast<T>(x[0]);
#pragma unroll
    for (unsigned k = 1; k < tile_items; ++k) {
      const T v = static_cast<T>(x[k]);
      const T folded = static_cast<T>(op(own.value, v));
      own.value = (bits >> k) & 1u ? v : folded;
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < tile_items; ++k) {
      if (k < count) {
        const T v = static_cast<T>(x[k]);
        own.value = k == 0 || ((bits >> k) & 1u) ? v : static_cast<T>(op(own.value, v));
      }
    }
  }
  if (count > 0) own.head = bits != 0 ? mine + (32u - __clz(bits)) : 0u;  // 1 + the last head
  const tile_run<T> incl = block_inclusive_scan<tile_block>(own, rop, warp_totals.get());
  inclusive[threadIdx.x] = incl;
  __syncthreads();

  // pass 2: the threads holding heads close the segments that end in this tile
  T* const out_at = out + index_base;            // the results from first_segment on
  const unsigned staged_count = staged_results;  // the same in every thread
  const auto wide_index = [&](unsigned position, unsigned lo) {   // of a wide tile's head
    return std::size_t{words[position]} * wide_index_range + lo;  // (hi: mark_wide_tile_heads)
  };
  const auto segment_at = [&](unsigned position) {
    const unsigned lo = head_index[position];
    return index_base + (staged_count == wide_tile ? wide_index(position, lo) : lo);
  };
  // the result of the segment whose head is at `position`: staged where its index is below
  // staged_count (written out together after pass 2), else stored
  const auto put = [&](unsigned position, const T& value) {
    const unsigned r = head_index[position];
    if (r >= staged_count) {
      out_at[r] = value;
    } else if (staged_count != wide_tile) {
      results.template at<true>(r) = value;
      head_bytes[r] = 1;
    } else {
      out_at[wide_index(position, r)] = value;
    }
  };
  const bool holds_last = count > 0 && mine + count == len;  // the tile's last element
  if (bits != 0) {
    bool have = threadIdx.x > 0;
    tile_run<T> cur = have ? inclusive[threadIdx.x - 1] : tile_run<T>{T{}, 0};
    const auto step = [&](unsigned k) {
      const T v = static_cast<T>(x[k]);
      if ((bits >> k) & 1u) {
        if (have && cur.head != 0) {
          put(cur.head - 1, static_cast<T>(op(init, cur.value)));
        } else {  // the tile's first head: what came before it is the lead
          lead.has_lead = have;
          if (have) lead.value = cur.value;
        }
        cur = {v, mine + k + 1};
      } else if (have) {
        cur.value = static_cast<T>(op(cur.value, v));
      } else {
        cur = {v, 0};
      }
      have = true;
    };
    if (full) {
#pragma unroll
      for (unsigned k = 0; k < tile_items; ++k) step(k);
    } else {
#pragma unroll
      for (unsigned k = 0; k < tile_items; ++k)
        if (k < count) step(k);
    }
    if (holds_last) {
      tail = {cur.value, segment_at(cur.head - 1), true};
      lead.has_head = true;
    }
  } else if (holds_last) {
    const bool head = incl.head != 0;
    tail = {incl.value, head ? segment_at(incl.head - 1) : 0, head};
    lead.has_head = head;
  }
  // the staged results, stored by consecutive threads (pass 2's threads store 16 elements
  // apart: in segments of one element each warp's store touched 32 sectors for 128 bytes)
  if (staged_count == 0 || staged_count == wide_tile) return;
  __syncthreads();
  for (unsigned r = threadIdx.x; r < staged_count; r += tile_block)
    if (head_bytes[r] != 0) out_at[r] = results.template at<true>(r);
}

/// \brief Whether a tile holds no head past its first element, from its tile_first word and
/// the next tile's: the next tile starts in the same segment, or with the head of the segment
/// right after it (a head on the tiles' grid, as in segments of a multiple of tile_size
/// elements; where empty segments lie between the two, the tile scans, which is also right).
__device__ __forceinline__ bool folds_only(tile_first mine, tile_first next) {
  return next.segment() == mine.segment() ||
         (next.starts() && next.segment() == mine.segment() + 1);
}

/// \brief Step 2 for tile u, its elements `x` loaded: it folds (fold_tile) when it holds no
/// head past its first element (folds_only), else scans (scan_tile). `first[u]` is tile u's
/// tile_first word (locate_tiles). Every thread calls it.
template <class I, class In, class T, class Op>
__device__ __forceinline__ void reduce_tile(const offset_heads<I>& heads, const In (&x)[tile_items],
                                            const tile_span& at, std::size_t u,
                                            const std::size_t* __restrict__ first,
                                            T* __restrict__ out, const T& init, const Op& op,
                                            open_segment<T>& tail, tile_lead<T>& lead) {
  const tile_first mine{first[u]}, next{first[u + 1]};
  if (folds_only(mine, next))
    fold_tile(x, at, op, mine, tail, lead);
  else
    scan_tile(heads, x, at, out, init, op, mine.segment(), next.segment(), tail, lead);
}

/// \brief The result of the segment whose fold was `open` when a head came, `lead` (the fold
/// between them, when `lead.has_lead`) closing it: `init op open op lead`.
template <class T, class Op>
__device__ __forceinline__ T closed_at_head(const T& open, const tile_lead<T>& lead, const T& init,
                                            const Op& op) {
  return static_cast<T>(op(init, lead.has_lead ? static_cast<T>(op(open, lead.value)) : open));
}

/// \brief The tiles of the tile kernels resident per SM: 4 (64 registers) for values of up to
/// 4 bytes; wider values would spill at 64 registers, and take 3.
template <class T>
inline constexpr unsigned tiles_per_sm = sizeof(T) <= 4 ? 4 : 3;

/// \brief The tiles per SM of the three steps' tile kernel where most tiles scan: 5 for values
/// of up to 4 bytes (48 registers, 8 bytes of spill), else as tiles_per_sm. H100, 2^28 int32
/// sums: segments of 1024 645 -> 585 us, of 32 748 -> 710 (tiles that only fold were 2-4 %
/// slower at 5: segments of 65536 keep 4).
template <class T>
inline constexpr unsigned scanning_tiles_per_sm = sizeof(T) <= 4 ? 5 : tiles_per_sm<T>;

/// \brief Whether most tiles of n elements in k CSR segments hold a head (the segments are
/// shorter than a tile on average), so that they scan rather than fold.
template <class T>
constexpr bool scans_most_tiles(std::size_t n, std::size_t k) {
  return scanning_tiles_per_sm<T> != tiles_per_sm<T> && k > 0 && n / k < tile_size;
}

/// \brief Whether the offsets failed locate_tiles' check in this call (see
/// offsets_verdict_bad); the kernels after it then write no result.
__device__ __forceinline__ bool offsets_refused(const unsigned* verdict, unsigned epoch) {
  return __ldcg(verdict) == offsets_verdict_bad(epoch);
}

/// \brief The three-step form's tile kernel (large n), one block per tile. The tile's elements
/// are loaded first (their loads in flight beside the plan's), then a tile of one segment folds
/// (fold_tile) and any other scans (scan_tile), leaving its tail and lead for the scan of the
/// tails and close_tiles. `first[u]` is tile u's tile_first word (locate_tiles). When the
/// offsets were refused every tail is a head of `T{}` (the scan then calls no operator) and
/// nothing else is written; block 0 tells the host in `*refused` (1, else 0). `ahead` (0:
/// none): block u asks L2 for tile u + ahead's elements and offsets (prefetch_tile,
/// prefetch_tile_offsets), which a later block reduces.
template <class I, class In, class T, class Op, unsigned MinBlocksPerSM = tiles_per_sm<T>>
__global__ void __launch_bounds__(tile_block, MinBlocksPerSM)
    reduce_tiles(offset_heads<I> heads, const In* __restrict__ in, std::size_t n,
                 T* __restrict__ out, T init, Op op, const std::size_t* __restrict__ first,
                 open_segment<T>* __restrict__ tails, tile_lead<T>* __restrict__ leads,
                 const unsigned* verdict, unsigned epoch, unsigned* __restrict__ refused,
                 unsigned ahead) {
  const std::size_t tile = blockIdx.x;
  const tile_span at(tile, n);
  In x[tile_items];
  if (ahead != 0 && threadIdx.x == 0) prefetch_tile(in, n, tile + ahead);
  load_contiguous_first<tile_items>(in + at.t0 + at.mine, x, at.count);
  const bool bad = offsets_refused(verdict, epoch);
  if (threadIdx.x == 0) {
    if (tile == 0) *refused = bad ? 1u : 0u;
    if (bad) tails[tile] = {T{}, 0, true};
  }
  if (bad) return;
  reduce_tile(heads, x, at, tile, first, out, init, op, tails[tile], leads[tile]);
  // (asked after the tile, whose registers are then free: asked before it, the kernel spilled
  // at 5 tiles per SM)
  if (ahead != 0 && threadIdx.x == warp_threads)
    prefetch_tile_offsets(heads, first, gridDim.x, tile + ahead);
}

/// \brief The three-step form's last step, after the inclusive scan of the tiles' open
/// segments (`open[u]`: the segment open at the end of tile u): one thread per tile writes the
/// segment that was open before a tile with a head (it ends there, with the tile's lead), and
/// the last tile the segment open at the end; one thread per segment writes `init` for an empty
/// one (here rather than in a launch of its own). Nothing when the offsets were refused.
template <class I, class T, class Op>
__global__ void close_tiles(offset_heads<I> heads, const open_segment<T>* __restrict__ open,
                            const tile_lead<T>* __restrict__ leads, std::size_t tiles,
                            T* __restrict__ out, T init, Op op, const unsigned* verdict,
                            unsigned epoch) {
  if (offsets_refused(verdict, epoch)) return;
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t u = first; u < tiles; u += step) {
    const tile_lead<T> lead = leads[u];
    if (u > 0 && lead.has_head)
      out[open[u - 1].id] = closed_at_head(open[u - 1].value, lead, init, op);
    if (u == tiles - 1) out[open[u].id] = static_cast<T>(op(init, open[u].value));
  }
  for (std::size_t s = first; s < heads.k; s += step)
    if (heads.begins[s] == heads.begins[s + 1]) out[s] = init;
}

/// \brief Folds into `own` this thread's elements of a tile of `len` elements from `tile` in the
/// striped order (commutative operators): 16-byte word threadIdx.x + j * tile_block of a whole
/// tile of a 16-byte aligned input, else element threadIdx.x + k * tile_block, so that each load
/// instruction of a warp reads contiguous bytes. `own` holds a value where threadIdx.x < `held`
/// (else it is set from the first element). Returns the threads holding elements of this tile (a
/// prefix of the block).
template <class T, class In, class Op>
__device__ __forceinline__ unsigned fold_striped(const In* tile, unsigned len, const Op& op,
                                                 unsigned held, T& own) {
  bool has = threadIdx.x < held;
  const auto add = [&](const In& x) {
    own = has ? static_cast<T>(op(own, static_cast<T>(x))) : static_cast<T>(x);
    has = true;
  };
  if constexpr (raw_words_v<In> && 16 % sizeof(In) == 0 && tile_items * sizeof(In) % 16 == 0) {
    constexpr unsigned per = 16 / sizeof(In);     // elements per word
    constexpr unsigned words = tile_items / per;  // words per thread
    if (len == tile_size && reinterpret_cast<std::uintptr_t>(tile) % 16 == 0) {
      uint4 w[words];
#pragma unroll
      for (unsigned j = 0; j < words; ++j)
        w[j] = reinterpret_cast<const uint4*>(tile)[threadIdx.x + j * tile_block];
#pragma unroll
      for (unsigned j = 0; j < words; ++j) {
        In x[per];
        memcpy(x, &w[j], sizeof w[j]);
#pragma unroll
        for (unsigned m = 0; m < per; ++m) add(x[m]);
      }
      return tile_block;
    }
  }
  In x[tile_items];
#pragma unroll
  for (unsigned k = 0; k < tile_items; ++k)
    if (threadIdx.x + k * tile_block < len) x[k] = tile[threadIdx.x + k * tile_block];
#pragma unroll
  for (unsigned k = 0; k < tile_items; ++k)
    if (threadIdx.x + k * tile_block < len) add(x[k]);
  return len < tile_block ? len : tile_block;
}

/// \brief Folds the `len` elements from `first` (a tile's first element) into `own` tile by tile
/// as fold_striped does. Returns the threads holding a value (a prefix of the block).
template <class T, class In, class Op>
__device__ __forceinline__ unsigned fold_striped_range(const In* first, std::size_t len,
                                                       const Op& op, unsigned held, T& own) {
  for (std::size_t done = 0; done < len; done += tile_size) {
    const unsigned part = len - done < tile_size ? unsigned(len - done) : unsigned(tile_size);
    const unsigned threads = fold_striped(first + done, part, op, held, own);
    held = threads > held ? threads : held;
  }
  return held;
}

/// \brief How step 2 is launched: the tiles each block walks (its *span*; the look-back runs
/// over spans) and when the look-back polls.
struct offset_span_plan {
  std::size_t tiles;        ///< the tiles of n elements
  unsigned tiles_per_span;  ///< consecutive tiles a block walks (one pass)
  look_back_delays delays;
  bool one_pass;   ///< else the three steps
  unsigned ahead;  ///< (three steps) block u asks L2 for tile u + ahead (prefetch_tile; 0: none)
  bool stretch;    ///< (one pass) consecutive tiles that only fold are folded as one (see
                   ///< reduce_offset_spans; commutative operators)
  bool dependent;  ///< (one pass) launched while locate_tiles runs (launch_kernel): each
                   ///< block asks L2 for its span's first tiles, then waits for locate_tiles
  __host__ __device__ std::size_t spans() const {
    return (tiles + tiles_per_span - 1) / tiles_per_span;
  }
  /// \brief Blocks: one per span, and at least one per `tile_size` segments up to a grid of
  /// `fill_cap` (the blocks past the spans only write `init` to empty segments).
  std::size_t blocks(std::size_t k, std::size_t fill_cap) const {
    std::size_t fill = (k + tile_size - 1) / tile_size;
    fill = fill < fill_cap ? fill : fill_cap;
    const std::size_t s = spans();
    return s > fill ? s : (fill > 0 ? fill : 1);
  }
};

/// \brief Step 2, one block per span of `plan.tiles_per_span` tiles in ticket order (every span
/// a block waits for belongs to a block already running). For each tile of its span in turn the
/// block loads its elements, then folds it (fold_tile, a tile of one segment) or scans it
/// (scan_tile); thread 0 carries the open segment from tile to tile and writes each segment
/// that ends at a tile's first head, but the first in the span: the segment open before the
/// span ends there, and is written once the span's look-back (its aggregate: its open segment
/// at its end) has given it. The last span writes the segment open at the end. Then the blocks
/// write `init` to the empty segments (grid-stride). `first[u]` is tile u's tile_first word
/// (locate_tiles); nothing is written when `*verdict` is offsets_verdict_bad(st.epoch), and the
/// block of ticket 0 tells the host so in `*refused` (1, else 0).
template <class I, class In, class T, class Op, unsigned MinBlocksPerSM = tiles_per_sm<T>,
          bool Stretch = false>
__global__ void __launch_bounds__(tile_block, MinBlocksPerSM)
    reduce_offset_spans(offset_heads<I> heads, const In* __restrict__ in, std::size_t n,
                        T* __restrict__ out, T init, Op op, const std::size_t* __restrict__ first,
                        offset_span_plan plan, look_back_state<open_segment<T>> st,
                        const unsigned* verdict, unsigned* __restrict__ refused) {
  static_assert(!Stretch || is_commutative_v<Op>, "stretches reorder the operands");
  using V = open_segment<T>;
  const open_segment_op<Op> sop{op};
  __shared__ unsigned ticket_slot;
  __shared__ shared_array<V, 1> tail;
  __shared__ shared_array<tile_lead<T>, 1> lead;
  __shared__ shared_array<maybe<V>, 1> carry_slot;
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(st.ticket, 1u);
    if (id == gridDim.x - 1) *st.ticket = 0;  // every block has its ticket: ready for the next call
    ticket_slot = id;
  }
  __syncthreads();
  const std::size_t span = ticket_slot;
  if (plan.dependent && threadIdx.x == 0)  // what locate_tiles does not write, before its end
    for (std::size_t u = span * plan.tiles_per_span, j = 0; j < 2 && u < plan.tiles; ++u, ++j)
      prefetch_tile(in, n, u);
  wait_for_prior_grid();  // first, verdict
  const bool bad = offsets_refused(verdict, st.epoch);
  if (span == 0 && threadIdx.x == 0) *refused = bad ? 1u : 0u;
  if (bad) return;
  const std::size_t spans = plan.spans();
  if (span < spans) {
    const std::size_t u0 = span * plan.tiles_per_span;
    const std::size_t u1 =
        u0 + plan.tiles_per_span < plan.tiles ? u0 + plan.tiles_per_span : plan.tiles;
    // thread 0's, in shared memory (registers are short across the loop): the open segment so
    // far in the span, and the span's lead (what precedes its first head; has_head: it has one)
    __shared__ shared_array<maybe<V>, 1> open_slot;
    __shared__ shared_array<tile_lead<T>, 1> span_lead;
    if (threadIdx.x == 0) {
      open_slot[0].has = false;
      span_lead[0].has_head = false;
    }
    // thread 0, after a tile's tail and lead are in shared memory: carries the open segment
    const auto absorb = [&] {
      if (threadIdx.x != 0) return;
      const tile_lead<T> l = lead[0];
      maybe<V> open = open_slot[0];
      if (!l.has_head) {
        open = combine(open, maybe<V>{tail[0], true}, sop);
      } else if (open.has && open.value.head) {  // a segment that started in the span ends
        out[open.value.id] = closed_at_head(open.value.value, l, init, op);
        open = {tail[0], true};
      } else {  // the span's first head: what precedes it waits for the look-back
        tile_lead<T> first_head = l;
        if (open.has) {
          first_head.value =
              l.has_lead ? static_cast<T>(op(open.value.value, l.value)) : open.value.value;
          first_head.has_lead = true;
        }
        span_lead[0] = first_head;
        open = {tail[0], true};
      }
      open_slot[0] = open;
    };
    // With Stretch, consecutive tiles that only fold (one segment) are folded by each thread
    // into its own value, with no block step between them, and reduced once where the stretch
    // ends, as one tile that folds (fold_tile): a thread's elements of several tiles are not
    // consecutive, hence a commutative operator. Those tiles are read in the striped order
    // (fold_striped): H200, 2^28 int32, power-law lengths 312 -> 293 us against each thread
    // reading its own run, one segment 259 -> 263, segments of 65536 alike (266). A stretch's
    // tiles are those before the next head, found from the offsets once where it starts, so no
    // tile of it reads the table (2^28 segments of 65536 263-265 -> 260-261 us; reading two
    // tiles at once, whose 8 words a thread spilled, 282).
    T own{};
    unsigned stretch_threads = 0;    // threads holding a value in `own` (a prefix of the block)
    std::size_t stretch_first = u1;  // the stretch's first tile (u1: no stretch open)
    const auto close_stretch = [&] {
      __shared__ warp_slots<T, tile_block> slots;
      const T v = block_reduce_ordered<tile_block>(own, stretch_threads, op, slots.get());
      if (threadIdx.x == 0) {
        const tile_first f{first[stretch_first]};
        tail[0] = {v, f.starts() ? f.segment() : 0, f.starts()};
        lead[0].has_lead = false;
        lead[0].has_head = f.starts();
      }
      __syncthreads();
      absorb();
      stretch_threads = 0;
      stretch_first = u1;
    };
    for (std::size_t u = u0; u < u1; ++u) {
      const tile_span at(u, n);
      if constexpr (Stretch) {
        const std::size_t s = tile_first{first[u]}.segment();
        if (s == tile_first{first[u + 1]}.segment()) {
          // tiles u .. stop - 1 lie before the next head (to the span's end in the last
          // segment). Where that head is a tile's first element, the tile before it is left to
          // the loop below (it folds: folds_only): stretches that took it, each closed where
          // the next starts, spilled 40-48 bytes at the 64 registers (with the spans' look-back
          // as the fixed tree too, 7 % slower in segments of 65536: H200, 2^28)
          std::size_t stop = u1;
          if (s + 1 < heads.k) {
            const auto head = static_cast<std::size_t>(heads.begins[s + 1]);
            const std::size_t before = (head + tile_size - 1) / tile_size - 1;
            stop = before < stop ? (before > u ? before : u + 1) : stop;
          }
          const std::size_t end = stop * tile_size < n ? stop * tile_size : n;
          stretch_threads = fold_striped_range(in + at.t0, end - at.t0, op, stretch_threads, own);
          if (stretch_first == u1) stretch_first = u;
          u = stop - 1;
          continue;
        }
        if (stretch_first != u1) close_stretch();
      }
      In x[tile_items];
      load_contiguous_first<tile_items>(in + at.t0 + at.mine, x, at.count);
      reduce_tile(heads, x, at, u, first, out, init, op, tail[0], lead[0]);
      __syncthreads();  // tail and lead written; the tile's shared memory free again
      absorb();
    }
    if constexpr (Stretch)
      if (stretch_first != u1) close_stretch();
    __syncthreads();
    const V total = open_slot[0].value;
    if (threadIdx.x < warp_threads)
      resolve_carry<exact_grouping_v<Op, T> ? 0 : 1>(
          tile_carry_problem<V, open_segment_op<Op>>{sop}, span, spans, total, st, true,
          plan.delays, carry_slot[0]);
    if (threadIdx.x == 0) {
      const maybe<V> carry = carry_slot[0];  // written by this thread
      const tile_lead<T> l = span_lead[0];
      if (span > 0 && l.has_head)  // span > 0: element 0's head is before it
        out[carry.value.id] = closed_at_head(carry.value.value, l, init, op);
      if (span + 1 == spans) {
        const V end = combine(carry, maybe<V>{total, true}, sop).value;
        out[end.id] = static_cast<T>(op(init, end.value));
      }
    }
  }
  for (std::size_t s = span * tile_block + threadIdx.x; s < heads.k;
       s += std::size_t{gridDim.x} * tile_block)
    if (heads.begins[s] == heads.begins[s + 1]) out[s] = init;
}

/// \brief The offsets check in one pass: `report[0]` becomes the smallest i in [1, k] with
/// `begins[i] < begins[i - 1]` (it starts all ones: none), and `report[1]`, `report[2]` hold
/// `begins[0]` and `begins[k]` (as `I`, in the first bytes), for one copy to the host. With
/// `cap` > 0, `report[3]` (it starts nonzero) becomes 0 where a segment is longer than `cap`
/// (one store a block at most).
template <class I>
__global__ void check_offsets(const I* begins, std::size_t k, unsigned long long* report,
                              std::size_t cap) {
  static_assert(sizeof(I) <= sizeof(unsigned long long), "offsets of at most 8 bytes");
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (first == 0) {
    *reinterpret_cast<I*>(report + 1) = begins[0];
    *reinterpret_cast<I*>(report + 2) = begins[k];
  }
  bool longer = false;
  for (std::size_t i = first + 1; i <= k; i += std::size_t{gridDim.x} * blockDim.x) {
    const I b = begins[i - 1], e = begins[i];
    if (e < b)
      atomicMin(report, static_cast<unsigned long long>(i));
    else if (cap > 0 && static_cast<std::size_t>(e - b) > cap)
      longer = true;
  }
  if (__syncthreads_or(longer) && threadIdx.x == 0) report[3] = 0;
}

/// \brief `out[s] = init` for every empty CSR segment.
template <class I, class T>
__global__ void fill_empty_segments(const I* begins, std::size_t k, T* out, T init) {
  for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s < k;
       s += std::size_t{gridDim.x} * blockDim.x)
    if (begins[s] == begins[s + 1]) out[s] = init;
}

/// \brief One-byte head flags of runs of equal keys (for the scans by key): `tile_items`
/// consecutive elements per thread and step.
template <class K>
__global__ void key_run_flags(const K* keys, std::size_t n, std::uint8_t* flags) {
  const key_heads<K> heads{keys, nullptr};
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x * tile_items;
  for (std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * tile_items; i < n;
       i += step) {
    const unsigned count = n - i < tile_items ? static_cast<unsigned>(n - i) : tile_items;
    const unsigned b = heads.bits(i, count);
    std::uint8_t f[tile_items];
#pragma unroll
    for (unsigned k = 0; k < tile_items; ++k) f[k] = (b >> k) & 1u;
    store_contiguous_first<tile_items>(flags + i, f, count);
  }
}

}  // namespace parprim::detail::cuda::segments
