#pragma once
/// \file
/// \brief Rung 4, first add during load: each thread combines two elements, B apart, while
/// loading (block/load.cuh, `load_first_add`), so a block covers 2B elements and the grid is
/// half as large; then the sequential-addressing tree of rung 3. Reorders operands.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

struct first_add_during_load {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::first_add_during_load;
  static constexpr unsigned block_size = 256;
  using loader = load_first_add;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    return tree_sequential_addressing(sdata, valid, op);
  }
};

/// \brief The rung number as an alias.
using reduce_k4 = first_add_during_load;

template <>
struct tree_rung<cuda_reduce_rung::first_add_during_load> {
  using type = first_add_during_load;
};

}  // namespace parprim::detail::cuda
