#pragma once
/// \file
/// \brief Host side of the GPU exact scans (kernels/scan_exact_sum.cuh): the problem, the
/// driver that plans the two launches (run by `run_scan`, detail/scan_launch.cuh, as every scan
/// rung), and the entry points' bodies.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <parprim/backends/cuda/detail/launch.cuh>
#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/backends/cuda/detail/scan_launch.cuh>
#include <parprim/backends/cuda/kernels/scan_exact_sum.cuh>
#include <parprim/detail/exact_accumulator.hpp>

namespace parprim::detail::cuda {

/// \brief An exact scan: `load(i)` is element i as `F`; outputs to `out`; `start` is the
/// exact sum in front of element 0 (an exclusive scan's init, a carry, or empty).
template <class F, class Load>
struct exact_scan_problem {
  Load load;
  F* out;
  std::size_t n;
  bool exclusive;
  exact_accumulator<F> start;
};

/// \brief The two launches over `Waves` waves: `Waves` times as many warps as fit at once
/// (`Blocks` blocks per multiprocessor, the scan kernel's register cap), each a contiguous run
/// of whole warp tiles, and one superaccumulator per warp and per block in the scratch.
template <class F, class Load, unsigned Blocks = exact_scan_tuning::scan_blocks_per_sm,
          unsigned Waves = exact_scan_tuning::waves>
class exact_scan_two_pass {
 public:
  using accumulator = exact_accumulator<F>;
  using problem = exact_scan_problem<F, Load>;
  static constexpr unsigned block = exact_scan_tuning::block_size;
  static constexpr unsigned warps = block / warp_threads;
  static constexpr unsigned words = warp_digits<F>::word_count;  ///< a block sum's digit words

  exact_scan_two_pass(std::size_t n, int device) {
    constexpr std::size_t tile = exact_warp_tile_v<F>;
    const std::size_t most_warps =
        std::size_t(multiprocessor_count(device)) * Blocks * warps * Waves;
    const std::size_t tiles = ceil_div(n, tile);
    per_warp_ = ceil_div(tiles, tiles < most_warps ? (tiles > 0 ? tiles : 1) : most_warps) * tile;
    grid_ = n > 0 ? ceil_div(n, per_warp_ * warps) : 1;
    // two stages a warp where a block may hold them (sm_70, sm_80 and later), else one
    int most_shared = 0;
    PARPRIM_CUDA_CHECK(
        cudaDeviceGetAttribute(&most_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const std::size_t two = stage_bytes(exact_scan_tuning::stages) + static_bytes;
    stages_ = static_cast<std::size_t>(most_shared) >= two ? exact_scan_tuning::stages : 1;
  }
  std::size_t scratch_bytes() const noexcept {
    return align256(grid_ * warps * sizeof(accumulator)) +
           align256(grid_ * words * sizeof(std::int64_t));
  }
  std::size_t status_words() const noexcept { return 0; }
  unsigned status_layout() const noexcept { return 0; }

  void enqueue(const problem& p, scan_scratch s, cudaStream_t stream) const {
    auto* warp_sums = reinterpret_cast<accumulator*>(s.bytes);
    auto* block_words =
        reinterpret_cast<std::int64_t*>(s.bytes + align256(grid_ * warps * sizeof(accumulator)));
    launch(scan_exact_partials_kernel<block, Load, F>, grid_, block, 0, stream, p.load, p.n,
           per_warp_, warp_sums, block_words);
    const auto* ws = static_cast<const accumulator*>(warp_sums);
    const auto* bs = static_cast<const std::int64_t*>(block_words);
    const auto scan = [&](auto kernel) {
      allow_dynamic_shared(kernel, stage_bytes(stages_));
      launch(kernel, grid_, block, stage_bytes(stages_), stream, p.load, p.out, p.n, per_warp_, ws,
             bs, p.start, stages_);
    };
    if (p.exclusive)
      scan(scan_exact_sum_kernel<block, true, Load, F, Blocks>);
    else
      scan(scan_exact_sum_kernel<block, false, Load, F, Blocks>);
  }

  /// \brief The scan kernel's dynamic shared memory: every warp's `stages` stages.
  static constexpr std::size_t stage_bytes(unsigned stages) {
    return warps * exact_scan_stages<F>::warp_bytes(stages);
  }

  /// \brief The scan kernel's static shared memory (the warps' superaccumulators, the blocks'
  /// sum and its scratch), with room for alignment.
  static constexpr std::size_t static_bytes =
      warps * sizeof(accumulator) + (words + block) * sizeof(std::int64_t) + 1024;

 private:
  std::size_t per_warp_ = 0;
  std::size_t grid_ = 1;
  unsigned stages_ = exact_scan_tuning::stages;
};

/// \brief An exact scan of `load`'s n elements into `out` (checked by the caller, n > 0):
/// inclusive from `carry`, or exclusive from `init` then `carry` (either may be null).
template <class F, class Load>
void run_exact_scan(const launch_options& options, const Load& load, F* out, std::size_t n,
                    scan_kind kind, const exact_accumulator<F>* init,
                    const exact_accumulator<F>* carry, const char* fn) {
  exact_accumulator<F> start{};
  if (kind == scan_kind::exclusive && init != nullptr) start = *init;
  if (carry != nullptr) start.merge(*carry);
  run_scan<exact_scan_two_pass<F, Load>>(
      options, exact_scan_problem<F, Load>{load, out, n, kind == scan_kind::exclusive, start}, fn);
}

}  // namespace parprim::detail::cuda
