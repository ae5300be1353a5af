#pragma once
/// \file
/// \brief The entry points of the CUDA scans, as plain C++: declarations, which (element,
/// accumulator, operator) combinations the `parprim::cuda` library precompiles, and `extern
/// template` declarations of those (as detail/reduce_entry.hpp does for reduce). The
/// definitions (kernels and launches) are in detail/scan_dispatch.cuh, which only nvcc sees.
///
/// Both entries take two optional host-side operands besides the input:
/// - `init` (exclusive scans only, required there): the left-most operand of every output
///   element (plain) or of every segment (segmented);
/// - `carry` (optional, nullptr: none): a value folded in front of the input, as if it were
///   the fold of elements before in[0]. The MPI backend uses it for the prefix of the ranks
///   on the left. Plain: `out[i] = [init op] carry op in[0] op ... `. Segmented: the carry
///   continues the first segment, which then starts at in[0] only if `flags[0] != 0` (without
///   a carry element 0 always starts a segment).
/// Both return after the stream was synchronised (errors of the kernels are raised here).

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief Inclusive (`out[i]` includes `in[i]`) or exclusive (it does not; `init` first).
enum class scan_kind : unsigned char { inclusive, exclusive };

/// \brief Scan of n >= 0 elements with rung `S`: inclusive
/// `out[i] = [carry op] in[0] op ... op in[i]`, exclusive
/// `out[i] = init op [carry op] in[0] op ... op in[i-1]`. `out` may equal `in` (same type).
/// \throws parprim::cuda_error, parprim::invalid_argument (host pointers, missing init)
template <cuda_scan_rung S, class In, class T, class Op>
void scan(const launch_options& options, const In* in, T* out, std::size_t n, scan_kind kind,
          const T* init, const T* carry, Op op);

/// \brief Segmented scan of n >= 0 elements with one-byte head flags (non-zero: a segment
/// starts there), rung `S`. Inclusive: `out[i] = in[h] op ... op in[i]` (h the head of i's
/// segment; the first segment preceded by `carry` when given). Exclusive: `init` at each
/// head, `init op in[h] op ... op in[i-1]` after it.
/// \throws parprim::cuda_error, parprim::invalid_argument
template <cuda_scan_rung S, class In, class T, class Op>
void segmented_scan(const launch_options& options, const In* in, const std::uint8_t* flags, T* out,
                    std::size_t n, scan_kind kind, const T* init, const T* carry, Op op);

/// \brief parprim::exact_plus scans of float or double (`F`): every output is the exact
/// prefix rounded once (kernels/scan_exact_sum.cuh), whatever the rung. Inclusive:
/// `out[i] = RN([carry +] in[0] + ... + in[i])`; exclusive: `RN(init [+ carry] + in[0] + ...
/// + in[i-1])`. `out` may equal `in`.
/// \throws parprim::cuda_error, parprim::invalid_argument (host pointers, missing init)
template <class In, class F>
void exact_scan(const launch_options& options, const In* in, F* out, std::size_t n, scan_kind kind,
                const exact_accumulator<F>* init, const exact_accumulator<F>* carry);

/// \brief Whether libparprim_cuda holds `exact_scan<In, F>`.
template <class In, class F>
inline constexpr bool precompiled_exact_scan_v = precompiled_exact_v<In, F>;

/// \brief Whether libparprim_cuda holds `scan` and `segmented_scan` for these types and every
/// rung (the same combinations as reduce).
template <class In, class T, class Op>
inline constexpr bool precompiled_scan_v = precompiled_reduce_v<In, T, Op>;

}  // namespace parprim::detail::cuda

/// \brief X(rung, T, Op) for every scan rung.
#define PARPRIM_CUDA_SCAN_FOR_RUNGS(X, T, Op) \
  X(kogge_stone, T, Op)                       \
  X(brent_kung, T, Op)                        \
  X(coarsened_three_phase, T, Op)             \
  X(warp_reduce_then_scan, T, Op)             \
  X(decoupled_look_back, T, Op)               \
  X(tma_staged_look_back, T, Op)
/// \brief X(rung, T, Op) for every scan rung and precompiled operator, for one type.
#define PARPRIM_CUDA_SCAN_FOR_TYPE(X, T)                \
  PARPRIM_CUDA_SCAN_FOR_RUNGS(X, T, ::parprim::plus)    \
  PARPRIM_CUDA_SCAN_FOR_RUNGS(X, T, ::parprim::minimum) \
  PARPRIM_CUDA_SCAN_FOR_RUNGS(X, T, ::parprim::maximum)
/// \brief X(rung, T, Op) for every precompiled combination (the reduce list).
#define PARPRIM_CUDA_SCAN_FOR_ALL(X)           \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, std::int32_t)  \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, std::uint32_t) \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, std::int64_t)  \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, std::uint64_t) \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, float)         \
  PARPRIM_CUDA_SCAN_FOR_TYPE(X, double)

#define PARPRIM_CUDA_SCAN_SIGNATURE(Rung, T, Op)                                 \
  void parprim::detail::cuda::scan<::parprim::cuda_scan_rung::Rung, T, T, Op>(   \
      const ::parprim::detail::cuda::launch_options&, const T*, T*, std::size_t, \
      ::parprim::detail::cuda::scan_kind, const T*, const T*, Op)
#define PARPRIM_CUDA_SEGMENTED_SCAN_SIGNATURE(Rung, T, Op)                               \
  void parprim::detail::cuda::segmented_scan<::parprim::cuda_scan_rung::Rung, T, T, Op>( \
      const ::parprim::detail::cuda::launch_options&, const T*, const std::uint8_t*, T*, \
      std::size_t, ::parprim::detail::cuda::scan_kind, const T*, const T*, Op)
#define PARPRIM_CUDA_EXACT_SCAN_SIGNATURE(F)                                              \
  void parprim::detail::cuda::exact_scan<F, F>(                                           \
      const ::parprim::detail::cuda::launch_options&, const F*, F*, std::size_t,          \
      ::parprim::detail::cuda::scan_kind, const ::parprim::detail::exact_accumulator<F>*, \
      const ::parprim::detail::exact_accumulator<F>*)
#define PARPRIM_CUDA_SCAN_EXTERN(Rung, T, Op)               \
  extern template PARPRIM_CUDA_SCAN_SIGNATURE(Rung, T, Op); \
  extern template PARPRIM_CUDA_SEGMENTED_SCAN_SIGNATURE(Rung, T, Op);
#define PARPRIM_CUDA_SCAN_INSTANTIATE(Rung, T, Op)   \
  template PARPRIM_CUDA_SCAN_SIGNATURE(Rung, T, Op); \
  template PARPRIM_CUDA_SEGMENTED_SCAN_SIGNATURE(Rung, T, Op);

PARPRIM_CUDA_SCAN_FOR_ALL(PARPRIM_CUDA_SCAN_EXTERN)
extern template PARPRIM_CUDA_EXACT_SCAN_SIGNATURE(float);
extern template PARPRIM_CUDA_EXACT_SCAN_SIGNATURE(double);
