#pragma once
/// \file
/// \brief Rung 5's tile for plain scans of 4- and 8-byte arithmetic values: the tile lives in
/// shared memory, brought in and written out by bulk copies (Hopper's TMA), and each thread
/// scans `items` consecutive elements there.
///
/// Why. A block of rung 5 idles through its look-back; the other blocks of its SM must keep
/// the memory busy. The register tile (tile_registers) holds its elements in registers, which
/// caps an SM at 4 tiles of 256 x 28 in flight. Here a thread holds one value through the
/// look-back (the fold of the elements before its own), the tile's 28 KiB sit in shared memory,
/// and 7 tiles fit an SM: more bytes in flight for the same chain. A bulk load is one
/// instruction of one thread for the whole tile. Measured on the H200 (dev/copy_roof.cu,
/// dev/tma_scan_prototype.cu, 2^28 int32): a plain copy with the register tile's shape moves
/// the bytes in 535 us and a bulk-copied tile in 529 us (so the copy itself is not what the
/// bulk load improves), while the scan went from 700 us (register tile) to 606 us.
///
/// Steps, one tile per block (`BlockSize` threads, `items` = 112 bytes of values per thread):
/// 1. thread 0 starts one bulk load of the tile's 16-byte-aligned whole (when the input is
///    16-byte aligned; otherwise every element, and always the last few bytes of a partial
///    tile, come by plain loads), and the block waits on a shared-memory barrier;
/// 2. each thread folds its elements (16-byte shared loads: thread t reads bytes 112 t ...,
///    and 112 = 7 x 16 is an odd number of 16-byte units, so the 8 threads of each quarter warp
///    hit distinct banks), the warp scans the thread folds with shuffles, and warp 0 scans the
///    warp totals: each thread keeps the fold of the tile's elements before its own;
/// 3. (`emit`, after the look-back) each thread scans its elements again with
///    carry op (elements before its own) in front, in place, and thread 0 bulk-stores the
///    tile (plain stores for an output that is not 16-byte aligned, and for the tail).
/// The operator is applied in sequence order (thread fold left to right, lower lanes and
/// warps before higher ones): any associative operator, and for a given tile shape the same
/// grouping on every run (floating-point results are run-to-run identical).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/shared_array.cuh>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/warp/warp_scan.cuh>

namespace parprim::detail::cuda {

/// \brief Whether plain problem `P` (input type `In`) can use tile_shared_bulk: the input is
/// read as values unconverted, and values are 4- or 8-byte arithmetic types.
template <class P, class In>
inline constexpr bool shared_bulk_tile_fits_v =
    !P::segmented && std::is_same_v<In, typename P::value_type> &&
    std::is_arithmetic_v<typename P::value_type> &&
    (sizeof(typename P::value_type) == 4 || sizeof(typename P::value_type) == 8);

template <unsigned BlockSize, class Problem>
struct tile_shared_bulk {
  using V = typename Problem::value_type;
  using Op = typename Problem::op_type;
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned chunk_bytes = 16;
  /// 16-byte chunks per thread: odd, so that a quarter warp's chunk reads are conflict-free.
  static constexpr unsigned chunks = 7;
  static constexpr unsigned vec = chunk_bytes / sizeof(V);
  static constexpr unsigned items = chunks * vec;
  static constexpr unsigned tile_size = BlockSize * items;
  static constexpr unsigned tile_bytes = tile_size * sizeof(V);
  static constexpr unsigned warps = BlockSize / warp_threads;
  /// 7 tiles of 256 threads (28 KiB each plus the block's reserve) fit the 228 KiB of an H200
  /// SM; the registers are capped to match (30 are used).
  static constexpr unsigned min_blocks_per_sm = BlockSize == 256 ? 7u : 0u;
  static_assert(!Problem::segmented, "tile_shared_bulk: plain scans only");
  static_assert(sizeof(V) == 4 || sizeof(V) == 8, "tile_shared_bulk: 4- or 8-byte values");
  static_assert(BlockSize % warp_threads == 0 && warps <= warp_threads,
                "tile_shared_bulk: block size a multiple of 32, at most 1024");

  struct storage {
    alignas(128) unsigned char data[tile_bytes];
    std::uint64_t barrier;
    shared_array<V, warps> warp_scan;  // inclusive scan of the warp totals
  };

  V* data_ = nullptr;  // the tile in shared memory
  unsigned len_ = 0;
  maybe<V> before_{};  // the fold of the tile's elements before this thread's

