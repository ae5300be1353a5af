#pragma once
/// \file
/// \brief The entry points of the CUDA per-segment calls (segmented_reduce, reduce_by_key, the
/// scans by key), as plain C++: declarations, which combinations `parprim::cuda` precompiles,
/// and `extern template` declarations of those. The definitions are in
/// detail/segments_dispatch.cuh (kernels in kernels/segment_tiles.cuh), which only nvcc sees.
///
/// Temporaries come from `temp_block` (the policy's memory resource, or the library's pool), not
/// from the per-stream cache, so a scan by key can hold its head flags while the segmented
/// scan it runs leases the cache.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/backends/cuda/detail/scan_entry.hpp>

namespace parprim::detail::cuda {

/// \brief What the head-flag and key-run reductions count before they write when `out` may be
/// too small: the number of segments.
class segment_plan {
 public:
  segment_plan(std::size_t n, std::size_t segments) noexcept : n_(n), segments_(segments) {}
  /// \return the number of segments (runs of equal keys)
  std::size_t segments() const noexcept { return segments_; }
  /// \return the elements it was made for
  std::size_t size() const noexcept { return n_; }

 private:
  std::size_t n_ = 0;
  std::size_t segments_ = 0;
};

/// \brief Counts the segments of n one-byte head flags (element 0 always starts one).
/// Synchronises the stream. \throws parprim::cuda_error, parprim::invalid_argument
segment_plan plan_flag_segments(const launch_options& options, const std::uint8_t* flags,
                                std::size_t n);

/// \brief Counts the runs of equal keys. Synchronises the stream.
template <class K>
segment_plan plan_key_segments(const launch_options& options, const K* keys, std::size_t n);

/// \brief `out[s] = init op (segment s's elements in order)` for every segment of the n
/// elements, when they all fit in `out`'s `room` elements; nothing is written otherwise. In one
/// pass where `room` >= n; below, the results go through a temporary of `room` elements, or
/// where that would move more bytes than the flags hold, the segments are counted first
/// (segments_dispatch.cuh: reduce_into_room). Waits for the stream.
/// \return the number of segments (more than `room`: nothing was written)
template <class In, class T, class Op>
std::size_t reduce_flag_segments(const launch_options& options, const In* in,
                                 const std::uint8_t* flags, std::size_t n, T* out, std::size_t room,
                                 T init, Op op);

/// \brief reduce_by_key: `keys_out[s]`, `out[s]` = run s's first key and the fold of its
/// elements, as reduce_flag_segments, both outputs of at least `room` elements.
/// \return the number of runs (more than `room`: nothing was written)
template <class K, class In, class T, class Op>
std::size_t reduce_key_segments(const launch_options& options, const K* keys, const In* in,
                                std::size_t n, K* keys_out, T* out, std::size_t room, Op op);

/// \brief Throws parprim::invalid_argument (naming `fn`) unless the k + 1 offsets start at 0,
/// end at n and never decrease. Synchronises the stream.
template <class I>
void check_segment_offsets(const launch_options& options, const I* begins, std::size_t k,
                           std::size_t n, const char* fn);

/// \brief `out[s]` = `init op` the elements [begins[s], begins[s + 1]) in order (`init` for an
/// empty segment), for k segments. Offsets not yet `checked` are checked as check_segment_offsets
/// does, with the same errors and nothing written before them: a synchronous call checks them
/// on the GPU in the reduction's own pass (and raises after the wait), an enqueue-only call
/// before it enqueues anything. With a few elements a segment on average (from 2^18 elements
/// and at least a quarter as many segments), the check comes first in both, and also tells
/// whether every segment is short enough for one thread a segment (segments::reduce_short).
template <class I, class In, class T, class Op>
void reduce_offset_segments(const launch_options& options, const In* in, std::size_t n,
                            const I* begins, std::size_t k, T* out, T init, Op op, bool checked);

/// \brief The scans by key on rung `S` (scan_dispatch.cuh): the segmented scan whose segments
/// are the runs of equal keys, read from the keys (no head flags in memory). Precompiled for
/// the default rung (tma_staged_look_back): int32, int64 and uint64 keys (`keys_read_in_tiles_v`).
template <cuda_scan_rung S, class K, class In, class T, class Op>
void key_segmented_scan(const launch_options& options, const In* in, const K* keys, T* out,
                        std::size_t n, scan_kind kind, const T* init, Op op);

/// \brief Whether the default rung's scans by key read keys `K` in its tiles
/// (key_segmented_scan) for inputs `In` scanned into `T`: keys of up to 4 bytes, and 8-byte keys
/// beside values of 4 or 8 bytes read as they are. H200, inclusive_scan_by_key against head flags
/// written first (dev/scan_by_key_sweep.cu): 2^28 int32 keys and values 994 us with the flags,
/// 926 with each thread reading its own run of keys, 809 with the warps reading theirs together
/// (CUB's InclusiveSumByKey 1,071); int64 keys: 2^28 int32 values 1,344 -> 1,041 us (CUB 1,292),
/// 2^27 int64 values 971 -> 817 (CUB 860), double values 1,067 -> 908 (CUB 859). The others
/// take the head flags from a temporary.
template <class K, class In, class T>
inline constexpr bool keys_read_in_tiles_v = sizeof(K) <= 4 ||
                                             (sizeof(K) == 8 && sizeof(In) == sizeof(T) &&
                                              (sizeof(T) == 4 || sizeof(T) == 8));

/// \brief Enqueues the one-byte head flags of the runs of equal keys, for the scans by key that
/// do not read their keys in the tiles (where `keys_read_in_tiles_v` is false, rungs other than
/// the default, exact_plus), which then run the segmented scan on them.
template <class K>
void enqueue_key_run_flags(const launch_options& options, const K* keys, std::size_t n,
                           std::uint8_t* flags);

/// \brief Whether libparprim_cuda holds the per-segment calls for keys or offsets of type
/// `Index` (int32_t, int64_t or uint64_t; the values as for reduce, `precompiled_reduce_v`).
template <class Index>
inline constexpr bool precompiled_segment_index_v =
    std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t> ||
    std::is_same_v<Index, std::uint64_t>;

}  // namespace parprim::detail::cuda

