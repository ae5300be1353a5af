#pragma once
/// \file
/// \brief Scan rung 6's tile, for plain and segmented scans of 4-, 8- and 16-byte values
/// (built-in types and trivially copyable user structs), and plain scans of narrower inputs into
/// them (int8 into int32): the tile lives in shared memory, brought in and written out by bulk
/// copies (Hopper's TMA), and each thread scans `items` consecutive elements there. Narrow inputs
/// are staged in a region of their own, a quarter of the elements' for int8 into int32, and each
/// thread widens its run into the elements' region; the tile then runs as any other (rung 5's
/// register tile, 4 tiles of 256 x 32 per SM at 64 registers, kept too few bytes in flight
/// through the look-back: DRAM at 26 % of peak under ncu, 1,091 us at 2^28 int8 into int32 on
/// the H200 against CUB's 606; staged, 411 us).
///
/// Why. A block of rung 5 idles through its look-back; the other blocks of its SM must keep
/// the memory busy. The register tile (tile_registers) holds its elements in registers, which
/// caps an SM at 4 tiles of 256 x 28 in flight. Here a thread holds one value through the
/// look-back (the fold of the elements before its own), the tile's 28 KiB sit in shared memory,
/// and 7 tiles fit an SM (6 segmented: 35 KiB with the head flags): more bytes in flight for the
/// same chain. A bulk load is one instruction of one thread for the whole tile. Measured on the
/// H200 (dev/copy_roof.cu, dev/tma_scan_prototype.cu, 2^28 int32): a plain copy with the
/// register tile's shape moves the bytes in 535 us and a bulk-copied tile in 529 us (so the copy
/// itself is not what the bulk load improves), while a prototype of this tile (plain scans)
/// scanned in 606 us against the register tile's 700 us.
///
/// Steps, one tile per block (`BlockSize` threads, `items` = 112 bytes of values per thread):
/// 1. thread 0 starts bulk loads of the tile's values (and head flags) as soon as it has drawn
///    the tile's ticket (`start_load`, before the block's first barrier), when they are 16-byte
///    aligned (the 16-byte whole of a partial tile; the rest, and everything that is not
///    aligned, by plain loads), and the block waits on a shared-memory barrier;
/// 2. each thread folds its elements (16-byte shared loads: thread t reads bytes 112 t ..., and
///    112 = 7 x 16 is an odd number of 16-byte units, so the 8 threads of each quarter warp hit
///    distinct banks; segmented: restarting at heads, its 28 flags read as 7 words at a stride of
///    7 words, conflict-free, and kept as a bitmask), the warp scans the thread folds with
///    shuffles, and warp 0 scans the warp totals: each thread keeps the fold of the tile's
///    elements before its own;
/// 3. (`emit`, after the look-back) each thread scans its elements again with
///    carry op (elements before its own) in front, in place (segmented: the prefix reaches the
///    elements before the thread's first head), and thread 0 bulk-stores the tile (plain stores
///    for an output that is not 16-byte aligned, and for the tail).
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
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief parprim::minimum or maximum on double: their total order (NaNs, signed zeros) is a
/// branch-free select on the values and their bits, which needs more registers than a sum
/// (tile_shared_bulk::min_blocks_per_sm).
template <class Op, class V>
inline constexpr bool double_extreme_v = std::is_same_v<V, double> &&
                                         (std::is_same_v<Op, parprim::minimum> ||
                                          std::is_same_v<Op, parprim::maximum>);

/// \brief Whether problem `P` (input type `In`) can use tile_shared_bulk: elements are 4-, 8-
/// or 16-byte trivially copyable types (user structs too: a thread-serial fold costs one operator
/// per element where rung 5's register tile, one element per lane a row, costs a warp scan),
/// and the input is either read unconverted, or (plain scans, the transforms) has the
/// elements' size, so that each thread converts its own staged elements in place before it
/// folds them, or (plain scans) is narrower (int8 into int32, int32 into int64: a size that
/// divides 16), staged beside the elements and converted into them.
template <class P, class In>
inline constexpr bool shared_bulk_tile_fits_v =
    std::is_trivially_copyable_v<typename P::element_type> &&
    (sizeof(typename P::element_type) == 4 || sizeof(typename P::element_type) == 8 ||
     sizeof(typename P::element_type) == 16) &&
    ((!P::transforms && std::is_same_v<In, typename P::element_type>) ||
     (!P::segmented && std::is_trivially_copyable_v<In> &&
      (sizeof(In) == sizeof(typename P::element_type) ||
       (sizeof(In) < sizeof(typename P::element_type) && 16 % sizeof(In) == 0))));

