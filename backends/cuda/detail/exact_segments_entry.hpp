#pragma once
/// \file
/// \brief The entry points of parprim::exact_plus per segment on the GPU (segmented scans, which
/// the scans by key run on their runs' head flags; segmented_reduce with head flags or offsets;
/// reduce_by_key), as plain C++:
/// declarations, which combinations `parprim::cuda` precompiles (float and double elements
/// into results of their type; keys and offsets as for the other per-segment calls), and
/// `extern template` declarations of those. The definitions are in
/// detail/exact_segments_launch.cuh (kernels in kernels/segments_exact_sum.cuh), which only
/// nvcc sees. Every result is the exact sum of its operands rounded once; each entry waits
/// for the GPU unless `options.sync` is false.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/backends/cuda/detail/segments_entry.hpp>
#include <parprim/detail/exact_accumulator.hpp>

namespace parprim::detail::cuda {

/// \brief Segmented exact scan of n elements with one-byte head flags: inclusive
/// `out[i] = RN(in[h] + ... + in[i])`, exclusive `RN(init + in[h] + ... + in[i - 1])` (h the
/// head of i's segment; `init` required for exclusive). `out` may equal `in`.
template <class In, class F>
void exact_segmented_scan(const launch_options& options, const In* in, const std::uint8_t* flags,
                          F* out, std::size_t n, scan_kind kind, const exact_accumulator<F>* init);

/// \brief segmented_reduce with head flags: `out[s] = RN(init + segment s's elements)` for the
/// `plan.segments()` segments.
template <class In, class F>
void exact_flag_segments(const launch_options& options, const segment_plan& plan, const In* in,
                         const std::uint8_t* flags, F* out, const exact_accumulator<F>& init);

/// \brief reduce_by_key: `keys_out[s]`, `out[s]` = run s's first key and its sum rounded.
template <class K, class In, class F>
void exact_key_segments(const launch_options& options, const segment_plan& plan, const K* keys,
                        const In* in, K* keys_out, F* out);

/// \brief segmented_reduce with checked CSR offsets: `out[s] = RN(init + elements
/// [begins[s], begins[s + 1]))`, `RN(init)` for an empty segment.
template <class I, class In, class F>
void exact_offset_segments(const launch_options& options, const In* in, std::size_t n,
                           const I* begins, std::size_t k, F* out,
                           const exact_accumulator<F>& init);

/// \brief Whether libparprim_cuda holds these entries for elements `In`, results `F` and keys
/// or offsets `Index` (void: none).
template <class Index, class In, class F>
inline constexpr bool precompiled_exact_segments_v = precompiled_exact_v<In, F> &&
                                                     (std::is_void_v<Index> ||
                                                      precompiled_segment_index_v<Index>);

}  // namespace parprim::detail::cuda

namespace parprim::detail {

/// \brief The compile-time requirements of the exact per-segment calls on the GPU: elements
/// that convert to the float or double result, and where nvcc does not compile the call,
/// precompiled types (`Index`: the keys' or offsets' type, void: none).
template <class Index, class In, class F>
constexpr void check_cuda_exact_segment_types() {
  static_assert(std::is_convertible_v<const In&, F>,
                "parprim::exact_plus per segment on parprim::cuda: the elements must convert to "
                "the output's float or double type");
#if !defined(__CUDACC__)
  static_assert(cuda::precompiled_exact_segments_v<Index, In, F>,
                "parprim::exact_plus per segment on parprim::cuda from a translation unit not "
                "compiled by nvcc: float and double elements into results of their type, keys and "
                "offsets of int32_t, int64_t or uint64_t are precompiled; for other types make "
                "this a .cu file");
#endif
}

}  // namespace parprim::detail

#define PARPRIM_CUDA_EXACT_SEGMENTED_SCAN_SIGNATURE(F)                                   \
  void parprim::detail::cuda::exact_segmented_scan<F, F>(                                \
      const ::parprim::detail::cuda::launch_options&, const F*, const std::uint8_t*, F*, \
      std::size_t, ::parprim::detail::cuda::scan_kind,                                   \
      const ::parprim::detail::exact_accumulator<F>*)
#define PARPRIM_CUDA_EXACT_FLAG_SEGMENTS_SIGNATURE(F)                                  \
  void parprim::detail::cuda::exact_flag_segments<F, F>(                               \
      const ::parprim::detail::cuda::launch_options&,                                  \
      const ::parprim::detail::cuda::segment_plan&, const F*, const std::uint8_t*, F*, \
      const ::parprim::detail::exact_accumulator<F>&)
#define PARPRIM_CUDA_EXACT_KEY_SEGMENTS_SIGNATURE(F, I)    \
  void parprim::detail::cuda::exact_key_segments<I, F, F>( \
      const ::parprim::detail::cuda::launch_options&,      \
      const ::parprim::detail::cuda::segment_plan&, const I*, const F*, I*, F*)
#define PARPRIM_CUDA_EXACT_OFFSET_SEGMENTS_SIGNATURE(F, I)                             \
  void parprim::detail::cuda::exact_offset_segments<I, F, F>(                          \
      const ::parprim::detail::cuda::launch_options&, const F*, std::size_t, const I*, \
      std::size_t, F*, const ::parprim::detail::exact_accumulator<F>&)
/// \brief `Prefix` (`extern template` or `template`) before every precompiled entry of `F`.
#define PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE_INDEX(Prefix, F, I) \
  Prefix PARPRIM_CUDA_EXACT_KEY_SEGMENTS_SIGNATURE(F, I);       \
  Prefix PARPRIM_CUDA_EXACT_OFFSET_SEGMENTS_SIGNATURE(F, I);
#define PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE(Prefix, F)               \
  Prefix PARPRIM_CUDA_EXACT_SEGMENTED_SCAN_SIGNATURE(F);             \
  Prefix PARPRIM_CUDA_EXACT_FLAG_SEGMENTS_SIGNATURE(F);              \
  PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE_INDEX(Prefix, F, std::int32_t) \
  PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE_INDEX(Prefix, F, std::int64_t) \
  PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE_INDEX(Prefix, F, std::uint64_t)

PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE(extern template, float)
PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE(extern template, double)
