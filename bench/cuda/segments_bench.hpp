#pragma once
/// \file
/// \brief The CUDA per-segment benchmarks (bench/cuda/segments*): names, method, the arguments of
/// one call and the CUB anchors (segments_cub.cu); the inputs, host check, timing loop, parprim's
/// rows and the registration are in segments.cpp. Names:
///
///   segmented_reduce/<competitor>/<type>/seg:<L>/n:<N>/manual_time
///     competitor: cuda (parprim::segmented_reduce with parprim::offsets, k + 1 int32 offsets),
///                 cub_segmented_reduce_sum (cub::DeviceSegmentedReduce::Sum on the same offsets:
///                 begins `offsets`, ends `offsets + 1`); cuda_head_flags (parprim's head-flag
///                 form, one-byte flags, every L-th element a head) at seg:1024 only
///     L: 1, 32, 1024, 65536 (fixed lengths, the last segment cut at n), n (one segment of n),
///        mixed (power-law lengths 1 + floor(2^(17 U)), U uniform in [0, 1) from a fixed seed:
///        mean about 11,000, from 2 to 131,072; the last cut at n)
///   reduce_by_key/<competitor>/<type>/seg:<L>/n:<N>/manual_time
///     competitor: cuda (parprim::reduce_by_key, int32 keys), cub_reduce_by_key
///                 (cub::DeviceReduce::ReduceByKey with cuda::std::plus<>, the number of runs
///                 copied to pinned host memory inside the timed interval)
///     L: 1, 32, 1024: runs of L equal keys, the key one more at each run (scan_bench.hpp's
///        keys: the inclusive scan of the head flags)
///   segmented_scan/inclusive/cuda_inclusive_scan_by_key/<type>/seg:1024/n:<N>/manual_time
///     parprim::inclusive_scan_by_key on the keys of cub_inclusive_sum_by_key's row, timed and
///     checked by run_scan beside it (registered in scan_ladder.cpp; scan_bench.hpp)
///
/// with type int32 and N = 2^20, 2^24, 2^28, 2^30 (cuda_bench.hpp's axis; a size whose buffers
/// would not fit in 3/4 of the GPU's memory is skipped with a message). The copy roof is
/// roof/cuda_copy_d2d (copy_roof.cpp); bench/report puts each row's traffic over the roof's.
///
/// Method, as for the scans (scan_bench.hpp): the values are inputs_for<T>(n) (identical rotated
/// buffers, together > 3x L2, integers in [-8, 8]); the flags and keys are segments_for's
/// (scan_inputs.cu), the offsets are made on the host once per (n, L) and copied to as many
/// rotated device buffers as there are value buffers; one output buffer (scan_output). The
/// registration order is (n, L) outermost and competitor innermost, so every competitor of one
/// input set runs one after the other on the same buffers. 3 warm-up calls; each timed call is
/// bracketed by CUDA events on the bench stream and is synchronous (parprim's calls return after
/// synchronising; the CUB anchors synchronise inside the timed interval; CUB's temporary storage
/// is cub_temp_storage's block, grown in the warm-up). 5 repetitions, median reported. Once per
/// benchmark instance (the first repetition, as the host benches' first_time; the verdict is kept
/// for the others), a call on a poisoned output is checked against a host reference: every
/// segment's sum (and, by key, every run's key) from a host copy of the values, and the number
/// of segments; a wrong result skips the benchmark, every repetition, with an error.
///
/// Counters, as the CUDA scans: bytes_per_second = GB/s of VALUES read (n * sizeof(T)),
/// items_per_second = elements/s, `traffic` = the least bytes the competitor must move per
/// second: values + (k + 1) four-byte offsets, n one-byte flags or n four-byte keys read, plus
/// k results (and k keys, by key) written, k the number of segments.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {

/// \brief Segment lengths besides fixed ones (segment_setup::length).
inline constexpr std::size_t one_segment = ~std::size_t(0);  ///< seg:n, one segment of n
inline constexpr std::size_t mixed_lengths = 0;              ///< seg:mixed, power-law lengths

/// \brief The `seg:` value of a length: the number, "n" or "mixed".
inline std::string segment_length_name(std::size_t length) {
  if (length == one_segment) return "n";
  if (length == mixed_lengths) return "mixed";
  return std::to_string(length);
}

/// \brief How the segments reach the competitor.
enum class segment_form { offsets, head_flags, keys };

/// \brief The arguments of one timed call: one rotation's buffers.
template <class T>
struct segment_args {
  const T* x = nullptr;                   ///< n values
  const std::int32_t* offsets = nullptr;  ///< k + 1 offsets (offsets form), else null
  const std::uint8_t* flags = nullptr;    ///< n head flags (head_flags form), else null
  const std::int32_t* keys = nullptr;     ///< n keys (keys form), else null
  T* out = nullptr;                       ///< room for `room` results (k: offsets form)
  std::int32_t* keys_out = nullptr;       ///< room for `room` keys (keys form), else null
  std::size_t n = 0;
  std::size_t segments = 0;  ///< k
  std::size_t room = 0;      ///< k, or n (segment_setup::room_for_n)
};

/// \brief How one benchmark is set up.
struct segment_setup {
  std::string key;  ///< the benchmark's name: its result is checked the first time only
  std::size_t n = 0;
  std::size_t length = 1024;  ///< a fixed length, one_segment or mixed_lengths (offsets only)
  segment_form form = segment_form::offsets;
  /// Outputs of n elements, as a caller who does not know the number of segments makes them
  /// (head flags and keys; parprim then counts while it reduces), else of exactly k.
  bool room_for_n = false;
};

// The CUB anchors (segments_cub.cu): each returns the number of segments it wrote, after
// synchronising the bench stream. Instantiated for int32.
template <class T>
std::size_t cub_segmented_reduce_sum(const segment_args<T>& a);
template <class T>
std::size_t cub_reduce_by_key(const segment_args<T>& a);

}  // namespace parprim_bench::cuda
