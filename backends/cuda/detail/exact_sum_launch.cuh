#pragma once
/// \file
/// \brief Host side of the GPU exact sum (kernels/reduce_exact_sum.cuh): its driver, which plans
/// one launch and enqueues it, run through the reduction's runners (detail/launch.cuh) for the
/// superaccumulator on the host (parprim::reduce rounds it; MPI ranks send it on) and for the
/// rounded sum into device memory (reduce_into).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/detail/launch.cuh>
#include <parprim/backends/cuda/kernels/reduce_exact_sum.cuh>
#include <parprim/detail/exact_accumulator.hpp>

namespace parprim::detail::cuda {

/// \brief Element i of a source as `F`: a pointer (converted), or a transform's load as it is.
template <class F, class Source>
auto exact_load_of(const Source& source) {
  if constexpr (std::is_pointer_v<Source>)
    return converting_load<std::remove_cv_t<std::remove_pointer_t<Source>>, F>{source};
  else
    return source;
}

/// \brief One launch of the exact sum of float or double (`F`) elements; the last block writes
/// `Out`: `F` (rounded once) or `exact_accumulator<F>`. The grid is at most a few blocks per
/// multiprocessor (`MinBlocks`, the kernel's register cap), no more than there are rounds of
/// one warp tile per warp. Any operator argument is ignored (it is exact_plus or its
/// accumulating form).
template <class F, class Out, unsigned MinBlocks = exact_sum_tuning::blocks_per_sm<F>>
class exact_sum_single_pass {
 public:
  using accumulator = exact_accumulator<F>;
  static constexpr unsigned block = exact_sum_tuning::block_size;

  exact_sum_single_pass(std::size_t n, int device) : n_(n) {
    const std::size_t max_grid = static_cast<std::size_t>(multiprocessor_count(device)) * MinBlocks;
    constexpr std::size_t tile = exact_warp_tile_v<F>;
    constexpr std::size_t block_tiles = block / warp_threads;
    const std::size_t tiles = ceil_div(n, tile);
    const std::size_t rounds = ceil_div(tiles, block_tiles);  // one tile per warp each
    grid_ = rounds < max_grid ? (rounds > 0 ? rounds : 1) : max_grid;
  }
  /// \return the device scratch: one superaccumulator's digit words per block
  std::size_t scratch_bytes() const noexcept {
    return align256(grid_ * warp_digits<F>::word_count * sizeof(std::int64_t));
  }

  /// \brief Enqueues the launch; it writes `init` plus the sum of the elements to `*out`.
  template <class Source, class Init, class Op>
  void enqueue(const Source& source, const Init& init, Op, void* scratch, unsigned* ticket,
               Out* out, cudaStream_t stream) const {
    const auto load = exact_load_of<F>(source);
    accumulator start;
    if constexpr (std::is_same_v<Init, accumulator>)
      start = init;
    else
      start = accumulator(static_cast<F>(init));
    launch(reduce_exact_sum_kernel<block, decltype(load), F, Out, MinBlocks>, grid_, block, 0,
           stream, load, n_, static_cast<std::int64_t*>(scratch), ticket, out, start);
  }

 private:
  std::size_t n_;
  std::size_t grid_ = 1;
};

/// \brief `init` plus the exact sum of `source`'s n elements, as a superaccumulator on the
/// host (synchronous); `init` itself, without a launch, when n is 0.
template <class F, class Source>
exact_accumulator<F> run_exact_fold(const launch_options& options, const Source& source,
                                    std::size_t n, const exact_accumulator<F>& init) {
  if (n == 0) return init;
  return run_synchronous<exact_sum_single_pass<F, exact_accumulator<F>>>(options, source, n, init,
                                                                         plus{});
}

/// \brief The exact sum of `init` and `source`'s n elements rounded once, written to `*out`
/// (device memory) in stream order, as run_into; `fn` names the call in errors. An empty sum
/// is `init` rounded: `init` itself unless a NaN, which becomes the default NaN.
template <class F, class Source>
void run_exact_into(const launch_options& options, const Source& source, std::size_t n, F* out,
                    F init, const char* fn) {
  run_into<exact_sum_single_pass<F, F>>(options, source, n, out,
                                        exact_accumulator<F>(init).template round<F>(), plus{}, fn);
}

}  // namespace parprim::detail::cuda
