#pragma once
/// \file
/// \brief Rung 2, interleaved addressing with a strided index: at step s thread t combines
/// `sdata[2st]` with `sdata[2st + s]`, so the active threads are packed into the first warps
/// (no divergence inside a warp). The same tree as rung 1, so it still preserves order, but
/// the 2s-strided shared-memory accesses make threads of a warp hit the same bank: bank
/// conflicts, growing with s.

#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/cuda_policy.hpp>

namespace parprim::detail::cuda {

struct interleaved_strided {
  static constexpr cuda_reduce_rung rung = cuda_reduce_rung::interleaved_strided;
  static constexpr unsigned block_size = 256;
  using loader = load_one_per_thread;

  template <class T, class Op>
  __device__ static T tree(T* sdata, unsigned valid, Op op) {
    const unsigned tid = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
      const unsigned index = 2 * s * tid;
      if (index + s < valid) sdata[index] = static_cast<T>(op(sdata[index], sdata[index + s]));
      __syncthreads();
    }
    return sdata[0];
  }
};

/// \brief The rung number as an alias.
using reduce_k2 = interleaved_strided;

template <>
struct tree_rung<cuda_reduce_rung::interleaved_strided> {
  using type = interleaved_strided;
};

}  // namespace parprim::detail::cuda
