#pragma once
/// \file
/// \brief Programmatic dependent launch (sm_90 and later), the kernels' side. A kernel launched
/// with `launch_kernel(true, ...)` (detail/launch.cuh) may start while the kernel before it on the
/// stream still runs, once every block of that kernel has called `allow_dependent_launch` (or
/// exited), so its launch and its first requests overlap the kernel before it. Such a kernel calls
/// `wait_for_prior_grid` before it reads anything the kernel before it writes, and writes
/// nothing before it: the wait returns once that kernel has finished and its stores are visible.
/// In a kernel launched without the attribute the wait returns at once. Below sm_90 both are
/// empty (the launch then waits for the kernel before it, as any launch does).

namespace parprim::detail::cuda {

/// \brief Called by every thread (or one per block) of the kernel a dependent launch follows:
/// from here its dependent kernel may be scheduled.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// \brief Called by every thread of a dependent kernel before it reads what the kernel before
/// it on the stream wrote, or writes anything.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace parprim::detail::cuda
