#pragma once
/// \file
/// \brief Host side of the scan ladder: a *driver* per kind of grid plans one call (grid,
/// scratch, status words) and enqueues its kernels; `run_scan` wraps any driver (temporary
/// storage, enqueue, synchronise unless `nosync`). The rungs' tiles plug into the drivers:
///
/// - `scan_then_add<Tile>` (rungs 1-3): pass 1, the tile totals scanned recursively by the
///   same driver, pass 3;
/// - `reduce_then_scan<Tile>` (rung 4): two launches over a grid of a few blocks per SM;
/// - `single_pass_look_back<Tile>` (rung 5): one launch, one block per tile.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include <parprim/backends/cuda/block/tile_brent_kung.cuh>
#include <parprim/backends/cuda/block/tile_coarsened_three_phase.cuh>
#include <parprim/backends/cuda/block/tile_kogge_stone.cuh>
#include <parprim/backends/cuda/block/tile_registers.cuh>
#include <parprim/backends/cuda/block/tile_shared_bulk.cuh>
#include <parprim/backends/cuda/detail/launch.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>
#include <parprim/backends/cuda/kernels/scan_decoupled_look_back.cuh>
#include <parprim/backends/cuda/kernels/scan_then_add.cuh>
#include <parprim/backends/cuda/kernels/scan_warp_reduce_then_scan.cuh>

namespace parprim::detail::cuda {

/// \brief Scratch handed to a driver: device bytes (256-byte aligned), status words, ticket,
/// epoch.
struct scan_scratch {
  unsigned char* bytes;
  unsigned* status;
  unsigned* ticket;
  unsigned epoch;
  bool deterministic;          // the policy's option (rung 5)
  completion_signal signal{};  // drivers with `signals_completion` write it when done
};

/// \brief Rungs 1-3. `TileOf<P>` is the rung's tile for problem type P.
template <template <class> class TileOf, class Problem>
class scan_then_add {
 public:
  using V = typename Problem::value_type;
  using tile = TileOf<Problem>;
  using child_problem = totals_problem_t<Problem>;
  using child = scan_then_add<TileOf, child_problem>;

  explicit scan_then_add(std::size_t n) : n_(n), tiles_(ceil_div(n, tile::tile_size)) {
    bytes_ = 2 * align256(tiles_ * sizeof(V));
    if constexpr (Problem::segmented) bytes_ += align256(tiles_ * sizeof(std::size_t));
    if (tiles_ > 1) bytes_ += child(tiles_).scratch_bytes();
  }
  std::size_t scratch_bytes() const noexcept { return bytes_; }
  std::size_t status_words() const noexcept { return 0; }
  unsigned status_layout() const noexcept { return 0; }

  void enqueue(Problem p, scan_scratch s, cudaStream_t stream) const {
    V* totals = reinterpret_cast<V*>(s.bytes);
    V* carries = reinterpret_cast<V*>(s.bytes + align256(tiles_ * sizeof(V)));
    unsigned char* rest = s.bytes + 2 * align256(tiles_ * sizeof(V));
    if constexpr (Problem::segmented) {
      p.first_head = reinterpret_cast<std::size_t*>(rest);
      rest += align256(tiles_ * sizeof(std::size_t));
    }
    launch(scan_tiles_kernel<tile, Problem>, tiles_, tile::block_size, 0, stream, p, totals);
    if (tiles_ == 1) return;
    const child_problem q{totals, carries, tiles_, p.value_op(), true, p.prefix_ops};
    child(tiles_).enqueue(q, scan_scratch{rest, s.status, s.ticket, s.epoch, s.deterministic},
                          stream);
    constexpr unsigned fix_up_block = 256;
    launch(add_carries_kernel<fix_up_block, tile::tile_size, Problem>, tiles_ - 1, fix_up_block, 0,
           stream, p, static_cast<const V*>(totals), static_cast<const V*>(carries));
  }

