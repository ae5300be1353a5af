#pragma once
/// \file
/// \brief The definitions of `parprim::detail::cuda::reduce<R, In, T, Op>` and
/// `reduce_into<R, In, T, Op>` (declared in reduce_entry.hpp): rung 7 runs the single-pass
/// driver, rungs 1-6 the multi-pass driver with their rung struct; both entries launch through
/// the same driver (detail/launch.cuh). Compiled by nvcc only: user .cu files include it
/// through reduce.hpp.

#if !defined(__CUDACC__)
#error "parprim: reduce_dispatch.cuh holds CUDA kernels; compile this file with nvcc"
#endif

#include <cstddef>
#include <utility>

#include <parprim/backends/cuda/detail/exact_sum_launch.cuh>
#include <parprim/backends/cuda/detail/launch.cuh>
#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/backends/cuda/kernels/reduce_first_add_during_load.cuh>
#include <parprim/backends/cuda/kernels/reduce_grid_stride_multiple_elements.cuh>
#include <parprim/backends/cuda/kernels/reduce_interleaved_divergent.cuh>
#include <parprim/backends/cuda/kernels/reduce_interleaved_strided.cuh>
#include <parprim/backends/cuda/kernels/reduce_sequential_addressing.cuh>
#include <parprim/backends/cuda/kernels/reduce_unrolled_last_warp.cuh>
#include <parprim/backends/cuda/kernels/reduce_vectorized_single_pass.cuh>

namespace parprim::detail::cuda {

/// \brief The driver (detail/launch.cuh) of rung `R`: `single_pass` for rung 7, `multi_pass`
/// with the rung's struct for rungs 1-6.
template <cuda_reduce_rung R, class In, class T, class Op>
struct reduce_driver {
  using type = multi_pass<typename tree_rung<R>::type, In, T, Op>;
};
template <class In, class T, class Op>
struct reduce_driver<cuda_reduce_rung::vectorized_single_pass, In, T, Op> {
  using type = single_pass<In, T, Op>;
};
template <cuda_reduce_rung R, class In, class T, class Op>
using reduce_driver_t = typename reduce_driver<R, In, T, Op>::type;

template <cuda_reduce_rung R, class In, class T, class Op>
T reduce(const launch_options& options, const In* in, std::size_t n, T init, Op op) {
  return run_synchronous<reduce_driver_t<R, In, T, Op>>(options, in, n, std::move(init), op);
}

/// \brief The driver of parprim::transform_reduce: rung 7's vectorized body for one-input
/// transforms over types it vectorizes (commutative operator with an identity), else rung 7's
/// order-preserving body reading through the load.
template <class Load, class T, class Op>
struct transform_driver {
  using type = transform_single_pass<Load, T, Op>;
};
template <class In, class F, class T, class Op>
requires vectorizable_v<In, T, Op>
struct transform_driver<unary_transform_load<In, T, F>, T, Op> {
  using type = single_pass<In, T, Op>;
};

/// \brief parprim::transform_reduce on the GPU: `init op load(0) op ... op load(n-1)`.
template <class Load, class T, class Op>
T transform_reduce(const launch_options& options, const Load& load, std::size_t n, T init, Op op) {
  return run_synchronous<typename transform_driver<Load, T, Op>::type>(options, load, n,
                                                                       std::move(init), op);
}

/// \brief parprim::transform_reduce_into: as transform_reduce, the result to device memory.
template <class Load, class T, class Op>
void transform_reduce_into(const launch_options& options, const Load& load, std::size_t n, T* out,
                           T init, Op op) {
  run_into<typename transform_driver<Load, T, Op>::type>(options, load, n, out, std::move(init), op,
                                                         "transform_reduce_into");
}

template <cuda_reduce_rung R, class In, class T, class Op>
void reduce_into(const launch_options& options, const In* in, std::size_t n, T* out, T init,
                 Op op) {
  run_into<reduce_driver_t<R, In, T, Op>>(options, in, n, out, std::move(init), op, "reduce_into");
}

template <class In, class F>
exact_accumulator<F> exact_fold(const launch_options& options, const In* in, std::size_t n,
                                const exact_accumulator<F>& init) {
  return run_exact_fold<F>(options, in, n, init);
}

template <class In, class F>
void exact_reduce_into(const launch_options& options, const In* in, std::size_t n, F* out, F init) {
  run_exact_into(options, in, n, out, init, "reduce_into");
}

}  // namespace parprim::detail::cuda