/// \brief X(I) for every precompiled key and offset type.
#define PARPRIM_CUDA_SEGMENTS_FOR_INDEX_TYPES(X) \
  X(std::int32_t)                                \
  X(std::int64_t)                                \
  X(std::uint64_t)
/// \brief X(T, Op) for every precompiled operator of one value type.
#define PARPRIM_CUDA_SEGMENTS_FOR_OPS(X, T) \
  X(T, ::parprim::plus)                     \
  X(T, ::parprim::minimum)                  \
  X(T, ::parprim::maximum)

#define PARPRIM_CUDA_FLAG_SEGMENTS_SIGNATURE(T, Op)                                               \
  std::size_t parprim::detail::cuda::reduce_flag_segments<T, T, Op>(                              \
      const ::parprim::detail::cuda::launch_options&, const T*, const std::uint8_t*, std::size_t, \
      T*, std::size_t, T, Op)
#define PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, I)                                          \
  std::size_t parprim::detail::cuda::reduce_key_segments<I, T, T, Op>(                         \
      const ::parprim::detail::cuda::launch_options&, const I*, const T*, std::size_t, I*, T*, \
      std::size_t, Op)
#define PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, I)                               \
  void parprim::detail::cuda::reduce_offset_segments<I, T, T, Op>(                     \
      const ::parprim::detail::cuda::launch_options&, const T*, std::size_t, const I*, \
      std::size_t, T*, T, Op, bool)
#define PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, I)                                                 \
  void parprim::detail::cuda::key_segmented_scan<::parprim::cuda_scan_rung::tma_staged_look_back, \
                                                 I, T, T, Op>(                                    \
      const ::parprim::detail::cuda::launch_options&, const T*, const I*, T*, std::size_t,        \
      ::parprim::detail::cuda::scan_kind, const T*, Op)
#define PARPRIM_CUDA_SEGMENTS_EXTERN(T, Op)                                    \
  extern template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::int32_t);        \
  extern template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::int64_t);        \
  extern template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::uint64_t);       \
  extern template PARPRIM_CUDA_FLAG_SEGMENTS_SIGNATURE(T, Op);                 \
  extern template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::int32_t);    \
  extern template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::int64_t);    \
  extern template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::uint64_t);   \
  extern template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::int32_t); \
  extern template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::int64_t); \
  extern template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::uint64_t);
#define PARPRIM_CUDA_SEGMENTS_INSTANTIATE(T, Op)                        \
  template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::int32_t);        \
  template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::int64_t);        \
  template PARPRIM_CUDA_KEY_SCAN_SIGNATURE(T, Op, std::uint64_t);       \
  template PARPRIM_CUDA_FLAG_SEGMENTS_SIGNATURE(T, Op);                 \
  template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::int32_t);    \
  template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::int64_t);    \
  template PARPRIM_CUDA_KEY_SEGMENTS_SIGNATURE(T, Op, std::uint64_t);   \
  template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::int32_t); \
  template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::int64_t); \
  template PARPRIM_CUDA_OFFSET_SEGMENTS_SIGNATURE(T, Op, std::uint64_t);
#define PARPRIM_CUDA_INDEX_EXTERN(I)                                                          \
  extern template ::parprim::detail::cuda::segment_plan                                       \
  parprim::detail::cuda::plan_key_segments<I>(const ::parprim::detail::cuda::launch_options&, \
                                              const I*, std::size_t);                         \
  extern template void parprim::detail::cuda::check_segment_offsets<I>(                       \
      const ::parprim::detail::cuda::launch_options&, const I*, std::size_t, std::size_t,     \
      const char*);                                                                           \
  extern template void parprim::detail::cuda::enqueue_key_run_flags<I>(                       \
      const ::parprim::detail::cuda::launch_options&, const I*, std::size_t, std::uint8_t*);
#define PARPRIM_CUDA_INDEX_INSTANTIATE(I)                                                     \
  template ::parprim::detail::cuda::segment_plan parprim::detail::cuda::plan_key_segments<I>( \
      const ::parprim::detail::cuda::launch_options&, const I*, std::size_t);                 \
  template void parprim::detail::cuda::check_segment_offsets<I>(                              \
      const ::parprim::detail::cuda::launch_options&, const I*, std::size_t, std::size_t,     \
      const char*);                                                                           \
  template void parprim::detail::cuda::enqueue_key_run_flags<I>(                              \
      const ::parprim::detail::cuda::launch_options&, const I*, std::size_t, std::uint8_t*);

PARPRIM_CUDA_SEGMENTS_FOR_INDEX_TYPES(PARPRIM_CUDA_INDEX_EXTERN)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, std::int32_t)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, std::uint32_t)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, std::int64_t)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, std::uint64_t)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, float)
PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_EXTERN, double)
