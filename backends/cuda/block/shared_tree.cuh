#pragma once
/// \file
/// \brief Shared-memory trees that several rungs share. Threads [0, valid) hold a value in
/// `sdata[tid]` (1 <= valid <= blockDim.x, blockDim.x a power of two); the fold ends up in
/// thread 0. A pair is combined only when its right operand is among the valid values, so
/// no identity element is needed and any n works.

#include <parprim/backends/cuda/warp/warp_reduce.cuh>

namespace parprim::detail::cuda {

/// \brief `extern __shared__` memory as an array of `T` (one declaration for every `T`).
template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char parprim_dynamic_shared[];
  return reinterpret_cast<T*>(parprim_dynamic_shared);
}

/// \brief Sequential addressing (rungs 3 and 4): at step `s` thread `tid < s` combines
/// `sdata[tid]` with `sdata[tid + s]`, s = blockDim.x / 2, ..., 1. Consecutive threads touch
/// consecutive words (no bank conflicts) and the active threads stay packed in the first warps.
/// Reorders operands: element `tid + s` meets element `tid`.
template <class T, class Op>
__device__ T tree_sequential_addressing(T* sdata, unsigned valid, Op op) {
  const unsigned tid = threadIdx.x;
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s && tid + s < valid) sdata[tid] = static_cast<T>(op(sdata[tid], sdata[tid + s]));
    __syncthreads();
  }
  return sdata[0];
}

/// \brief One unrolled step of `tree_unrolled`: the block halves from 2 * S values to S.
template <unsigned BlockSize, unsigned S, class T, class Op>
__device__ __forceinline__ void unrolled_step(T* sdata, unsigned valid, Op op) {
  if constexpr (BlockSize >= 2 * S) {
    const unsigned tid = threadIdx.x;
    if (tid < S && tid + S < valid) sdata[tid] = static_cast<T>(op(sdata[tid], sdata[tid + S]));
    __syncthreads();
  }
}

/// \brief Sequential addressing unrolled by the compile-time block size (rungs 5 and 6): no
/// loop counter, no branch on it, and the barriers of the steps the block size rules out are
/// gone. The last 64 values are reduced by warp 0 alone: one shared-memory step, then warp
/// shuffles (`__shfl_down_sync`), instead of the lecture's `volatile` race.
template <unsigned BlockSize, class T, class Op>
__device__ T tree_unrolled(T* sdata, unsigned valid, Op op) {
  static_assert(
      BlockSize >= warp_threads && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0,
      "tree_unrolled: the block size is a power of two in [32, 1024]");
  unrolled_step<BlockSize, 512>(sdata, valid, op);
  unrolled_step<BlockSize, 256>(sdata, valid, op);
  unrolled_step<BlockSize, 128>(sdata, valid, op);
  unrolled_step<BlockSize, 64>(sdata, valid, op);
  const unsigned tid = threadIdx.x;
  T v = sdata[tid < valid ? tid : 0];
  if (tid < warp_threads) {
    if constexpr (BlockSize >= 2 * warp_threads)
      if (tid + warp_threads < valid) v = static_cast<T>(op(v, sdata[tid + warp_threads]));
    v = warp_reduce_halving(v, tid, valid < warp_threads ? valid : warp_threads, op);
  }
  return v;
}

}  // namespace parprim::detail::cuda