 private:
  std::size_t n_;
  std::size_t tiles_;
  std::size_t bytes_ = 0;
};

/// \brief Rung 4.
template <template <class> class TileOf, class Problem>
class reduce_then_scan {
 public:
  using V = typename Problem::value_type;
  using tile = TileOf<Problem>;
  /// \brief One wave: as many blocks as fit on the device at once (by the kernels' register
  /// and shared-memory use), so no block waits for a second wave.
  reduce_then_scan(std::size_t n, int device) : n_(n) {
    const std::size_t tiles = ceil_div(n, tile::tile_size);
    static const int fit = blocks_that_fit();  // the same on every device of one build
    const std::size_t most =
        std::size_t(multiprocessor_count(device)) * std::size_t(fit > 0 ? fit : 1);
    runs_.tiles = tiles;
    runs_.tiles_per_block = ceil_div(tiles, tiles < most ? tiles : most);
    grid_ = ceil_div(tiles, runs_.tiles_per_block);
  }
  std::size_t scratch_bytes() const noexcept { return align256(grid_ * sizeof(V)); }
  std::size_t status_words() const noexcept { return 0; }
  unsigned status_layout() const noexcept { return 0; }

  static int blocks_that_fit() {
    int fit_reduce = 0;
    int fit_scan = 0;
    PARPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &fit_reduce, reduce_runs_kernel<tile, Problem>, tile::block_size, 0));
    PARPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &fit_scan, scan_runs_kernel<tile, Problem>, tile::block_size, 0));
    return fit_reduce < fit_scan ? fit_reduce : fit_scan;
  }

  void enqueue(const Problem& p, scan_scratch s, cudaStream_t stream) const {
    V* totals = reinterpret_cast<V*>(s.bytes);
    launch(reduce_runs_kernel<tile, Problem>, grid_, tile::block_size, 0, stream, p, runs_, totals);
    launch(scan_runs_kernel<tile, Problem>, grid_, tile::block_size, 0, stream, p, runs_,
           static_cast<const V*>(totals));
  }

 private:
  std::size_t n_;
  run_of_tiles runs_{};
  std::size_t grid_ = 1;
};

/// \brief The look-back's memory for `tiles` tiles of values `V` (rung 5, and the one-pass
/// per-segment reduction): the fixed tree's levels, what to ask of the temporary storage, and
/// the kernels' state over what it gave.
template <class V>
class look_back_memory {
 public:
  using states = tile_states<V>;
  /// \throws invalid_argument above 2^32 tiles (the ticket counter's range); `what` names the
  /// call of `n` elements in the message.
  look_back_memory(std::size_t tiles, std::size_t n, const char* what) {
    if (tiles > 0xffffffffu)
      throw invalid_argument(std::string("parprim: a CUDA ") + what + " of " + std::to_string(n) +
                             " elements exceeds the 2^32 tiles the look-back can count");
    levels_ = look_back_levels::of(tiles);
  }
  /// The states of every level of the fixed tree (about 1/31 more than the tiles).
  std::size_t scratch_bytes() const noexcept {
    return states::uses_status_words ? align256(states::bytes(levels_.nodes)) : 0;
  }
  /// Packed states carry the epoch in the scratch words themselves: the status memory (which
  /// no other kernel writes) holds them, so stale scratch can never look published.
  std::size_t status_words() const noexcept {
    return states::uses_status_words ? levels_.nodes : (states::bytes(levels_.nodes) + 3) / 4;
  }
  /// Bytes per tile in the status memory: a status word, or a packed value-and-status word.
  unsigned status_layout() const noexcept {
    if constexpr (states::uses_status_words)
      return sizeof(unsigned);
    else
      return sizeof(typename states::word);
  }
  /// The kernels' state over the temporary storage sized as above.
  look_back_state<V> state(void* scratch, unsigned* status, unsigned* ticket,
                           unsigned epoch) const noexcept {
    look_back_state<V> st{};
    if constexpr (states::uses_status_words) {
      st.states.aggregates = static_cast<V*>(scratch);
      st.states.status = status;
      st.states.count = levels_.nodes;
    } else {
      st.states.words = reinterpret_cast<typename states::word*>(status);
    }
    st.ticket = ticket;
    st.epoch = epoch;
    st.levels = levels_.count;
    return st;
  }

