#pragma once
/// \file
/// \brief Order-preserving block reductions built from warp shuffles (rung 7 and the
/// single-pass combine): warps reduce in registers, warp totals meet in a few words of shared
/// memory, warp 0 reduces those. Every thread of the block must call them.

#include <cstddef>

#include <parprim/backends/cuda/warp/warp_reduce.cuh>

namespace parprim::detail::cuda {

/// \brief Shared memory for one value per warp (raw bytes: `T` need not be trivially
/// constructible to live in `__shared__`).
template <class T, unsigned BlockSize>
struct warp_slots {
  alignas(T) unsigned char bytes[sizeof(T) * (BlockSize / warp_threads)];
  __device__ T* get() { return reinterpret_cast<T*>(bytes); }
};

/// \brief Thread 0 gets the fold, in warp order, of the totals of warps [0, warps_valid)
/// (each held by its lane 0); 1 <= warps_valid. Starts with a barrier-protected exchange;
/// `slots` may be reused after the next `__syncthreads()`.
template <unsigned BlockSize, class T, class Op>
__device__ T combine_warp_totals(T warp_total, unsigned warps_valid, Op op, T* slots) {
  static_assert(BlockSize % warp_threads == 0 && BlockSize <= 1024,
                "block size: multiple of 32, <= 1024");
  constexpr unsigned warps = BlockSize / warp_threads;
  if constexpr (warps == 1) {
    return warp_total;
  } else {
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned warp = threadIdx.x / warp_threads;
    if (lane == 0 && warp < warps_valid) slots[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
      const T w = slots[lane < warps_valid ? lane : 0];
      warp_total = warp_reduce_ordered(w, lane, warps_valid, op);
    }
    return warp_total;
  }
}

/// \brief Thread 0 gets the fold, in thread order, of the values of threads [0, valid);
/// 1 <= valid <= BlockSize.
template <unsigned BlockSize, class T, class Op>
__device__ T block_reduce_ordered(T v, unsigned valid, Op op, T* slots) {
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned first = threadIdx.x - lane;
  const unsigned in_warp =
      valid > first ? (valid - first < warp_threads ? valid - first : warp_threads) : 0;
  v = warp_reduce_ordered(v, lane, in_warp, op);
  return combine_warp_totals<BlockSize>(v, (valid + warp_threads - 1) / warp_threads, op, slots);
}

/// \brief Thread 0 gets the fold of `load(i)` for i in [begin, end) in index order
/// (end > begin). Warps take consecutive chunks of the range, lanes runs of `Run` consecutive
/// elements in each tile of 32 * Run; the loads of a run are independent, so they are in
/// flight together. Works for any associative operator.
template <unsigned BlockSize, unsigned Run, class T, class Load, class Op>
__device__ T block_fold_range_ordered(std::size_t begin, std::size_t end, Load load, Op op,
                                      T* slots) {
  constexpr unsigned warps = BlockSize / warp_threads;
  constexpr std::size_t tile = std::size_t(warp_threads) * Run;
  const std::size_t len = end - begin;
  const std::size_t per_warp = ((len + warps - 1) / warps + tile - 1) / tile * tile;
  const unsigned lane = threadIdx.x % warp_threads;
  const std::size_t warp = threadIdx.x / warp_threads;
  const std::size_t w_begin = begin + (warp * per_warp < len ? warp * per_warp : len);
  const std::size_t w_end = begin + ((warp + 1) * per_warp < len ? (warp + 1) * per_warp : len);

  T total = load(begin);  // any valid value; replaced by the first tile's fold
  bool first_tile = true;
  for (std::size_t t = w_begin; t < w_end; t += tile) {
    const std::size_t count = w_end - t < tile ? w_end - t : tile;
    const std::size_t mine = std::size_t(lane) * Run;
    // Indices are clamped into the tile, so every load is in bounds and none is predicated.
    T v = load(t + (mine < count ? mine : count - 1));
#pragma unroll
    for (unsigned k = 1; k < Run; ++k) {
      const T x = load(t + (mine + k < count ? mine + k : count - 1));
      if (mine + k < count) v = static_cast<T>(op(v, x));
    }
    v = warp_reduce_ordered(v, lane, static_cast<unsigned>((count + Run - 1) / Run), op);
    total = first_tile ? v : static_cast<T>(op(total, v));
    first_tile = false;
  }
  const auto warps_valid = static_cast<unsigned>((len + per_warp - 1) / per_warp);
  return combine_warp_totals<BlockSize>(total, warps_valid, op, slots);
}

}  // namespace parprim::detail::cuda
