#pragma once
// Scratch (dev/ only, not part of the library): an experiment, the parprim::exact_plus scan on
// the GPU in one pass, measured slower than the library's two-launch scan (see dev/README.md and
// docs/reproducible.md, "A one-pass exact scan"). Used by dev/exact_scan_sweep.cu.
//
/// \brief parprim::exact_plus scans on the GPU in one pass: the tiles of kernels/scan_exact_sum.cuh
/// (each output the exact prefix rounded once, the host scans' bits) with the exact prefix of
/// each block's tile found by a decoupled look-back over superaccumulators, so the input is read
/// once (the two-launch scan reads it twice).
///
/// Blocks take *block tiles* (a warp tile, 1024 floats or 512 doubles, for each of its warps) in
/// ticket order, the next one's bulk copies (the TMA) started while the block scans the current
/// one. For each block tile:
/// 1. every warp surveys its warp tile in shared memory and adds its exact slice sums to its
///    digits (the exact sum's `add_surveyed_tile`), written as digit words;
/// 2. warp 0 adds the warps' digit words into the tile's *aggregate* and publishes it, then
///    finds the digit words of everything before the tile by a fixed tree over the aggregates
///    (`exact_look_back`: at most one level of reads a 32-fold of tiles, every read of a level in
///    flight at once, no chain through the tiles), `start` included (an exclusive scan's init, a
///    carry). Digit words add exactly in any order: which tiles were quick cannot change a bit;
/// 3. each warp adds the exclusive prefix and the digit words of the warps before it, resolves
///    the carries into its superaccumulator (lane 0), and scans its warp tile from it with the
///    two-launch scan's tile code (`scan_surveyed_tile`).
/// The states live in the call's status memory (`epoch << 2 | kind` a node: no reset between
/// calls) and scratch (a row of digit words a node), the row stored before its status with a
/// fence in between, and read after seeing it.

#include <cstddef>
#include <cstdint>
#include <string>

#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/detail/exact_scan_launch.cuh>
#include <parprim/backends/cuda/detail/look_back_levels.hpp>
#include <parprim/backends/cuda/kernels/reduce_exact_sum.cuh>
#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>
#include <parprim/backends/cuda/kernels/scan_exact_sum.cuh>
#include <parprim/detail/exact_accumulator.hpp>

namespace parprim::detail::cuda {

/// \brief The published states of the one-pass exact scan: the fixed tree's nodes
/// (detail/look_back_levels.hpp: the block tiles' aggregates, then the totals of aligned groups
/// of 32^k tiles), a status word each (`epoch << 2 | published_aggregate`) and a row of
/// `word_count` digit words each.
template <class F>
struct exact_tile_states {
  static constexpr unsigned words = warp_digits<F>::word_count;
  std::int64_t* rows;  ///< [nodes][words]
  unsigned* status;    ///< [nodes]
  unsigned epoch;
  unsigned levels;  ///< the levels a tile reads (look_back_levels::count)
};

/// \brief Digit words held by a warp: the digits in warp_digits' layout (digit d on lane d % 32),
/// the flags on every lane.
template <class F>
struct lane_words {
  warp_digits<F> digits;
  std::uint64_t flags;