 private:
  look_back_levels levels_;
};

/// \brief Rung 5. `Tuning::delays(tiles, fixed_tree)` says when the look-back polls.
template <template <class> class TileOf, class Problem, class Tuning = look_back_tuning>
class single_pass_look_back {
 public:
  using V = typename Problem::value_type;
  using tile = TileOf<Problem>;

  /// Whether a synchronous call waits for the kernel's completion signal (its last tile to
  /// finish writes `scan_scratch::signal`): below Tuning::signal_below_tiles tiles.
  bool signals_completion() const noexcept { return tiles_ < Tuning::signal_below_tiles; }

  explicit single_pass_look_back(std::size_t n)
      : tiles_(ceil_div(n, tile::tile_size)), memory_(tiles_, n, "scan") {}
  std::size_t scratch_bytes() const noexcept { return memory_.scratch_bytes(); }
  std::size_t status_words() const noexcept { return memory_.status_words(); }
  unsigned status_layout() const noexcept { return memory_.status_layout(); }

  void enqueue(const Problem& p, scan_scratch s, cudaStream_t stream) const {
    const look_back_state<V> st = memory_.state(s.bytes, s.status, s.ticket, s.epoch);
    // Each kernel holds one look-back: the fixed tree (deterministic, an operator whose grouping
    // matters) or the tree look-back; Tuning::determinism >= 0 fixes the choice (dev/ sweeps).
    constexpr unsigned min_blocks = Tuning::template min_blocks_per_sm<tile>;
    const auto run = [&](auto kernel, bool fixed_tree) {
      launch(kernel, tiles_, tile::block_size, 0, stream, p, tiles_, st, s.deterministic,
             Tuning::template delays<Problem>(tiles_, fixed_tree), s.signal);
    };
    if constexpr (Tuning::determinism >= 0)
      run(scan_look_back_kernel<tile, Problem, min_blocks, Tuning::determinism>,
          Tuning::determinism == 1);
    else if constexpr (exact_grouping_v<typename Problem::op_type, V>)
      run(scan_look_back_kernel<tile, Problem, min_blocks, 0>, false);
    else if (s.deterministic)
      run(scan_look_back_kernel<tile, Problem, min_blocks, 1>, true);
    else
      run(scan_look_back_kernel<tile, Problem, min_blocks, 0>, false);
  }

 private:
  std::size_t tiles_;
  look_back_memory<V> memory_;
};

/// \brief Builds a driver for n elements (the rung-4 driver also needs the device).
template <class Driver>
Driver make_driver(std::size_t n, int device) {
  if constexpr (requires { Driver(n, device); })
    return Driver(n, device);
  else
    return Driver(n);
}

/// \brief One scan call with `Driver`, n >= 1: temporary memory (the cache's or the resource's),
/// enqueue, then wait (or, `nosync`, return; see finish_call and run_into in launch.cuh).
template <class Driver, class Problem>
void run_scan(const launch_options& options, const Problem& p, const char* fn) {
  device_guard guard(options.device);
  check_stream(options.stream, guard.device(), fn);
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const Driver driver = make_driver<Driver>(p.n, guard.device());
  // A synchronous call of a driver that signals its end takes the host word it signals in.
  bool signals = false;
  if constexpr (requires { driver.signals_completion(); })
    signals = options.sync && driver.signals_completion();
  call_scratch scratch(guard.device(), options.stream, options.memory, driver.scratch_bytes(),
                       driver.status_words(), driver.status_layout(), signals);
  completion signal;
  if (signals) signal = completion_for(scratch, stream);
  driver.enqueue(
      p,
      scan_scratch{static_cast<unsigned char*>(scratch.device_scratch()), scratch.status(),
                   scratch.ticket(), scratch.epoch(), options.deterministic, signal.kernel},
      stream);
  finish_call(options, scratch, signal);
}

}  // namespace parprim::detail::cuda
