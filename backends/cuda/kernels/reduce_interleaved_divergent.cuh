#pragma once
/// \file
/// \brief Rung 1, interleaved addressing with `tid % (2*s)`: at step s the threads whose index
/// is a multiple of 2s combine their value with their neighbour s to the right. Correct and
/// order-preserving, but from the first step on every warp is divergent (half its threads,
/// then three quarters, ... idle inside a warp that still issues), and `%` is slow.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

struct interleaved_divergent {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::interleaved_divergent;
  static constexpr unsigned block_size = 256;
  using loader = load_one_per_thread;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    const unsigned tid = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
      if (tid % (2 * s) == 0 && tid + s < valid)
        sdata[tid] = static_cast<T>(op(sdata[tid], sdata[tid + s]));
      __syncthreads();
    }
    return sdata[0];
  }
};

/// \brief The rung number as an alias.
using reduce_k1 = interleaved_divergent;

template <>
struct tree_rung<cuda_reduce_rung::interleaved_divergent> {
  using type = interleaved_divergent;
};

}  // namespace parprim::detail::cuda
