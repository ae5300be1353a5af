#pragma once
/// \file
/// \brief The entry points of the CUDA reduction, as plain C++: their declarations, which
/// (element, accumulator, operator) combinations the `parprim::cuda` library precompiles, and
/// `extern template` declarations of those, so translation units compiled by g++ (and .cu
/// files that use them) link to the library instead of instantiating kernels.
///
/// The definition (kernels and launches) is in detail/reduce_dispatch.cuh, which only nvcc
/// sees. The list below is the single source: src/cuda/*.cu instantiate it.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/cuda_policy.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/operators.hpp>

struct CUstream_st;

namespace parprim::detail::cuda {

/// \brief Where and how a call runs: stream (nullptr: default stream), device (-1: current),
/// and the policy's options.
struct launch_options {
  CUstream_st* stream = nullptr;
  int device = -1;
  /// Scans (rung 5): float results identical from run to run (the default); reductions are
  /// always deterministic.
  bool deterministic = true;
  /// false (a `nosync()` policy): return once the work is enqueued.
  bool sync = true;
  /// The temporaries' source; nullptr: the cache (detail/temp_storage.hpp).
  cuda_memory_resource* memory = nullptr;
};

/// \brief The launch options of a CUDA policy.
template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
constexpr launch_options options_of(const basic_cuda_policy<R, S, Sync>& policy) noexcept {
  return launch_options{policy.stream(), policy.device_id(), policy.is_deterministic(), Sync,
                        policy.memory_resource()};
}

/// \brief `init op in[0] op ... op in[n-1]` on the GPU with rung `R`, for n >= 1; returns after
/// the stream was synchronised. \throws parprim::cuda_error, parprim::invalid_argument
template <cuda_reduce_rung R, class In, class T, class Op>
T reduce(const launch_options& options, const In* in, std::size_t n, T init, Op op);

/// \brief `init op in[0] op ... op in[n-1]` with rung `R`, written to `*out` (device, managed
/// or pinned memory, not overlapping the input) in stream order; any n (n == 0: `*out = init`).
/// With `options.sync` the call waits for the stream; without (a `nosync` policy) it returns
/// once the work is enqueued: read `*out` only after synchronising with the stream. The same
/// kernels as `reduce`, which is this call into a result slot, then a copy to the host.
/// Consecutive calls on one stream run back to back (the scratch is reused in stream order;
/// see run_into in detail/launch.cuh).
/// \throws parprim::cuda_error (a failed launch or CUDA call), parprim::invalid_argument
/// (null or host `out`, null or host input with n > 0, `out` inside the input, a stream of
/// another device)
template <cuda_reduce_rung R, class In, class T, class Op>
void reduce_into(const launch_options& options, const In* in, std::size_t n, T* out, T init, Op op);

/// \brief parprim::exact_plus on float or double (`F`): `init` plus the exact sum of
/// `in[0..n)` (each element converted to `F`), as a superaccumulator, on the host; any n.
/// Synchronous. \throws parprim::cuda_error, parprim::invalid_argument (a null or host input
/// with n > 0, a stream of another device)
template <class In, class F>
exact_accumulator<F> exact_fold(const launch_options& options, const In* in, std::size_t n,
                                const exact_accumulator<F>& init);

/// \brief parprim::reduce_into with parprim::exact_plus on float or double: the exact sum of
/// `init` and `in[0..n)` rounded once, written to `*out` (device memory) in stream order; any n.
/// As reduce_into otherwise (errors, `nosync`).
template <class In, class F>
void exact_reduce_into(const launch_options& options, const In* in, std::size_t n, F* out, F init);

template <class T, class... U>
inline constexpr bool one_of_v = (std::is_same_v<T, U> || ...);

/// \brief Whether libparprim_cuda holds `reduce<R, In, T, Op>` and `reduce_into<R, In, T, Op>`
/// for every rung R.
template <class In, class T, class Op>
inline constexpr bool precompiled_reduce_v =
    std::is_same_v<In, T>&& one_of_v<T, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t,
                                     float, double>&& one_of_v<Op, plus, minimum, maximum>;

/// \brief Whether libparprim_cuda holds `exact_fold<In, F>` and `exact_reduce_into<In, F>`.
template <class In, class F>
inline constexpr bool precompiled_exact_v = std::is_same_v<In, F>&& one_of_v<F, float, double>;

}  // namespace parprim::detail::cuda