  /// \brief Loads elements [first, first + len) and folds them; returns their fold (every
  /// thread). 1 <= len <= tile_size.
  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned len, storage& s) {
    data_ = reinterpret_cast<V*>(s.data);
    len_ = len;
    const V* src = p.in + first;
    const unsigned bulk = bulk_items(src, len);
    if (bulk > 0 && threadIdx.x == 0) {
      bulk_barrier_init(&s.barrier);
      bulk_load(s.data, src, bulk * sizeof(V), &s.barrier);
    }
#pragma unroll 4
    for (unsigned k = bulk + threadIdx.x; k < len; k += BlockSize) data_[k] = src[k];
    __syncthreads();
    if (bulk > 0) bulk_barrier_wait(&s.barrier);

    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    const unsigned mine = threadIdx.x * items;
    const unsigned count = mine < len ? (len - mine < items ? len - mine : items) : 0;
    V fold = data_[mine < len ? mine : 0];  // threads past the end: any value (no one reads it)
    if (count == items) {
#pragma unroll
      for (unsigned c = 0; c < chunks; ++c) {
        V x[vec];
        read_chunk(mine + c * vec, x);
#pragma unroll
        for (unsigned j = 0; j < vec; ++j)
          if (c > 0 || j > 0) fold = static_cast<V>(op(fold, x[j]));
      }
    } else {
      for (unsigned k = 1; k < count; ++k) fold = static_cast<V>(op(fold, data_[mine + k]));
    }
    const V incl = warp_inclusive_scan(fold, lane, op);
    const V lanes_before = shuffle_up(incl, 1);

    const unsigned last = (len - 1) / items;  // the last thread holding elements
    const unsigned last_warp = last / warp_threads;
    if (warp <= last_warp && lane == (warp == last_warp ? last % warp_threads : warp_threads - 1))
      s.warp_scan[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const V w = s.warp_scan[lane <= last_warp ? lane : 0];
      const V ws = warp_inclusive_scan(w, lane, op);
      __syncwarp();  // every lane has read its slot (lanes past the end read slot 0) first
      if (lane <= last_warp) s.warp_scan[lane] = ws;
    }
    __syncthreads();
    before_ = maybe<V>{lanes_before, lane > 0};
    if (warp > 0) before_ = combine(maybe<V>{s.warp_scan[warp - 1], true}, before_, op);
    return s.warp_scan[last_warp];
  }

  /// \brief Stores the tile: element k gets the fold of `carry` and the elements up to k
  /// (inclusive) or before k (exclusive: then `carry` always holds the scan's init at least).
  __device__ void emit(const Problem& p, const Op& op, std::size_t first,
                       const maybe<V>& carry) const {
    const maybe<V> pre = combine(carry, before_, op);
    const unsigned mine = threadIdx.x * items;
    const unsigned count = mine < len_ ? (len_ - mine < items ? len_ - mine : items) : 0;
    if (count == items && pre.has) {
      if (p.exclusive)
        rescan_chunks<true>(op, mine, pre.value);
      else
        rescan_chunks<false>(op, mine, pre.value);
    } else {
      maybe<V> run = pre;
      for (unsigned k = 0; k < count; ++k) {
        const V x = data_[mine + k];
        const maybe<V> next = combine(run, maybe<V>{x, true}, op);
        if (p.exclusive && run.has) data_[mine + k] = run.value;
        if (!p.exclusive) data_[mine + k] = next.value;
        run = next;
      }
    }
    V* dst = p.out + first;
    const unsigned bulk = bulk_items(dst, len_);
    if (bulk > 0) fence_shared_for_bulk();
    __syncthreads();
    if (bulk > 0 && threadIdx.x == 0) {
      bulk_store(dst, data_, bulk * sizeof(V));
      bulk_store_wait_read();
    }
#pragma unroll 4
    for (unsigned k = bulk + threadIdx.x; k < len_; k += BlockSize) dst[k] = data_[k];
  }

 private:
  /// \brief The elements of [ptr, ptr + len) that move by one bulk copy: the 16-byte whole of
  /// the range when it starts 16-byte aligned and the GPU has bulk copies, else none.
  __device__ static unsigned bulk_items(const V* ptr, unsigned len) {
    if constexpr (!bulk_copy_available) {
      return 0;
    } else {
      if (reinterpret_cast<std::uintptr_t>(ptr) % chunk_bytes != 0) return 0;
      return len / vec * vec;
    }
  }

  __device__ void read_chunk(unsigned at, V (&x)[vec]) const {
    const uint4 c = *reinterpret_cast<const uint4*>(data_ + at);
    memcpy(x, &c, sizeof c);
  }
  __device__ void write_chunk(unsigned at, const V (&x)[vec]) const {
    uint4 c;
    memcpy(&c, x, sizeof c);
    *reinterpret_cast<uint4*>(data_ + at) = c;
  }

  template <bool Exclusive>
  __device__ void rescan_chunks(const Op& op, unsigned mine, V run) const {
#pragma unroll
    for (unsigned c = 0; c < chunks; ++c) {
      V x[vec];
      read_chunk(mine + c * vec, x);
#pragma unroll
      for (unsigned j = 0; j < vec; ++j) {
        const V next = static_cast<V>(op(run, x[j]));
        x[j] = Exclusive ? run : next;
        run = next;
      }
      write_chunk(mine + c * vec, x);
    }
  }
};

}  // namespace parprim::detail::cuda