/// `Chunks`: 16-byte chunks of values per thread (odd, so that a quarter warp's chunk reads are
/// conflict-free); 7 (112 bytes) is the tuned shape (dev/rung6_shape_sweep.cu).
/// `PrefetchTiles` (0: none): when a tile starts its bulk load, it also asks L2 to fetch the
/// tile that many tickets ahead (whole tiles only), so that DRAM sees the reads of tiles whose
/// blocks have not started yet: more bytes in flight than the SMs' shared memory holds. On the
/// H200 (dev/rung6_shape_sweep.cu, run C of docs/results/h200-scan-dev-2026-11-23b.txt), 2^28
/// int32, plain, look-back waits {3200, 800}: 593.5 us without, 558.8 with 128 tiles ahead
/// (CUB InclusiveSum 694.0), 567.5 with 256, 706.4 with 512 and 767.4 with 924 (the prefetched
/// tiles no longer stay in L2 until their blocks read them); at 2^24 128 costs 1 % (55.4 vs
/// 54.8), 256 6 %; segmented tiles lose with any distance (634 -> 646 us at 256), the scans by
/// key too (their keys prefetched with the values: 2^28 int32 809 -> 828 us at 128).
/// `MinBlocksPerSM` (0: the tuned count, `min_blocks_per_sm`): the register cap's blocks per SM,
/// for dev/ sweeps.
template <unsigned BlockSize, class Problem, unsigned Chunks = 7, unsigned PrefetchTiles = 0,
          unsigned MinBlocksPerSM = 0>