  __device__ void clear() {
    digits.clear();
    flags = 0;
  }
  /// \brief Adds a row of digit words, `read(k)` word k (every lane calls).
  template <class Read>
  __device__ void add(const Read& read, unsigned lane) {
#pragma unroll
    for (int r = 0; r < warp_digits<F>::per_lane; ++r) {
      const int d = static_cast<int>(lane) + r * static_cast<int>(warp_threads);
      if (d < warp_digits<F>::digit_count) digits.digit[r] += read(d);
    }
    flags |= static_cast<std::uint64_t>(read(warp_digits<F>::digit_count));
  }
  /// \brief Adds `o` (held the same way).
  __device__ void add(const lane_words& o) {
#pragma unroll
    for (int r = 0; r < warp_digits<F>::per_lane; ++r) digits.digit[r] += o.digits.digit[r];
    flags |= o.flags;
  }
  /// \brief Writes the row of digit words (every lane calls).
  __device__ void store(std::int64_t* row, unsigned lane) const {
    digits.store(row, flags, lane);
  }
};

/// \brief Adds the d_k level-k groups before `tile`'s own inside its level-(k+1) group
/// (look_back_levels) to `sum` (warp 0, every lane calls): lane l polls group l until each of
/// them is published, then every row is read with all its loads in flight at once.
template <class F>
__device__ void add_tree_level(const exact_tile_states<F>& st, std::size_t tiles, std::size_t tile,
                               unsigned k, lane_words<F>& sum, unsigned lane) {
  using plan = look_back_levels;
  constexpr unsigned all = 0xffffffffu;
  constexpr unsigned words = exact_tile_states<F>::words;
  const unsigned count = plan::digit(tile, k);
  if (count == 0) return;
  bool seen = lane >= count;
  const std::size_t node = plan::sibling(tiles, tile, k, lane < count ? lane : 0);
  for (unsigned pause = 32; !__all_sync(all, seen); pause = pause < 512 ? 2 * pause : pause) {
    if (!seen)
      seen = (*reinterpret_cast<const volatile unsigned*>(st.status + node) >> 2) == st.epoch;
    if (!__all_sync(all, seen)) __nanosleep(pause);
  }
  __threadfence();  // (the rows were stored before their status)
  const std::size_t first = plan::sibling(tiles, tile, k, 0);
#pragma unroll
  for (unsigned j = 0; j + 1 < plan::radix; ++j) {
    if (j < count) {
      const auto* row = reinterpret_cast<const long long*>(st.rows + (first + j) * words);
      sum.add([&](int w) { return static_cast<std::int64_t>(__ldcg(row + w)); }, lane);
    }
  }
}

/// \brief Warp 0 of the block holding block tile `tile` (every lane calls): the digit words of
/// everything before the tile (`start`, the scan's init or carry, held in `start_words`, and
/// the tiles before it) by the fixed tree over the tiles' aggregates (as rung 5's deterministic
/// look-back, detail/look_back_levels.hpp): write `tile` in base 32, digits d_{L-1} ... d_0; at
/// level k the d_k complete level-k groups before the tile's own inside its level-(k+1) group
/// are added. A tile whose lowest digits are 31 completes the groups above them and publishes
/// their totals (normalized), each before it reads a higher level, so a total waits only on
/// totals of smaller groups: no chain through the tiles, at most L levels of round trips to the
/// L2, each with all its reads in flight. The sums are exact in any order.
template <class F>
__device__ lane_words<F> exact_look_back(const exact_tile_states<F>& st, std::size_t tiles,
                                         std::size_t tile, const lane_words<F>& aggregate,
                                         const lane_words<F>& start_words, unsigned lane) {
  using plan = look_back_levels;
  constexpr unsigned words = exact_tile_states<F>::words;
  const auto publish = [&](std::size_t node, const lane_words<F>& v) {
    v.store(st.rows + node * words, lane);
    __threadfence();
    __syncwarp();
    if (lane == 0)
      *reinterpret_cast<volatile unsigned*>(st.status + node) = st.epoch << 2 | published_aggregate;
  };
  lane_words<F> before = start_words;
  unsigned k = 0;
  if (tile + 1 < tiles) {  // (the last tile has no successor to read what it would publish)
    publish(tile, aggregate);
    lane_words<F> total = aggregate;
    for (; k + 1 < st.levels && plan::digit(tile, k) == plan::radix - 1; ++k) {
      lane_words<F> level;
      level.clear();
      add_tree_level(st, tiles, tile, k, level, lane);
      total.add(level);
      total.digits.normalize(lane);
      publish(plan::group_of(tiles, tile, k + 1), total);
      before.add(level);
    }
  }
  for (; k < st.levels; ++k) add_tree_level(st, tiles, tile, k, before, lane);
  before.digits.normalize(lane);
  return before;
}

/// \brief The one-pass exact scan (see the file comment): `tiles` block tiles of
/// BlockSize / 32 warp tiles, taken by `ticket` (left zero for the next call), through two stages
/// a warp in dynamic shared memory (`exact_scan_stages<F>::warp_bytes(2)` a warp).
/// `MinBlocks`: the blocks per multiprocessor the registers are capped for.
template <unsigned BlockSize, bool Exclusive, class Load, class F,
          unsigned MinBlocks = exact_scan_tuning::scan_blocks_per_sm>
__global__ void __launch_bounds__(BlockSize, MinBlocks)
    scan_exact_look_back_kernel(Load load, F* out, std::size_t n, std::size_t tiles,
                                exact_tile_states<F> st, unsigned* ticket,
                                exact_accumulator<F> start) {
  constexpr unsigned warps = BlockSize / warp_threads;
  constexpr unsigned words = warp_digits<F>::word_count;
  constexpr unsigned stages = 2;
  constexpr std::size_t tile = exact_warp_tile_v<F>;
  constexpr std::size_t block_tile = warps * tile;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  __shared__ exact_accumulator<F> before[warps];
  __shared__ std::int64_t warp_words[warps][words];    // each warp's tile sum
  __shared__ std::int64_t prefix_words[warps][words];  // the sum before each warp's tile
  __shared__ std::int64_t block_before[words];         // the sum before the block tile
  __shared__ std::size_t tile_id[stages];
  bool in_aligned = false;
  if constexpr (direct_load_v<Load, F>)
    in_aligned = reinterpret_cast<std::uintptr_t>(load.in) % 16 == 0;
  const bool out_aligned = reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  constexpr unsigned tile_bytes = unsigned(exact_scan_stages<F>::tile_bytes);
  const exact_scan_stages<F> stage(dynamic_shared<unsigned char>() +
                                   warp * exact_scan_stages<F>::warp_bytes(stages));
  bool bulk = false;
  if constexpr (direct_load_v<Load, F> && bulk_copy_available) bulk = in_aligned;
  // the warp's tile of block tile b: [first, last), whole tiles of an aligned array by bulk copy
  const auto warp_tile = [&](std::size_t b, std::size_t& first, std::size_t& last) {
    first = b * block_tile + warp * tile;
    last = first >= n ? first : (n - first < tile ? n : first + tile);
  };
  const auto start_load = [&](std::size_t b, unsigned s) {
    if constexpr (direct_load_v<Load, F>) {
      std::size_t first = 0, last = 0;
      warp_tile(b, first, last);
      if (bulk && lane == 0 && b < tiles && last - first == tile) {
        bulk_barrier_expect(&stage.barrier[s], tile_bytes);
        bulk_load(stage.tile(s), load.in + first, tile_bytes, &stage.barrier[s]);
      }
    }
  };
  const auto take_ticket = [&](unsigned s) {
    const unsigned id = atomicAdd(ticket, 1u);
    // every block takes one ticket past the last tile: the last of all is taken once all are
    if (std::size_t(id) == tiles + gridDim.x - 1) *ticket = 0;
    tile_id[s] = id;
  };
  if (bulk && lane == 0)
    for (unsigned s = 0; s < stages; ++s) bulk_barrier_init(&stage.barrier[s]);
  if (threadIdx.x == 0) take_ticket(0);
  // `start` as digit words, held by warp 0 for every tile's look-back
  lane_words<F> start_words;
  start_words.clear();
  if (warp == 0) {
    start_words.digits.add_lane0(start, lane);
    start_words.flags = start.state;
  }
  __syncthreads();
  std::size_t b = tile_id[0];
  start_load(b, 0);
  unsigned phases = 0;  // bit s: the parity of stage s's next bulk completion
  for (unsigned i = 0; b < tiles; ++i) {
    const unsigned s = i % stages;
    if (threadIdx.x == 0) take_ticket(1 - s);  // (read after the first barrier below)
    std::size_t first = 0, last = 0;
    warp_tile(b, first, last);
    F* buffer = stage.tile(s);
    // 1. the warp tile's exact sum into its digit words
    exact::chunk_survey survey{};
    warp_digits<F> digits;
    digits.clear();
    std::uint64_t flags = 0;
    if (first < last) {
      if (bulk && last - first == tile) {
        bulk_barrier_wait(&stage.barrier[s], (phases >> s) & 1u);
        phases ^= 1u << s;
      } else {
        stage_tile_by_lanes(load, first, last, lane, in_aligned, buffer);
      }
      F x[exact_items_v<F>];
      read_tile_rows(buffer, lane, x);
      survey = tile_survey(x);
      exact_accumulator<F> acc;
      bool used = false;
      pending_slices<F> slices;
      add_surveyed_tile(survey, acc, used, digits, slices, flags, x, lane);
      flags = finish_warp_fold(acc, used, digits, slices, flags, lane);
    }
    digits.store(warp_words[warp], flags, lane);
    __syncthreads();
    const std::size_t next = tile_id[1 - s];
    start_load(next, 1 - s);  // (its stage's tile was finished before the last barrier)
    // 2. the look-back
    if (warp == 0) {
      lane_words<F> aggregate;
      aggregate.clear();
      for (unsigned w = 0; w < warps; ++w)
        aggregate.add([&](int k) { return warp_words[w][k]; }, lane);
      exact_look_back(st, tiles, b, aggregate, start_words, lane).store(block_before, lane);
    }
    __syncthreads();
    // 3. the warp's tile scanned from the sum before it
    if (first < last) {
      lane_words<F> sum;
      sum.clear();
      sum.add([&](int k) { return block_before[k]; }, lane);
      for (unsigned w = 0; w < warp; ++w) sum.add([&](int k) { return warp_words[w][k]; }, lane);
      sum.store(prefix_words[warp], lane);
      __syncwarp();
      if (lane == 0) before[warp] = accumulator_of_digit_words<F>(prefix_words[warp]);
      __syncwarp();
      warp_prefix<F> prefix;
      prefix.clear();
      scan_surveyed_tile<Exclusive>(survey, buffer, tile_output<F>{out, first, last, out_aligned},
                                    lane, before[warp], prefix);
    }
    __syncthreads();  // (the stage, the rows and the ticket's slot are used again)
    b = next;
  }
}

/// \brief The one-pass exact scan's driver (run by `run_scan`): block tiles of 8 warp tiles
/// taken by ticket over a grid of `Blocks` blocks per multiprocessor, a row of digit
/// words and a status word for each node of the fixed tree.
template <class F, class Load, unsigned Blocks = exact_scan_tuning::scan_blocks_per_sm>
class exact_scan_look_back {
 public:
  using problem = exact_scan_problem<F, Load>;
  static constexpr unsigned block = exact_scan_tuning::block_size;
  static constexpr unsigned warps = block / warp_threads;
  static constexpr unsigned words = warp_digits<F>::word_count;
  static constexpr std::size_t block_tile = warps * exact_warp_tile_v<F>;
  /// The kernel's dynamic shared memory: two stages a warp.
  static constexpr std::size_t stage_bytes = warps * exact_scan_stages<F>::warp_bytes(2);
  /// \throws invalid_argument where the tickets (tiles and one a block) exceed 2^32.
  exact_scan_look_back(std::size_t n, int device) : tiles_(ceil_div(n, block_tile)) {
    const std::size_t most = std::size_t(multiprocessor_count(device)) * Blocks;
    grid_ = tiles_ < most ? (tiles_ > 0 ? tiles_ : 1) : most;
    if (tiles_ + grid_ > 0xffffffffu)
      throw invalid_argument("parprim: a CUDA exact_plus scan of " + std::to_string(n) +
                             " elements exceeds the 2^32 tiles the look-back can count");
    levels_ = look_back_levels::of(tiles_);
  }
  /// A row of digit words for every node of the fixed tree (about 1/31 more than the tiles).
  std::size_t scratch_bytes() const noexcept {
    return align256(levels_.nodes * words * sizeof(std::int64_t));
  }
  std::size_t status_words() const noexcept { return levels_.nodes; }
  unsigned status_layout() const noexcept { return sizeof(unsigned); }

  void enqueue(const problem& p, scan_scratch s, cudaStream_t stream) const {
    const exact_tile_states<F> st{reinterpret_cast<std::int64_t*>(s.bytes), s.status, s.epoch,
                                  levels_.count};
    const auto scan = [&](auto kernel) {
      allow_dynamic_shared(kernel, stage_bytes);
      launch(kernel, grid_, block, stage_bytes, stream, p.load, p.out, p.n, tiles_, st, s.ticket,
             p.start);
    };
    if (p.exclusive)
      scan(scan_exact_look_back_kernel<block, true, Load, F, Blocks>);
    else
      scan(scan_exact_look_back_kernel<block, false, Load, F, Blocks>);
  }

 private:
  std::size_t tiles_;
  look_back_levels levels_;
  std::size_t grid_ = 1;
};

}  // namespace parprim::detail::cuda
