#pragma once
/// \file
/// \brief Rung 6, several elements per thread: a cost-optimal grid (p = n / log2 n threads,
/// block/load.cuh `load_grid_stride`) where each thread folds about log2 n elements with a
/// grid-stride loop before the unrolled tree of rung 5. Fewer blocks, fewer partials and
/// passes, every multiprocessor busy with useful work. Reorders operands.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

template <unsigned BlockSize>
struct grid_stride_multiple_elements_t {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::grid_stride_multiple_elements;
  static constexpr unsigned block_size = BlockSize;
  using loader = load_grid_stride;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    return tree_unrolled<BlockSize>(sdata, valid, op);
  }
};

/// \brief Rung 6 as launched: 256 threads per block.
using grid_stride_multiple_elements = grid_stride_multiple_elements_t<256>;
/// \brief The rung number as an alias.
using reduce_k6 = grid_stride_multiple_elements;

template <>
struct tree_rung<cuda_reduce_rung::grid_stride_multiple_elements> {
  using type = grid_stride_multiple_elements;
};

}  // namespace parprim::detail::cuda