struct tile_shared_bulk {
  using V = typename Problem::value_type;
  using E = typename Problem::element_type;
  using Op = typename Problem::op_type;
  using In = std::remove_cv_t<std::remove_pointer_t<decltype(Problem::in)>>;
  static constexpr bool segmented = Problem::segmented;
  /// Segmented with one-byte head flags, which are staged beside the values; the scans by key
  /// read their keys instead (key_run_heads: each warp its keys together, `read_heads`), while
  /// the values' bulk load is in flight.
  static constexpr bool staged_heads = [] {
    if constexpr (segmented)
      return Problem::heads_type::staged;
    else
      return false;
  }();
  /// Segmented with heads from keys of 8 bytes, which the threads read (registers): 5 tiles per
  /// SM beside 4-byte values, 4 beside 8-byte ones (H200, inclusive_scan_by_key with int64 keys,
  /// dev/scan_by_key_sweep.cu: 2^28 int32 values 1,387 us at 6 tiles with each thread reading its
  /// own run, 1,296 with the warps' reads and an L2 prefetch, 1,037 at 5 tiles; 2^27 int64
  /// values 905, 871 and 817 us at 6, 5 and 4 tiles, double values 1,050, 918 and 908).
  static constexpr bool wide_keys = [] {
    if constexpr (segmented && !staged_heads)
      return sizeof(typename Problem::heads_type::key_type) > 4;
    else
      return false;
  }();
  /// The staged bytes are inputs that become elements through the problem's conversion.
  static constexpr bool converts = Problem::transforms || !std::is_same_v<In, E>;
  /// Inputs narrower than the elements are staged in a region of their own (`inputs`), and
  /// each thread converts its run of them into the elements' region.
  static constexpr bool narrow = sizeof(In) < sizeof(E);
  static constexpr unsigned block_size = BlockSize;
  static constexpr unsigned chunk_bytes = 16;
  static constexpr unsigned chunks = Chunks;
  static constexpr unsigned vec = chunk_bytes / sizeof(E);
  static constexpr unsigned items = chunks * vec;
  static constexpr unsigned tile_size = BlockSize * items;
  static constexpr unsigned tile_bytes = tile_size * sizeof(E);
  static constexpr unsigned flag_bytes = staged_heads ? tile_size : 0;
  static constexpr unsigned input_bytes = tile_size * sizeof(In);  // a tile's inputs
  static constexpr unsigned narrow_bytes = narrow ? input_bytes : 0;
  static constexpr unsigned warps = BlockSize / warp_threads;
  /// Tiles of 256 threads per SM (28 KiB of values, 7 KiB of flags, plus the block's reserve,
  /// in the 228 KiB of an H200 SM); the registers are capped to match (plain 30-32 registers,
  /// segmented 4-byte 40). Segmented 8-byte values carry 16-byte (value, head) pairs through
  /// the look-back, packed with their status in one 16-byte word: with an exact-grouping
  /// operator (the tree look-back) 6 tiles (40 registers: int64 plus spills nothing, minimum and
  /// maximum none); the fixed tree holds more, so 5 tiles (48 registers, no spills): 2^27
  /// float64 sums, segments of 1024, waits {1200, 650} on the H200 (dev/rung6_wide_sweep.cu):
  /// 754 us at 4 tiles (61 registers), 711 at 5, 811 at 6 (40 registers, 32 bytes of local
  /// memory); CUB's InclusiveSumByKey 721. (Before the pairs were shuffled as value and head
  /// words, warp_reduce_ordered on them wanted 94 registers: 4 tiles spilled 214 bytes.)
  /// Narrow inputs add their region (int8 into int32: 7 KiB, 6 tiles). 16-byte values (one
  /// a chunk, 7 a thread): 4 tiles (64 registers). 2^27 affine maps {double a, b} on the H200
  /// (dev/rung6_wide_sweep.cu, look-back waits {3200, 800}) with 3, 4 and 5 tiles: plain
  /// 2,278, 1,855 and 1,818 us (5 spills 8 bytes; rung 5's register tile 3,111, CUB 3,711);
  /// segmented 3,045, 2,798 and 3,203 us (rung 5 4,383, CUB's InclusiveScanByKey 3,737).
  /// Plain double minimum / maximum (the total order's branch-free select, NaNs and signed
  /// zeros: double_extreme_v) take 6 tiles (40 registers): at 7 (32 registers) maximum spilled
  /// 16 bytes. H100, 2^27 inclusive scans (dev/rung6_wide_sweep.cu, WIDE_SWEEP_ONLY=extreme):
  /// maximum 799-802 us at 7 tiles, 742-749 at 6, 740-744 at 5 (CUB 804); minimum 750, 743,
  /// 742-745 (CUB 810); at 2^24 6 tiles within 3 % of 7 either way.
  static constexpr unsigned min_blocks_per_sm =
      MinBlocksPerSM > 0                ? MinBlocksPerSM
      : BlockSize != 256 || Chunks != 7 ? 0u
      : narrow                          ? 233472u / (tile_bytes + narrow_bytes + 1152u)
      : sizeof(E) == 16                 ? 4u
      : wide_keys                       ? (sizeof(E) == 4 ? 5u : 4u)
      : !segmented
          ? (double_extreme_v<typename Problem::op_type, typename Problem::value_type> ? 6u : 7u)
      : sizeof(E) == 4 || exact_grouping_v<typename Problem::op_type, typename Problem::value_type>
          ? 6u
          : 5u;
  static_assert(sizeof(E) == 4 || sizeof(E) == 8 || sizeof(E) == 16,
                "tile_shared_bulk: 4-, 8- or 16-byte elements");
  static_assert(sizeof(In) <= sizeof(E) && chunk_bytes % sizeof(In) == 0,
                "tile_shared_bulk: inputs of the elements' size or narrower, dividing 16 bytes");
  static_assert(!(segmented && narrow), "tile_shared_bulk: segmented scans of unconverted inputs");
  static_assert(Chunks % 2 == 1, "tile_shared_bulk: an odd number of 16-byte chunks per thread");
  static_assert(!segmented || items <= 32,
                "tile_shared_bulk: a thread's head flags fit one 32-bit mask");
  static_assert(BlockSize % warp_threads == 0 && warps <= warp_threads,
                "tile_shared_bulk: block size a multiple of 32, at most 1024");

  struct storage {
    alignas(128) unsigned char data[tile_bytes];
    alignas(16) unsigned char flags[flag_bytes > 0 ? flag_bytes : 16];
    alignas(16) unsigned char inputs[narrow_bytes > 0 ? narrow_bytes : 16];  // narrow inputs
    std::uint64_t barrier;
    shared_array<V, warps> warp_scan;  // inclusive scan of the warp totals
  };

