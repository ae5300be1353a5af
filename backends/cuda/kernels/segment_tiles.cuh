#pragma once
/// \file
/// \brief The kernels of the per-segment reductions (segmented_reduce with head flags or CSR
/// offsets, reduce_by_key). The input is cut into tiles of `tile_size` elements whatever the
/// segments are, so the work per element does not depend on segment lengths (one segment of n,
/// n segments of one, or a mix):
///
/// 1. head plan (flags, keys): `count_tile_heads` counts the heads of each tile,
///    `scan_tile_counts` (one block) turns the counts into each tile's first segment number and
///    the total (a head's segment number is its tile's base plus the heads before it);
/// 2. `reduce_tiles`: each thread folds `items` consecutive elements; a block scan of the
///    threads' (value, head, segment) triples with the flag operator gives every thread the
///    segment open at its start. A segment that starts and ends in the tile is written there;
///    the tile leaves its *lead* (the fold before its first head) and *tail* (the fold from its
///    last head, and that segment's number) in a `tile_state`;
/// 3. `finish_tiles` (one block) scans the tile states in order: a segment that spans tiles is
///    its tail, the leads of the tiles without heads after it, and the lead of the tile where
///    the next head is.
///
/// Operands meet `op` in sequence order everywhere (non-commutative operators are fine);
/// `init`, when given, is the left-most operand of every segment.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/block/contiguous_io.cuh>
#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/backends/cuda/warp/warp_scan.cuh>

