#pragma once
/// \file
/// \brief The CUDA scan benchmarks (bench/cuda/scan_*): names, inputs, checks and the timing
/// loop. Names:
///
///   scan/inclusive/<competitor>/<type>/n:<N>/manual_time
///     competitor: cuda_k1_kogge_stone, cuda_k2_brent_kung, cuda_k3_coarsened_three_phase,
///                 cuda_k4_warp_reduce_then_scan, cuda_k5_decoupled_look_back,
///                 cuda_k6_tma_staged_look_back (parprim's public API), cub_inclusive_sum
///                 (DeviceScan::InclusiveSum), cub_inclusive_scan (DeviceScan::InclusiveScan with
///                 cuda::std::plus), thrust_inclusive_scan, cuda_transform_identity
///                 (transform_inclusive_scan, default rung, f(x) = x); float types also
///                 cuda_nondeterministic (the default rung with .deterministic(false)) and
///                 cuda_exact_plus (parprim::exact_plus: the exact prefixes, rounded once)
///   scan/exclusive/<competitor>/<type>/n:<N>/manual_time
///     competitor: cuda_k5_decoupled_look_back, cuda_k6_tma_staged_look_back (init 0),
///                 cub_exclusive_sum
///   segmented_scan/inclusive/<competitor>/<type>/seg:<L>/n:<N>/manual_time
///     competitor: cuda_k4_warp_reduce_then_scan, cuda_k5_decoupled_look_back,
///                 cuda_k6_tma_staged_look_back (one-byte head flags), cub_inclusive_sum_by_key
///                 (DeviceScan::InclusiveSumByKey), thrust_inclusive_scan_by_key (int32 keys = the
///                 inclusive scan of the same flags, made outside the timed region);
///                 cuda_inclusive_scan_by_key (parprim::inclusive_scan_by_key on those keys) for
///                 int32 at seg:1024 only;
///                 cuda_k1_kogge_stone, cuda_k2_brent_kung, cuda_k3_coarsened_three_phase at
///                 seg:1024 only
///     L: 32, 1024, 65536 (every L-th element is a head), random (heads drawn with
///        probability 1/1024: geometric lengths, mean 1024)
///
/// with type int32, float32, float64 and N = 2^20, 2^24, 2^28, 2^30 (cuda_bench.hpp's axis;
/// a size whose buffers would not fit in 3/4 of the GPU's memory is skipped with a message).
/// CCCL 3.0 has no segmented scan by offsets (no cub::DeviceSegmentedScan), so there is no such
/// anchor; the copy roof is roof/cuda_copy_d2d (copy_roof.cpp).
///
/// Method, as for the reductions (cuda_bench.hpp): the values come from inputs_for<T>(n)
/// (identical rotated buffers, together > 3x L2, small integers in [-8, 8], so every prefix is
/// an exact integer in float and double too); head flags and keys are rotated with them; one
/// output buffer. 3 warm-up calls; each timed call is bracketed by CUDA events on the bench
/// stream and is synchronous: parprim's calls return after synchronising their stream, and the
/// CUB and Thrust anchors synchronise the stream inside the timed interval too (CUB's temporary
/// storage is allocated once, outside the timing; Thrust allocates its own, as its users get).
/// 5 repetitions, median reported. Each competitor's output is checked element by element on
/// the GPU (out[i] = out[i-1] + x[i], or x[i] at a head; exclusive: out[i-1] + x[i-1], out[0] =
/// 0), on a poisoned output before the timed loop and again after it.
///
/// Counters: bytes_per_second = GB/s of VALUES read (n * sizeof(T): the targets in docs/kernels.md
/// are in this unit; flags and keys are not counted), items_per_second = elements/s, and `traffic`
/// = the least bytes the competitor must move per second: values read + output written, plus n
/// one-byte flags (parprim segmented) or n four-byte keys (the by-key rows).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {

/// \brief The arguments of one timed call: one rotation's buffers.
template <class T>
struct scan_args {
  const T* x = nullptr;                 ///< n values
  const std::uint8_t* flags = nullptr;  ///< n head flags (segmented), else null
  const std::int32_t* keys = nullptr;   ///< n keys (by-key anchors), else null
  T* out = nullptr;                     ///< n outputs
  std::size_t n = 0;
};

/// \brief What the output must hold.
enum class scan_check { inclusive, exclusive, segmented_inclusive };

/// \brief A segment-length axis value: L > 0 for every L-th element a head, 0 for random heads
/// with probability 1/1024.
inline std::string segment_name(std::size_t length) {
  return length ? std::to_string(length) : std::string("random");
}

/// \brief Head flags (and, when asked for, keys) of n elements for segment length `length`,
/// `copies` identical copies of each (rotated with the values). One set is alive at a time.
/// Instantiated in scan_inputs.cu.
struct segment_inputs {
  std::vector<const std::uint8_t*> flags;
  std::vector<const std::int32_t*> keys;  // empty unless asked for
};
/// \return the set, or nullptr when a CUDA allocation failed
const segment_inputs* segments_for(std::size_t n, std::size_t length, std::size_t copies,
                                   bool keys);

