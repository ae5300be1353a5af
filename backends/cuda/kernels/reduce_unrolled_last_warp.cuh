#pragma once
/// \file
/// \brief Rung 5, unrolled: the block size is a template parameter, so the tree's loop, its
/// counter and the barriers that size rules out disappear (block/shared_tree.cuh,
/// `tree_unrolled`), and the last warp finishes with shuffles instead of shared memory and
/// barriers. Loading as rung 4. Reorders operands.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

template <unsigned BlockSize>
struct unrolled_last_warp_t {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::unrolled_last_warp;
  static constexpr unsigned block_size = BlockSize;
  using loader = load_first_add;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    return tree_unrolled<BlockSize>(sdata, valid, op);
  }
};

/// \brief Rung 5 as launched: 256 threads per block.
using unrolled_last_warp = unrolled_last_warp_t<256>;
/// \brief The rung number as an alias.
using reduce_k5 = unrolled_last_warp;

template <>
struct tree_rung<cuda_reduce_rung::unrolled_last_warp> {
  using type = unrolled_last_warp;
};

}  // namespace parprim::detail::cuda