namespace parprim::detail::cuda::segments {

/// Threads per tile and elements per thread: 4096-element tiles for every type.
inline constexpr unsigned tile_block = 256;
inline constexpr unsigned tile_items = 16;
inline constexpr std::size_t tile_size = std::size_t{tile_block} * tile_items;
/// Threads of the one-block kernels over tiles (fewer for large values: their scan keeps one
/// open segment per thread in shared memory).
inline constexpr unsigned tiles_block = 1024;
template <class T>
inline constexpr unsigned finish_block = sizeof(T) <= 8    ? 1024
                                         : sizeof(T) <= 32 ? 512
                                                           : 128;

/// \brief The number of tiles of n elements.
constexpr std::size_t tile_count(std::size_t n) {
  return (n + tile_size - 1) / tile_size;
}

/// \brief What a tile leaves for `finish_tiles`.
template <class T>
struct tile_state {
  T lead;               ///< fold of the elements before the first head (all of them if none)
  T tail;               ///< fold from the last head to the end (`has_head`)
  std::size_t tail_id;  ///< segment number of the last head
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

/// \brief The flag operator on open segments (the number travels with the head).
template <class Op>
struct open_segment_op {
  Op op;
  template <class T>
  __device__ open_segment<T> operator()(const open_segment<T>& a, const open_segment<T>& b) const {
    return b.head ? b : open_segment<T>{static_cast<T>(op(a.value, b.value)), a.id, a.head};
  }
};

/// \brief `init op v`, or `v` without init (reduce_by_key).
template <class T, class Op>
__device__ __forceinline__ T with_init(bool has_init, const T& init, const T& v, const Op& op) {
  return has_init ? static_cast<T>(op(init, v)) : v;
}

/// \brief Heads at element 0 and at every non-zero flag; segments numbered by counting.
struct flag_heads {
  const std::uint8_t* flags;
  static constexpr bool counted = true;
  /// \brief Bit k set where element i + k (k < count) starts a segment.
  __device__ unsigned bits(std::size_t i, unsigned count) const {
    std::uint8_t f[tile_items];
    if (count == tile_items) {
      load_contiguous<tile_items>(flags + i, f);
    } else {
      for (unsigned k = 0; k < tile_items; ++k) f[k] = k < count ? flags[i + k] : 0;
    }
    return nonzero_byte_bits(f) | (i == 0 ? 1u : 0u);
  }
  __device__ void on_head(std::size_t, std::size_t) const {}
};

/// \brief Heads where a key differs (`==`) from the one before; each run's first key is
/// written to `keys_out[segment]` when `keys_out` is not null.
template <class K>
struct key_heads {
  const K* keys;
  K* keys_out;
  static constexpr bool counted = true;
  __device__ unsigned bits(std::size_t i, unsigned count) const {
    K key[tile_items];
    if (count == tile_items) {
      load_contiguous<tile_items>(keys + i, key);
    } else {
      for (unsigned k = 0; k < count; ++k) key[k] = keys[i + k];
    }
    unsigned b = i == 0 || !(key[0] == keys[i - 1]) ? 1u : 0u;
#pragma unroll
    for (unsigned k = 1; k < tile_items; ++k)
      if (k < count && !(key[k] == key[k - 1])) b |= 1u << k;
    return b;
  }
  __device__ void on_head(std::size_t i, std::size_t id) const {
    if (keys_out != nullptr) keys_out[id] = keys[i];
  }
};

/// \brief Heads at the first element of every non-empty CSR segment; numbered by the offsets.
template <class I>
struct offset_heads {
  const I* begins;  ///< k + 1 offsets, checked
  std::size_t k;
  static constexpr bool counted = false;
  /// \brief The segment that holds element i: the last s with begins[s] <= i.
  __device__ std::size_t segment_of(std::size_t i) const {
    std::size_t lo = 0, hi = k;  // begins[lo] <= i < begins[hi]
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::size_t>(begins[mid]) <= i)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }
  __device__ void on_head(std::size_t, std::size_t) const {}
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

/// \brief Plan, step 1: the number of heads of each tile.
template <class Heads>
__global__ void __launch_bounds__(tile_block)
    count_tile_heads(Heads heads, std::size_t n, std::size_t* counts) {
  __shared__ unsigned warp_counts[tile_block / warp_threads];
  const std::size_t i = blockIdx.x * tile_size + threadIdx.x * std::size_t{tile_items};
  const unsigned count = i < n ? (n - i < tile_items ? unsigned(n - i) : tile_items) : 0;
  unsigned c = count > 0 ? __popc(heads.bits(i, count)) : 0;
  c = __reduce_add_sync(full_warp_mask, c);
  if (threadIdx.x % warp_threads == 0) warp_counts[threadIdx.x / warp_threads] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned total = 0;
#pragma unroll
    for (unsigned w = 0; w < tile_block / warp_threads; ++w) total += warp_counts[w];
    counts[blockIdx.x] = total;
  }
}

/// \brief Offsets: `first[u]` = the segment that holds tile u's first element, for every tile,
/// and `first[tiles]` = k - 1 (the bound of the last tile's search).
template <class I>
__global__ void tile_first_segments(offset_heads<I> heads, std::size_t tiles, std::size_t* first) {
  for (std::size_t u = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; u <= tiles;
       u += std::size_t{gridDim.x} * blockDim.x)
    first[u] = u < tiles ? heads.segment_of(u * tile_size) : heads.k - 1;
}

/// \brief `a + b` on counts.
template <class V>
struct count_plus {
  __device__ V operator()(V a, V b) const { return a + b; }
};

/// \brief Plan, step 2 (one block): `counts` of `tiles` tiles become exclusive prefix sums
/// (each tile's first segment number) and `*total` the number of segments.
template <class Count>
__global__ void __launch_bounds__(tiles_block)
    scan_tile_counts(Count* counts, std::size_t tiles, Count* total) {
  __shared__ Count warp_totals[tiles_block / warp_threads];
  const std::size_t per = (tiles + tiles_block - 1) / tiles_block;
  const std::size_t b = threadIdx.x * per;
  const std::size_t e = b + per < tiles ? b + per : tiles;
  Count sum = 0;
#pragma unroll 8
  for (std::size_t u = b; u < e; ++u) sum += counts[u];
  const Count incl = block_inclusive_scan<tiles_block>(sum, count_plus<Count>{}, warp_totals);
  Count running = incl - sum;
  for (std::size_t u = b; u < e; ++u) {
    const Count c = counts[u];
    counts[u] = running;
    running += c;
  }
  if (threadIdx.x == tiles_block - 1) *total = incl;
}

/// \brief Step 2 of every per-segment reduction: one block per tile (see the file comment).
/// Counted heads: `base[u]` is tile u's first segment number, and each thread reads its own
/// elements' heads as bits. Offsets: `first[u]` is the segment that holds tile u's first
/// element (tile_first_segments), and the block marks its heads with their segment in shared
/// memory.
template <class Heads, class In, class T, class Op>
__global__ void __launch_bounds__(tile_block)
    reduce_tiles(Heads heads, const In* __restrict__ in, std::size_t n, T* __restrict__ out,
                 bool has_init, T init, Op op, const std::size_t* __restrict__ base,
                 tile_state<T>* __restrict__ tiles) {
  static_assert(Heads::counted || sizeof(T) <= 32,
                "parprim::segmented_reduce with offsets on parprim::cuda: accumulator types of "
                "up to 32 bytes");
  // offsets: 1 + (segment - the tile's first segment) at a head, 0 elsewhere
  __shared__ std::size_t slots[Heads::counted ? 1 : tile_size];
  __shared__ shared_array<open_segment<T>, tile_block / warp_threads> warp_totals;
  __shared__ shared_array<open_segment<T>, tile_block> inclusive;
  const open_segment_op<Op> sop{op};
  const std::size_t tile = blockIdx.x;
  const std::size_t t0 = tile * tile_size;
  const unsigned len = n - t0 < tile_size ? static_cast<unsigned>(n - t0) : unsigned(tile_size);
  const unsigned mine = threadIdx.x * tile_items;
  const unsigned count = mine < len ? (len - mine < tile_items ? len - mine : tile_items) : 0;

  In x[tile_items];
  if (count == tile_items) {
    load_contiguous<tile_items>(in + t0 + mine, x);
  } else {
    for (unsigned k = 0; k < count; ++k) x[k] = in[t0 + mine + k];
  }
  unsigned bits = 0;  // bit k: element mine + k is a head
  std::size_t first_segment = 0;
  if constexpr (Heads::counted) {
    if (count > 0) bits = heads.bits(t0 + mine, count);
  } else {
    first_segment = base[tile];
    const std::size_t last_segment = base[tile + 1];
    for (unsigned k = threadIdx.x; k < len; k += tile_block) slots[k] = 0;
    __syncthreads();
    for (std::size_t s = first_segment + threadIdx.x; s <= last_segment; s += tile_block) {
      const auto j = static_cast<std::size_t>(heads.begins[s]);
      if (j >= t0 && j<t0 + len&& static_cast<std::size_t>(heads.begins[s + 1])> j)
        slots[j - t0] = s - first_segment + 1;
    }
    __syncthreads();
    for (unsigned k = 0; k < count; ++k)
      if (slots[mine + k] != 0) bits |= 1u << k;
  }
  const auto segment_at = [&](unsigned k, std::size_t& next_id) {
    if constexpr (Heads::counted)
      return next_id++;
    else
      return first_segment + slots[mine + k] - 1;
  };

  // pass 1: this thread's open segment at its end, and its number of heads
  open_segment<T> own{T{}, 0, true};  // threads past the end: a head, read by nobody
#pragma unroll
  for (unsigned k = 0; k < tile_items; ++k) {
    if (k < count) {
      const T v = static_cast<T>(x[k]);
      if ((bits >> k) & 1u)
        own = {v, 0, true};
      else if (k == 0)
        own = {v, 0, false};
      else
        own.value = static_cast<T>(op(own.value, v));
    }
  }
  const unsigned own_heads = __popc(bits);
  std::size_t next_id = 0;  // counted: the number of this thread's first head
  if constexpr (Heads::counted) {
    __shared__ unsigned warp_counts[tile_block / warp_threads];
    const unsigned incl_heads =
        block_inclusive_scan<tile_block>(own_heads, count_plus<unsigned>{}, warp_counts);
    next_id = base[tile] + (incl_heads - own_heads);
    if (own_heads > 0) own.id = next_id + own_heads - 1;
  } else {
    if (own_heads > 0) own.id = first_segment + slots[mine + 31 - __clz(bits)] - 1;
  }
  const open_segment<T> incl = block_inclusive_scan<tile_block>(own, sop, warp_totals.get());
  inclusive[threadIdx.x] = incl;
  __syncthreads();

  // pass 2: close the segments that end in this tile
  if (count == 0) return;
  bool have = threadIdx.x > 0;
  open_segment<T> cur = have ? inclusive[threadIdx.x - 1] : open_segment<T>{T{}, 0, false};
  tile_state<T>& state = tiles[tile];
#pragma unroll
  for (unsigned k = 0; k < tile_items; ++k) {
    if (k < count) {
      const T v = static_cast<T>(x[k]);
      if ((bits >> k) & 1u) {
        const std::size_t id = segment_at(k, next_id);
        heads.on_head(t0 + mine + k, id);
        if (have && cur.head) {
          out[cur.id] = with_init(has_init, init, cur.value, op);
        } else {  // the tile's first head: what came before it is the lead
          state.has_lead = have;
          if (have) state.lead = cur.value;
        }
        cur = {v, id, true};
      } else if (have) {
        cur.value = static_cast<T>(op(cur.value, v));
      } else {
        cur = {v, 0, false};
      }
      have = true;
    }
  }
  if (mine + count == len) {  // the tile's last element
    state.has_head = cur.head;
    if (cur.head) {
      state.tail = cur.value;
      state.tail_id = cur.id;
    } else {
      state.lead = cur.value;
      state.has_lead = true;
    }
  }
}

/// \brief Step 3 (one block): the segments that span tiles, in tile order (file comment).
template <class T, class Op, unsigned Block = finish_block<T>>
__global__ void __launch_bounds__(Block)
    finish_tiles(const tile_state<T>* __restrict__ tiles, std::size_t count, T* __restrict__ out,
                 bool has_init, T init, Op op) {
  __shared__ shared_array<open_segment<T>, Block / warp_threads> warp_totals;
  __shared__ shared_array<open_segment<T>, Block> inclusive;
  const open_segment_op<Op> sop{op};
  const std::size_t per = (count + Block - 1) / Block;
  const std::size_t b = threadIdx.x * per;
  const std::size_t e = b + per < count ? b + per : count;
  const auto element = [&](const tile_state<T>& s) {
    return s.has_head ? open_segment<T>{s.tail, s.tail_id, true}
                      : open_segment<T>{s.lead, 0, false};
  };
  open_segment<T> own{T{}, 0, true};
#pragma unroll 8
  for (std::size_t u = b; u < e; ++u) {
    const tile_state<T> s = tiles[u];
    own = u == b ? element(s) : sop(own, element(s));
  }
  inclusive[threadIdx.x] = block_inclusive_scan<Block>(own, sop, warp_totals.get());
  __syncthreads();
  if (b >= e) return;
  bool have = threadIdx.x > 0;
  open_segment<T> cur = have ? inclusive[threadIdx.x - 1] : open_segment<T>{T{}, 0, false};
#pragma unroll 8
  for (std::size_t u = b; u < e; ++u) {
    const tile_state<T> s = tiles[u];
    if (s.has_head) {
      if (have)  // the segment open before tile u ends at its first head
        out[cur.id] = with_init(has_init, init,
                                s.has_lead ? static_cast<T>(op(cur.value, s.lead)) : cur.value, op);
      cur = {s.tail, s.tail_id, true};
    } else {
      cur = have ? open_segment<T>{static_cast<T>(op(cur.value, s.lead)), cur.id, cur.head}
                 : open_segment<T>{s.lead, 0, false};
    }
    have = true;
  }
  if (e == count) out[cur.id] = with_init(has_init, init, cur.value, op);  // the last segment
}

/// \brief Offsets check: `*first_bad` becomes the smallest s at which the offsets fail (the
/// first is not 0, the last is not n, or begins[s] > begins[s + 1]); it starts at k + 1.
template <class I>
__global__ void check_offsets(const I* begins, std::size_t k, std::size_t n,
                              unsigned long long* first_bad) {
  for (std::size_t s = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; s <= k;
       s += std::size_t{gridDim.x} * blockDim.x) {
    const I b = begins[s];
    bool negative = false;
    if constexpr (std::is_signed_v<I>) negative = b < I{0};
    bool bad = (s == 0 && b != I{0}) || (s == k && (negative || static_cast<std::size_t>(b) != n));
    if (s < k && begins[s + 1] < b) bad = true;
    if (bad) atomicMin(first_bad, static_cast<unsigned long long>(s));
  }
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
    if (count == tile_items) {
      store_contiguous<tile_items>(flags + i, f);
    } else {
      for (unsigned k = 0; k < count; ++k) flags[i + k] = f[k];
    }
  }
}

}  // namespace parprim::detail::cuda::segments
