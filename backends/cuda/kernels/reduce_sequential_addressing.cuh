#pragma once
/// \file
/// \brief Rung 3, sequential addressing: at step s thread t < s combines `sdata[t]` with
/// `sdata[t + s]` (block/shared_tree.cuh). Consecutive threads read consecutive words: no bank
/// conflicts, no divergence until fewer than 32 threads are active. Half the threads are idle
/// from the first step on (rung 4 fixes that). Reorders operands: commutative operators only.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

struct sequential_addressing {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::sequential_addressing;
  static constexpr unsigned block_size = 256;
  using loader = load_one_per_thread;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    return tree_sequential_addressing(sdata, valid, op);
  }
};

/// \brief The rung number as an alias.
using reduce_k3 = sequential_addressing;

template <>
struct tree_rung<cuda_reduce_rung::sequential_addressing> {
  using type = sequential_addressing;
};

}  // namespace parprim::detail::cuda
