#pragma once
/// \file
/// \brief Element copies from global to shared memory that hold no register while in flight
/// (`cp.async` of 4 or 8 bytes, sm_80 and later): every thread of a block asks for its
/// elements at once and waits once, so a block that needs many scattered words pays one memory
/// latency instead of one per word it could hold in registers. Elements of other sizes, and
/// GPUs before sm_80, take plain loads and stores (same result).

#include <cstdint>

namespace parprim::detail::cuda {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
inline constexpr bool async_copy_available = true;
#else
inline constexpr bool async_copy_available = false;
#endif

/// \brief This thread's part of copying `count` elements from global `src` to shared `dst`:
/// elements threadIdx.x, threadIdx.x + Block, ... Asynchronous where `cp.async` serves (then
/// wait_async_copies, then a barrier, before any thread reads `dst`); plain otherwise (the
/// barrier is still needed before other threads read).
template <unsigned Block, class E>
__device__ __forceinline__ void start_async_copy(E* dst, const E* src, unsigned count) {
  if constexpr (async_copy_available && (sizeof(E) == 4 || sizeof(E) == 8)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    for (unsigned j = threadIdx.x; j < count; j += Block)
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                       static_cast<unsigned>(__cvta_generic_to_shared(dst + j))),
                   "l"(src + j), "n"(sizeof(E))
                   : "memory");
#endif
  } else {
    for (unsigned j = threadIdx.x; j < count; j += Block) dst[j] = src[j];
  }
}

/// \brief Waits for this thread's copies started by start_async_copy (a barrier after it makes
/// every thread's visible to the block).
template <class E>
__device__ __forceinline__ void wait_async_copies() {
  if constexpr (async_copy_available && (sizeof(E) == 4 || sizeof(E) == 8)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
  }
}

}  // namespace parprim::detail::cuda
