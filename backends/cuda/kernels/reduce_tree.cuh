#pragma once
/// \file
/// \brief The kernel shared by rungs 1-6: load (the rung's loader), barrier, shared-memory
/// tree (the rung's tree), one partial per block. A rung is a small struct naming its block
/// size, loader and tree; everything else, the multi-pass launch included
/// (detail/launch.cuh), is written once.
///
/// A rung struct provides:
/// - `rung`: its `cuda_reduce_rung`; `block_size`: threads per block (a power of two);
/// - `loader`: one of block/load.cuh;
/// - `template <class T, class Op> static __device__ T tree(T* sdata, unsigned valid, Op)`:
///   the fold of `sdata[0, valid)`, valid in thread 0.

#include <cstddef>

#include <parprim/backends/cuda/block/load.cuh>
#include <parprim/backends/cuda/block/shared_tree.cuh>

namespace parprim::detail::cuda {

/// \brief Block b writes the fold of its elements to `out[b]`; with `apply_init` (the last
/// pass, one block) it writes `op(init, fold)` instead.
template <class Rung, class In, class T, class Op>
__global__ void __launch_bounds__(Rung::block_size)
    reduce_tree_kernel(const In* __restrict__ in, std::size_t n, T* __restrict__ out, T init,
                       bool apply_init, Op op) {
  T* sdata = dynamic_shared<T>();
  const unsigned valid = Rung::loader::template load<Rung::block_size>(in, n, sdata, op);
  __syncthreads();
  const T r = Rung::tree(sdata, valid, op);
  if (threadIdx.x == 0) out[blockIdx.x] = apply_init ? static_cast<T>(op(init, r)) : r;
}

/// \brief Maps a rung number to its struct; each kernels/reduce_<name>.cuh specialises it.
template <cuda_reduce_rung R>
struct tree_rung;

}  // namespace parprim::detail::cuda
