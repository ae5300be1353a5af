#pragma once
/// \file
/// \brief Hopper's bulk copies (the TMA's one-dimensional `cp.async.bulk`) between global and
/// shared memory, and the shared-memory barrier a bulk load completes on. PTX wrappers for
/// sm_90 and later; `bulk_copy_available` says whether the code being compiled has them (the
/// callers fall back to plain loads and stores where it does not).
///
/// Rules the callers keep: addresses (global and shared) 16-byte aligned, sizes multiples of 16
/// bytes; a thread that wrote shared memory with plain stores calls `fence_shared_for_bulk`
/// before a barrier after which a bulk store reads that memory; a block waits for its bulk
/// stores to have read their shared memory (`bulk_store_wait_read`) before it exits.

#include <cstdint>

namespace parprim::detail::cuda {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
inline constexpr bool bulk_copy_available = true;
#else
inline constexpr bool bulk_copy_available = false;
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// \brief Initialises `barrier` for one arrival (by the thread that starts the bulk load).
__device__ __forceinline__ void bulk_barrier_init(std::uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// \brief The calling thread's arrival on `barrier`, announcing the `bytes` that the bulk loads
/// completing on it will bring: its phase 0 completes when they have all arrived.
__device__ __forceinline__ void bulk_barrier_expect(std::uint64_t* barrier, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#endif
}

/// \brief Copies `bytes` from global `src` to shared `dst`, completing on `barrier` (whose
/// expected bytes include these).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          std::uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(dst)),
      "l"(src), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
#endif
}

/// \brief Asks the L2 cache to fetch `bytes` from global `src` ahead of a later load; nothing
/// to wait for (a hint: the memory is not changed, and the later load is correct either way).
__device__ __forceinline__ void bulk_prefetch_l2(const void* src, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
#endif
}

/// \brief Waits until the barrier's phase of `parity` has completed (the bulk loads' bytes are
/// visible): phase 0 for a barrier's first use, then 1, 0, ... for a barrier used again.
__device__ __forceinline__ void bulk_barrier_wait(std::uint64_t* barrier, unsigned parity = 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
#else
  (void)barrier;
  (void)parity;
#endif
}

/// \brief Orders this thread's plain shared-memory stores before later bulk copies' reads.
__device__ __forceinline__ void fence_shared_for_bulk() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/// \brief Copies `bytes` from shared `src` to global `dst`.
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(shared_address(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

/// \brief Waits until this thread's bulk stores have written global memory, and orders those
/// writes before the thread's later generic accesses (a fence that publishes them then covers
/// them).
__device__ __forceinline__ void bulk_store_wait_written() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
}

/// \brief Waits until this thread's bulk stores have read their shared memory.
__device__ __forceinline__ void bulk_store_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}

}  // namespace parprim::detail::cuda