/// \brief The output buffer of `bytes` (one, reused; reallocated when the size changes).
/// \return nullptr when the allocation failed
void* scan_output(std::size_t bytes);

/// \brief "" when `out` is the scan `what` of `x` (and `flags`), else what is wrong. Runs on
/// the GPU. Instantiated for int32, float, double in scan_inputs.cu.
template <class T>
std::string check_scan(const T* x, const std::uint8_t* flags, const T* out, std::size_t n,
                       scan_check what);

/// \brief Whether `bytes` in all fit in 3/4 of the GPU's memory.
bool scan_fits(std::size_t bytes);

/// \brief scan_fits(bytes), else skips the benchmark with how many GiB it needs.
inline bool fits_or_skip(benchmark::State& state, std::size_t bytes) {
  if (scan_fits(bytes)) return true;
  state.SkipWithError(
      ("needs " + std::to_string(bytes >> 30) + " GiB of GPU memory: more than 3/4 of this GPU's")
          .c_str());
  return false;
}

// The CUB and Thrust anchors (scan_cub_thrust.cu): each returns after synchronising the bench
// stream. Instantiated for int32, float, double.
template <class T>
void cub_inclusive_sum(const scan_args<T>& a);
template <class T>
void cub_exclusive_sum(const scan_args<T>& a);
template <class T>
void cub_inclusive_scan(const scan_args<T>& a);
template <class T>
void thrust_inclusive_scan(const scan_args<T>& a);
/// \brief parprim::transform_inclusive_scan with a transform that returns its argument (a
/// distinct functor type, so the call takes the transforms' path; transform.cu).
template <class T>
void cuda_transform_inclusive_scan(const scan_args<T>& a);
template <class T>
void cub_inclusive_sum_by_key(const scan_args<T>& a);
template <class T>
void thrust_inclusive_scan_by_key(const scan_args<T>& a);

/// \brief How one benchmark is set up.
struct scan_setup {
  std::size_t n = 0;
  bool segmented = false;
  std::size_t length = 0;  ///< segment length (segmented)
  bool keys = false;       ///< the competitor reads keys
  scan_check what = scan_check::inclusive;
};

/// \brief Times `call(args)` over the rotated inputs; checks the output before and after.
template <class T, class Call>
void run_scan(benchmark::State& state, const scan_setup& s, Call call) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  const std::size_t n = s.n;
  // Memory: the rotated values (as inputs_for makes them), the output, flags and keys.
  const std::size_t value_bytes = n * sizeof(T);
  const std::size_t copies = rotation_count(value_bytes);
  const std::size_t need =
      copies * value_bytes + value_bytes +
      (s.segmented ? copies * n * (1 + (s.keys ? sizeof(std::int32_t) : 0)) : 0);
  if (!fits_or_skip(state, need)) return;
  const auto& in = inputs_for<T>(n);
  const std::size_t rotations = in.buffers.size();
  const segment_inputs* seg = s.segmented ? segments_for(n, s.length, rotations, s.keys) : nullptr;
  T* out = static_cast<T*>(scan_output(value_bytes));
  if (out == nullptr || (s.segmented && seg == nullptr)) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  const auto args = [&](std::size_t k) {
    scan_args<T> a;
    a.x = in.buffers[k % rotations];
    if (seg) {
      a.flags = seg->flags[k % rotations];
      if (s.keys) a.keys = seg->keys[k % rotations];
    }
    a.out = out;
    a.n = n;
    return a;
  };
  const cudaStream_t stream = bench_stream();
  std::size_t next = 0;
  for (int w = 0; w < 3; ++w) call(args(next++));
  // The checked call: on a poisoned output, so the check sees this call's result.
  cudaMemsetAsync(out, 0xA5, value_bytes, stream);
  call(args(0));
  cudaStreamSynchronize(stream);
  std::string error = check_scan<T>(in.buffers[0], seg ? seg->flags[0] : nullptr, out, n, s.what);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  time_rotations(state, next, [&](std::size_t k) { call(args(k)); });
  // The last timed call's output (every rotation holds the same input).
  const std::size_t last = (next - 1) % rotations;
  error = check_scan<T>(in.buffers[last], seg ? seg->flags[last] : nullptr, out, n, s.what);
  if (!error.empty()) state.SkipWithError(("after the timed loop: " + error).c_str());
  const auto it = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(it * static_cast<std::int64_t>(value_bytes));
  double traffic = 2.0 * static_cast<double>(value_bytes);
  if (s.segmented)
    traffic += static_cast<double>(n) * (s.keys ? sizeof(std::int32_t) : sizeof(std::uint8_t));
  state.counters["traffic"] =
      benchmark::Counter(traffic, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace parprim_bench::cuda