  E* data_ = nullptr;  // the tile's elements in shared memory
  unsigned len_ = 0;
  unsigned heads_ = 0;  // segmented: bit k, element mine + k is a head
  maybe<V> before_{};   // the fold of the tile's elements before this thread's

  /// \brief One thread (the kernel's thread 0, as soon as it has the tile) starts the bulk loads
  /// of elements [first, first + len); a barrier of the block must follow before `scan`.
  __device__ static void start_load(const Problem& p, std::size_t first, unsigned len, storage& s) {
    const load_plan b = plan(p, first, len);
    if (b.values + b.flags == 0) return;
    if constexpr (PrefetchTiles > 0) {
      // whole tiles only (16-byte multiples at 16-byte aligned addresses, as this one's)
      const std::size_t ahead = first + std::size_t(PrefetchTiles) * tile_size;
      if (b.values == tile_size && ahead + tile_size <= p.n) {
        bulk_prefetch_l2(p.in + ahead, input_bytes);
        if constexpr (segmented) p.heads.prefetch_l2(ahead, tile_size);
      }
    }
    bulk_barrier_init(&s.barrier);
    bulk_barrier_expect(&s.barrier, b.values * sizeof(In) + b.flags);
    if (b.values > 0)
      bulk_load(narrow ? s.inputs : s.data, p.in + first, b.values * sizeof(In), &s.barrier);
    if constexpr (staged_heads)
      if (b.flags > 0) bulk_load(s.flags, p.heads.flags + first, b.flags, &s.barrier);
  }