/// \brief X(rung, T, Op) for every rung.
#define PARPRIM_CUDA_REDUCE_FOR_RUNGS(X, T, Op) \
  X(interleaved_divergent, T, Op)               \
  X(interleaved_strided, T, Op)                 \
  X(sequential_addressing, T, Op)               \
  X(first_add_during_load, T, Op)               \
  X(unrolled_last_warp, T, Op)                  \
  X(grid_stride_multiple_elements, T, Op)       \
  X(vectorized_single_pass, T, Op)
/// \brief X(rung, T, Op) for every rung and precompiled operator, for one type.
#define PARPRIM_CUDA_REDUCE_FOR_TYPE(X, T)                \
  PARPRIM_CUDA_REDUCE_FOR_RUNGS(X, T, ::parprim::plus)    \
  PARPRIM_CUDA_REDUCE_FOR_RUNGS(X, T, ::parprim::minimum) \
  PARPRIM_CUDA_REDUCE_FOR_RUNGS(X, T, ::parprim::maximum)
/// \brief X(rung, T, Op) for every precompiled combination (keep in step with
/// precompiled_reduce_v and src/cuda/).
#define PARPRIM_CUDA_REDUCE_FOR_ALL(X)           \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, std::int32_t)  \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, std::uint32_t) \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, std::int64_t)  \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, std::uint64_t) \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, float)         \
  PARPRIM_CUDA_REDUCE_FOR_TYPE(X, double)

/// \brief The signatures of one precompiled combination: the value on the host, and into
/// device memory.
#define PARPRIM_CUDA_REDUCE_SIGNATURE(Rung, T, Op)                              \
  T parprim::detail::cuda::reduce<::parprim::cuda_reduce_rung::Rung, T, T, Op>( \
      const ::parprim::detail::cuda::launch_options&, const T*, std::size_t, T, Op)
#define PARPRIM_CUDA_REDUCE_INTO_SIGNATURE(Rung, T, Op)                                 \
  void parprim::detail::cuda::reduce_into<::parprim::cuda_reduce_rung::Rung, T, T, Op>( \
      const ::parprim::detail::cuda::launch_options&, const T*, std::size_t, T*, T, Op)
#define PARPRIM_CUDA_REDUCE_EXTERN(Rung, T, Op)               \
  extern template PARPRIM_CUDA_REDUCE_SIGNATURE(Rung, T, Op); \
  extern template PARPRIM_CUDA_REDUCE_INTO_SIGNATURE(Rung, T, Op);
#define PARPRIM_CUDA_REDUCE_INSTANTIATE(Rung, T, Op)   \
  template PARPRIM_CUDA_REDUCE_SIGNATURE(Rung, T, Op); \
  template PARPRIM_CUDA_REDUCE_INTO_SIGNATURE(Rung, T, Op);

PARPRIM_CUDA_REDUCE_FOR_ALL(PARPRIM_CUDA_REDUCE_EXTERN)

/// \brief The signatures of the exact sum's precompiled entries for `F` (float, double).
#define PARPRIM_CUDA_EXACT_FOLD_SIGNATURE(F)                                       \
  ::parprim::detail::exact_accumulator<F> parprim::detail::cuda::exact_fold<F, F>( \
      const ::parprim::detail::cuda::launch_options&, const F*, std::size_t,       \
      const ::parprim::detail::exact_accumulator<F>&)
#define PARPRIM_CUDA_EXACT_INTO_SIGNATURE(F)           \
  void parprim::detail::cuda::exact_reduce_into<F, F>( \
      const ::parprim::detail::cuda::launch_options&, const F*, std::size_t, F*, F)
#define PARPRIM_CUDA_EXACT_EXTERN(F)                    \
  extern template PARPRIM_CUDA_EXACT_FOLD_SIGNATURE(F); \
  extern template PARPRIM_CUDA_EXACT_INTO_SIGNATURE(F);
#define PARPRIM_CUDA_EXACT_INSTANTIATE(F)        \
  template PARPRIM_CUDA_EXACT_FOLD_SIGNATURE(F); \
  template PARPRIM_CUDA_EXACT_INTO_SIGNATURE(F);

PARPRIM_CUDA_EXACT_EXTERN(float)
PARPRIM_CUDA_EXACT_EXTERN(double)
