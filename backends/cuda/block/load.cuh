#pragma once
/// \file
/// \brief How a block of the shared-memory rungs (1-6) reads its part of the input into
/// `sdata`: what "first add during load" and "several elements per thread" change. Each loader
/// gives the number of blocks for `n` elements (`grid`, host side) and fills `sdata[tid]` for
/// the threads that own at least one element; those always form a prefix [0, valid) of the
/// block, and `load` returns `valid`. Indices are 64-bit: any n works, n > 2^31 included.

#include <cstddef>

namespace parprim::detail::cuda {

/// \brief ceil(a / b).
__host__ __device__ constexpr std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

/// \brief Threads owning an element in a block whose first element is `first` (< n), when
/// thread t starts at element first + t: min(n - first, BlockSize).
template <unsigned BlockSize>
__device__ __forceinline__ unsigned valid_threads(std::size_t n, std::size_t first) {
  return n - first < BlockSize ? static_cast<unsigned>(n - first) : BlockSize;
}

/// \brief One element per thread (rungs 1-3): block b reads [b * B, (b + 1) * B).
struct load_one_per_thread {
  static std::size_t grid(std::size_t n, unsigned block_size) { return ceil_div(n, block_size); }

  template <unsigned B, class In, class T, class Op>
  __device__ static unsigned load(const In* __restrict__ in, std::size_t n, T* sdata, Op) {
    const std::size_t first = std::size_t(blockIdx.x) * B;
    const std::size_t i = first + threadIdx.x;
    if (i < n) sdata[threadIdx.x] = static_cast<T>(in[i]);
    return valid_threads<B>(n, first);
  }
};

/// \brief First add during load (rungs 4 and 5): block b reads 2B elements, thread t combines
/// elements t and t + B of them before anything touches shared memory. Half the blocks; no
/// thread is idle during the first step. Reorders operands.
struct load_first_add {
  static std::size_t grid(std::size_t n, unsigned block_size) {
    return ceil_div(n, 2 * std::size_t(block_size));
  }

  template <unsigned B, class In, class T, class Op>
  __device__ static unsigned load(const In* __restrict__ in, std::size_t n, T* sdata, Op op) {
    const std::size_t first = std::size_t(blockIdx.x) * 2 * B;
    const std::size_t i = first + threadIdx.x;
    if (i < n) {
      T v = static_cast<T>(in[i]);
      if (i + B < n) v = static_cast<T>(op(v, static_cast<T>(in[i + B])));
      sdata[threadIdx.x] = v;
    }
    return valid_threads<B>(n, first);
  }
};

/// \brief Several elements per thread, grid-stride (rung 6): the grid is cost-optimal,
/// p = n / log2(n) threads, so each thread folds about log2(n) elements (pairs t, t + B of
/// each 2B-tile it visits) sequentially before the tree; fewer blocks, fewer partials, no
/// idle multiprocessors. Reorders operands.
struct load_grid_stride {
  static std::size_t grid(std::size_t n, unsigned block_size) {
    unsigned log2n = 1;
    while (log2n < 63 && (std::size_t(1) << log2n) < n) ++log2n;
    const std::size_t threads = ceil_div(n, log2n);
    const std::size_t blocks = ceil_div(threads, block_size);
    const std::size_t most = ceil_div(n, 2 * std::size_t(block_size));  // every block busy
    return blocks < most ? blocks : most;
  }

  template <unsigned B, class In, class T, class Op>
  __device__ static unsigned load(const In* __restrict__ in, std::size_t n, T* sdata, Op op) {
    const std::size_t first = std::size_t(blockIdx.x) * 2 * B;
    const std::size_t stride = std::size_t(gridDim.x) * 2 * B;
    std::size_t i = first + threadIdx.x;
    if (i < n) {
      T v = static_cast<T>(in[i]);
      if (i + B < n) v = static_cast<T>(op(v, static_cast<T>(in[i + B])));
      for (i += stride; i < n; i += stride) {
        v = static_cast<T>(op(v, static_cast<T>(in[i])));
        if (i + B < n) v = static_cast<T>(op(v, static_cast<T>(in[i + B])));
      }
      sdata[threadIdx.x] = v;
    }
    return valid_threads<B>(n, first);
  }
};

}  // namespace parprim::detail::cuda