  /// \brief Loads elements [first, first + len) (the bulk part started by `start_load`) and
  /// folds them; returns their fold (every thread). 1 <= len <= tile_size.
  __device__ V scan(const Problem& p, const Op& op, std::size_t first, unsigned len, storage& s) {
    data_ = reinterpret_cast<E*>(s.data);
    len_ = len;
    const unsigned mine = threadIdx.x * items;
    const unsigned count = count_of(mine, len);
    if constexpr (segmented && !staged_heads) heads_ = read_heads(p, first, mine, count, len);
    const load_plan b = plan(p, first, len);
    if constexpr (converts) {
      In* raw = reinterpret_cast<In*>(narrow ? s.inputs : s.data);  // converted below
#pragma unroll 4
      for (unsigned k = b.values + threadIdx.x; k < len; k += BlockSize) raw[k] = p.in[first + k];
    } else {
#pragma unroll 4
      for (unsigned k = b.values + threadIdx.x; k < len; k += BlockSize) data_[k] = p.in[first + k];
    }
    if constexpr (staged_heads) {
#pragma unroll 4
      for (unsigned k = b.flags + threadIdx.x; k < len; k += BlockSize)
        s.flags[k] = p.heads.flags[first + k];
    }
    __syncthreads();
    if (b.values + b.flags > 0) bulk_barrier_wait(&s.barrier);

    const auto eop = p.element_op();
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    if constexpr (staged_heads) heads_ = load_heads(s, mine, count);
    if constexpr (converts) convert_mine(p, s, mine, count);
    // The thread's fold (restarting at heads). Threads past the end: any value, read by no one.
    E fold = mine < len ? data_[mine] : E{};
    for_each_mine<false>(mine, count, [&](const E& x, unsigned k) {
      if (k > 0) fold = segmented && ((heads_ >> k) & 1u) ? x : static_cast<E>(eop(fold, x));
      return x;
    });
    const V incl = warp_inclusive_scan(thread_value(fold), lane, op);
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

  /// \brief f(x, k) for this thread's elements k in order, f's result replacing element k in
  /// the tile (after `scan`: the per-segment reductions leave each segment's result in place at
  /// the head that closes it).
  template <class F>
  __device__ void rewrite_mine(F&& f) const {
    const unsigned mine = threadIdx.x * items;
    for_each_mine<true>(mine, count_of(mine, len_), f);
  }

  /// \brief Stores the tile: each element gets the fold of `carry`, the elements before this
  /// thread's and its own up to it (inclusive) or before it (exclusive), as the problem says
  /// (`output_as`; segmented: from the element's segment head on).
  __device__ void emit(const Problem& p, const Op& op, std::size_t first,
                       const maybe<V>& carry) const {
    const maybe<V> pre = combine(carry, before_, op);
    const unsigned mine = threadIdx.x * items;
    const unsigned count = count_of(mine, len_);
    // The kind, and whether there is a prefix, are the same for every element: branch once.
    if (p.exclusive)
      pre.has ? rescan<true, true>(p, pre, mine, count) : rescan<true, false>(p, pre, mine, count);
    else
      pre.has ? rescan<false, true>(p, pre, mine, count)
              : rescan<false, false>(p, pre, mine, count);
    E* dst = p.out + first;
    const unsigned bulk = bulk_items(dst, len_, vec);
    if (bulk > 0) fence_shared_for_bulk();
    __syncthreads();
    if (bulk > 0 && threadIdx.x == 0) {
      bulk_store(dst, data_, bulk * sizeof(E));
      bulk_store_wait_read();
    }
#pragma unroll 4
    for (unsigned k = bulk + threadIdx.x; k < len_; k += BlockSize) dst[k] = data_[k];
  }

 private:
  /// Problems whose values count their heads (`Problem::run_value`: the per-segment reductions).
  static constexpr bool counts_heads = requires(const E& e) {
    Problem::run_value(e, 0u);
  };

  /// \brief The value of the thread's elements: their fold since its last head, with whether
  /// it holds a head (segmented scans) or how many (`run_value`).
  __device__ V thread_value(const E& fold) const {
    if constexpr (counts_heads)
      return Problem::run_value(fold, heads_);
    else
      return Problem::make(fold, heads_ != 0);
  }

  /// \brief Elements (values) and bytes (head flags) of a tile that move by bulk copies.
  struct load_plan {
    unsigned values = 0;
    unsigned flags = 0;
  };
  __device__ static load_plan plan(const Problem& p, std::size_t first, unsigned len) {
    load_plan b;
    b.values = bulk_items(p.in + first, len, chunk_bytes / unsigned(sizeof(In)));
    if constexpr (staged_heads) b.flags = bulk_items(p.heads.flags + first, len, chunk_bytes);
    return b;
  }

  /// \brief Heads read by the threads themselves (key_run_heads): a warp whose elements are all
  /// in the tile reads its keys together (coalesced, `warp_run`) where they allow it, else each
  /// thread its own run.
  __device__ static unsigned read_heads(const Problem& p, std::size_t first, unsigned mine,
                                        unsigned count, unsigned len) {
    if constexpr (Problem::heads_type::template warp_reads<items>) {
      const unsigned warp_first = threadIdx.x / warp_threads * (warp_threads * items);
      if (warp_first + warp_threads * items <= len && p.heads.warp_aligned(first + warp_first))
        return p.heads.template warp_run<items>(first + warp_first, threadIdx.x % warp_threads);
    }
    return p.heads.template run_first<items>(first + mine, count);
  }

  /// \brief How many of the `len` elements of the tile the thread whose first is `mine` holds.
  __device__ static unsigned count_of(unsigned mine, unsigned len) {
    return mine < len ? (len - mine < items ? len - mine : items) : 0;
  }

  /// \brief f(x, k) for the thread's elements k = 0 .. count - 1 in order, by 16-byte chunks
  /// when the thread is full; with `Write`, f's result replaces the element.
  template <bool Write, class F>
  __device__ void for_each_mine(unsigned mine, unsigned count, F&& f) const {
    if (count == items) {
#pragma unroll
      for (unsigned c = 0; c < chunks; ++c) {
        E x[vec];
        read_chunk(mine + c * vec, x);
#pragma unroll
        for (unsigned j = 0; j < vec; ++j) {
          const E y = f(x[j], c * vec + j);
          if constexpr (Write) x[j] = y;
        }
        if constexpr (Write) write_chunk(mine + c * vec, x);
      }
    } else {
      for (unsigned k = 0; k < count; ++k) {
        const E y = f(data_[mine + k], k);
        if constexpr (Write) data_[mine + k] = y;
      }
    }
  }

  /// \brief The elements of [ptr, ptr + len) that move by one bulk copy: the whole multiples
  /// of `multiple` elements (16 bytes) when the range starts 16-byte aligned and the GPU has
  /// bulk copies, else none.
  template <class T>
  __device__ static unsigned bulk_items(const T* ptr, unsigned len, unsigned multiple) {
    if constexpr (!bulk_copy_available) {
      return 0;
    } else {
      if (reinterpret_cast<std::uintptr_t>(ptr) % chunk_bytes != 0) return 0;
      return len / multiple * multiple;
    }
  }

  /// \brief Bit k: element mine + k (k < count) is a head. Full threads read their 28 flag
  /// bytes as 7 words (a stride of 7 words between threads: conflict-free).
  __device__ static unsigned load_heads(const storage& s, unsigned mine, unsigned count) {
    if constexpr (items % 4 == 0) {
      if (count == items) {
        unsigned words[items / 4];
        const unsigned* w = reinterpret_cast<const unsigned*>(s.flags + mine);
#pragma unroll
        for (unsigned i = 0; i < items / 4; ++i) words[i] = w[i];
        std::uint8_t f[items];
        memcpy(f, words, items);
        return nonzero_byte_bits(f);
      }
    }
    unsigned bits = 0;
    for (unsigned k = 0; k < count; ++k) bits |= (s.flags[mine + k] != 0 ? 1u : 0u) << k;
    return bits;
  }

  /// \brief The thread's staged inputs become elements: in place (each thread its own), or
  /// from the narrow inputs' region (a full thread reads its run as 4-byte words where it is a
  /// whole number of them: int8 into int32 reads 7 words at a stride of 7, conflict-free).
  __device__ void convert_mine(const Problem& p, const storage& s, unsigned mine,
                               unsigned count) const {
    if constexpr (narrow) {
      const unsigned char* src = s.inputs + std::size_t(mine) * sizeof(In);
      if (count == items) {
        In x[items];
        if constexpr (sizeof(x) % 4 == 0) {
          unsigned w[sizeof(x) / 4];
#pragma unroll
          for (unsigned i = 0; i < sizeof(x) / 4; ++i)
            w[i] = reinterpret_cast<const unsigned*>(src)[i];
          memcpy(x, w, sizeof x);
        } else {
#pragma unroll
          for (unsigned k = 0; k < items; ++k) memcpy(&x[k], src + k * sizeof(In), sizeof(In));
        }
#pragma unroll
        for (unsigned c = 0; c < chunks; ++c) {
          E y[vec];
#pragma unroll
          for (unsigned j = 0; j < vec; ++j) y[j] = p.convert(x[c * vec + j]);
          write_chunk(mine + c * vec, y);
        }
      } else {
        for (unsigned k = 0; k < count; ++k) {
          In x;
          memcpy(&x, src + k * sizeof(In), sizeof x);
          data_[mine + k] = p.convert(x);
        }
      }
    } else if (count == items) {
#pragma unroll
      for (unsigned c = 0; c < chunks; ++c) {
        const uint4 raw = *reinterpret_cast<const uint4*>(data_ + mine + c * vec);
        In x[vec];
        memcpy(x, &raw, sizeof raw);
        E y[vec];
#pragma unroll
        for (unsigned j = 0; j < vec; ++j) y[j] = p.convert(x[j]);
        write_chunk(mine + c * vec, y);
      }
    } else {
      for (unsigned k = 0; k < count; ++k) {
        In x;
        memcpy(&x, data_ + mine + k, sizeof x);
        data_[mine + k] = p.convert(x);
      }
    }
  }

  __device__ void read_chunk(unsigned at, E (&x)[vec]) const {
    const uint4 c = *reinterpret_cast<const uint4*>(data_ + at);
    memcpy(x, &c, sizeof c);
  }
  __device__ void write_chunk(unsigned at, const E (&x)[vec]) const {
    uint4 c;
    memcpy(&c, x, sizeof c);
    *reinterpret_cast<uint4*>(data_ + at) = c;
  }

  /// \brief The thread's elements, rescanned in place from `pre` (`HasPrefix`: pre.has).
  template <bool Exclusive, bool HasPrefix>
  __device__ void rescan(const Problem& p, const maybe<V>& pre, unsigned mine,
                         unsigned count) const {
    const auto eop = p.element_op();
    E run = Problem::element_of(pre.value);  // the fold before element k in its segment...
    bool have = HasPrefix;                   // ...when there is one
    for_each_mine<true>(mine, count, [&](const E& x, unsigned k) {
      const bool own_head = segmented && ((heads_ >> k) & 1u) != 0;
      const bool has_e = (HasPrefix || have) && !own_head;
      const E incl = has_e ? static_cast<E>(eop(run, x)) : x;
      const E o = p.template output_as<Exclusive>(own_head, has_e, run, incl);
      run = incl;
      have = true;
      return o;
    });
  }
};

}  // namespace parprim::detail::cuda
