#pragma once
/// \file
/// \brief The performance matrix of the CUDA backend against CUB (bench/cuda/matrix*): every
/// primitive x element type x operator x size, parprim's public call beside the CUB call doing
/// the same work. Names:
///
///   matrix/<primitive>/<type>/<op>/<competitor>/n:<N>/manual_time
///
///   primitive:  reduce, inclusive_scan, exclusive_scan, segmented_scan_<L> (segmented inclusive
///               scan, one-byte head flags, every L-th element a head; L = 1, 32, 1024, 65536) and
///               segmented_scan_one (one segment of n)
///   type:       int8_int32 (int8 input, int32 accumulator and results), int32, uint32, int64,
///               float32, float64, arg_f32_u32 (8 bytes: {float value; uint32 index}), affine_f64
///               (16 bytes: {double a, b}, the map x -> a x + b)
///   op:         plus, minimum, maximum for the built-in types; argmin (commutative, ties to the
///               lower index) for arg_f32_u32; affine_compose (NOT commutative: (a1, b1) then
///               (a2, b2) = (a2 a1, a2 b1 + b2)) for affine_f64
///   competitor: parprim (the default cuda policy on the bench stream: reduce returns the value
///               to the host, the scans return after synchronising the stream) and cub
///               (DeviceReduce::Sum / Min / Max / Reduce; DeviceScan::InclusiveSum / InclusiveScan,
///               ExclusiveSum / ExclusiveScan; InclusiveSumByKey / InclusiveScanByKey on int32 keys
///               = the inclusive scan of the flags, as scan_bench.hpp's by-key anchors; min and max
///               through ::cuda::minimum<> / ::cuda::maximum<>, the structs through their operator;
///               the result copied to pinned host memory and the stream synchronised, inside the
///               timed interval; the item count as `int`)
///   N:          2^16, 2^20, 2^24, 2^28; 2^27 instead of 2^28 for 8- and 16-byte types
///
///   matrix_device/<primitive>/<type>/<op>/<competitor>/n:<N>/manual_time
///
///   the same cells in device time: the GPU's time for the enqueued work alone, behind the stream
///   gate of cuda_bench.hpp (time_rotations behind the gate; no host launch gaps, no
///   synchronisation or copy of the result inside the interval): parprim with a `nosync()` policy
///   (reduce through reduce_into, the result in device memory), CUB without the copy and the
///   synchronisation. Counter `gate_timeouts` (should be 0). Filter with
///   --benchmark_filter='^matrix_device/'; `bench/tables/matrix_table.py --device` tables them.
///
/// Reduce and the exclusive scans start from the operator's identity on the built-in types (0,
/// the largest value, the lowest value) and from {+inf, UINT32_MAX} / {1, 0} for the structs;
/// CUB's Sum / Min / Max start from the same values. Filter the whole matrix with
/// --benchmark_filter='^matrix/'; bench/tables/matrix_table.py makes the table of CUB time over
/// parprim time and its heat map.
///
/// Method, as scan_bench.hpp's: the values are inputs_for<In>(n) (identical rotated buffers,
/// together > 3x L2; integers in [-8, 8]; the structs are {x, i} and {x < 0 ? -1 : 1, x} of
/// element x at index i, so every operator is exact and any order of evaluation gives the
/// sequential left fold's bits), flags and keys are segments_for's, one output buffer. The two
/// competitors of one cell are registered one after the other, registration order (type, n)
/// outermost, so the pair reads the same buffers. 3 warm-up calls; each timed call bracketed by
/// CUDA events on the bench stream; min time 0.005 s (matrix_min_time) and 5 repetitions, median
/// reported. Before the timed loop a call on a poisoned output is checked on the GPU: a scan
/// element by element against its recurrence (out[i] = op(out[i-1], x[i]), x[i] at a head;
/// exclusive: op(out[i-1], x[i-1]), out[0] = init), a reduction against an in-order fold (each
/// GPU thread folds a contiguous chunk, the host folds the chunks); the scans again after the
/// loop. A wrong result skips the benchmark with an error, so no wrong kernel posts a time.
/// Counters: bytes_per_second = GB/s of values read (n * sizeof(input)), items_per_second.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>

#include <parprim/detail/macros.hpp>
#include <parprim/operators.hpp>

#include "scan_bench.hpp"
#include "segments_bench.hpp"

namespace parprim_bench::cuda {

// --- the user types and operators ------------------------------------------------------------

/// \brief A value and where it was (8 bytes).
struct arg_f32_u32 {
  float value;
  std::uint32_t index;
  static constexpr const char* bench_name = "arg_f32_u32";
  static PARPRIM_HOST_DEVICE arg_f32_u32 from_element(std::int64_t x, std::uint64_t i) {
    return {static_cast<float>(x), static_cast<std::uint32_t>(i)};
  }
  friend PARPRIM_HOST_DEVICE bool operator==(const arg_f32_u32& l, const arg_f32_u32& r) {
    return l.value == r.value && l.index == r.index;
  }
};

/// \brief Argmin, ties to the lower index: associative and commutative.
struct argmin {
  static constexpr bool is_commutative = true;
  PARPRIM_HOST_DEVICE arg_f32_u32 operator()(const arg_f32_u32& l, const arg_f32_u32& r) const {
    if (r.value < l.value) return r;
    if (l.value < r.value) return l;
    return r.index < l.index ? r : l;
  }
};

/// \brief The map x -> a x + b (16 bytes).
struct affine_f64 {
  double a, b;
  static constexpr const char* bench_name = "affine_f64";
  static PARPRIM_HOST_DEVICE affine_f64 from_element(std::int64_t x, std::uint64_t) {
    return {x < 0 ? -1.0 : 1.0, static_cast<double>(x)};
  }
  friend PARPRIM_HOST_DEVICE bool operator==(const affine_f64& l, const affine_f64& r) {
    return l.a == r.a && l.b == r.b;
  }
};

/// \brief compose(f, g) = "f, then g" = (g.a f.a, g.a f.b + g.b): associative, not commutative.
struct affine_compose {
  PARPRIM_HOST_DEVICE affine_f64 operator()(const affine_f64& f, const affine_f64& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

// --- the axes --------------------------------------------------------------------------------

/// \brief The primitives of the matrix (segmented: the length is matrix_setup::length).
enum class matrix_primitive { reduce, inclusive, exclusive, segmented };

/// \brief Segment lengths of the segmented rows; one_segment (segments_bench.hpp) for
/// segmented_scan_one.
inline constexpr std::size_t matrix_segment_lengths[] = {1, 32, 1024, 65536, one_segment};

/// \brief Each repetition's least manual time (s). 1280 rows x 5 repetitions: at 2^16 a call
/// takes about 10 us on the GPU but 30-40 us of wall time (launch, synchronisation, events), so
/// 5 ms of GPU time is about 0.1 s a row with the iteration-count search and the checks; the
/// larger sizes need fewer iterations. On an H100 the synchronous rows took 76 s, the device-time
/// rows 117 s (the report's cap is 240 s for each); 0.01 s would be about twice that.
inline constexpr double matrix_min_time = 0.005;

/// \brief The matrix's element-type name of (In, Out).
template <class In, class Out>
std::string matrix_type_name() {
  if constexpr (std::is_same_v<In, std::int8_t>)
    return std::string("int8_") + type_name<Out>();
  else
    return type_name<In>();
}

/// \brief The operator's name.
template <class Op>
constexpr const char* matrix_op_name() {
  if constexpr (std::is_same_v<Op, parprim::plus>)
    return "plus";
  else if constexpr (std::is_same_v<Op, parprim::minimum>)
    return "minimum";
  else if constexpr (std::is_same_v<Op, parprim::maximum>)
    return "maximum";
  else if constexpr (std::is_same_v<Op, argmin>)
    return "argmin";
  else if constexpr (std::is_same_v<Op, affine_compose>)
    return "affine_compose";
  else
    static_assert(sizeof(Op) == 0, "add a name for this operator");
}

/// \brief The init of reduce and of the exclusive scans: the operator's identity.
template <class Out, class Op>
Out matrix_init() {
  if constexpr (std::is_same_v<Op, parprim::plus>)
    return Out(0);
  else if constexpr (std::is_same_v<Op, parprim::minimum>)
    return std::numeric_limits<Out>::max();
  else if constexpr (std::is_same_v<Op, parprim::maximum>)
    return std::numeric_limits<Out>::lowest();
  else if constexpr (std::is_same_v<Op, argmin>)
    return {std::numeric_limits<float>::infinity(), std::numeric_limits<std::uint32_t>::max()};
  else
    return {1.0, 0.0};
}

// --- one call --------------------------------------------------------------------------------

/// \brief The arguments of one timed call: one rotation's buffers.
template <class In, class Out>
struct matrix_args {
  const In* x = nullptr;
  const std::uint8_t* flags = nullptr;  ///< segmented: n head flags
  const std::int32_t* keys = nullptr;   ///< segmented: n keys (CUB's by-key form of the flags)
  Out* out = nullptr;                   ///< scans: n outputs
  std::size_t n = 0;
  Out init{};
  /// Device time (matrix_device/ rows): enqueue only, never wait for the GPU; reduce then
  /// leaves its result in `result` instead of returning it.
  bool device_only = false;
  Out* result = nullptr;  ///< reduce: device memory for the result (matrix_device_result)
};

/// \brief 64 bytes of device memory for a reduction's result (allocated once): where CUB's
/// reduce writes before its copy to the host, and both competitors' device-time reduce.
inline void* matrix_device_result() {
  static void* p = [] {
    void* q = nullptr;
    return cudaMalloc(&q, 64) == cudaSuccess ? q : nullptr;
  }();
  return p;
}

/// \brief parprim's call of one cell; returns the result of reduce (on the host), Out{} for the
/// scans (after the stream is synchronised). With `device_only` it returns once the work is
/// enqueued (a `nosync()` policy; reduce through reduce_into). Defined in matrix_calls.hpp;
/// instantiated in matrix_parprim_builtin.cpp (the precompiled combinations, g++) and
/// matrix_parprim_user.cu (int8 and the structs, nvcc).
template <class In, class Out, class Op, matrix_primitive P>
Out parprim_call(const matrix_args<In, Out>& a);

/// \brief CUB's call of one cell, with the same contract (with `device_only`: no copy of the
/// result, no synchronisation). Defined in matrix_cub.cuh, instantiated in matrix_cub_*.cu.
template <class In, class Out, class Op, matrix_primitive P>
Out cub_call(const matrix_args<In, Out>& a);

/// \brief "" when the checked call's output is right (scans: `out`; reduce: `result`), else what
/// is wrong. Runs on the GPU (matrix_check.cu).
template <class In, class Out, class Op>
std::string matrix_check(matrix_primitive p, const matrix_args<In, Out>& a, const Out& result);

/// \brief The timing loop of one cell: checks, then times `call` over the rotated inputs: the
/// synchronous call (`device` false), or the GPU's time for the enqueued work alone behind the
/// stream gate (`device` true).
template <class In, class Out, class Op, matrix_primitive P>
void run_matrix(benchmark::State& state, std::size_t n, std::size_t length,
                Out (*call)(const matrix_args<In, Out>&), bool device = false) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  constexpr bool segmented = P == matrix_primitive::segmented;
  constexpr bool scan = P != matrix_primitive::reduce;
  const std::size_t in_bytes = n * sizeof(In), out_bytes = n * sizeof(Out);
  const std::size_t copies = rotation_count(in_bytes);
  const std::size_t need = copies * in_bytes + (scan ? out_bytes : 0) +
                           (segmented ? copies * n * (1 + sizeof(std::int32_t)) : 0);
  if (!fits_or_skip(state, need)) return;
  const auto& in = inputs_for<In>(n);
  const std::size_t rotations = in.buffers.size();
  // keys always: both competitors of a segmented cell keep the same set alive
  const segment_inputs* seg = segmented ? segments_for(n, length, rotations, true) : nullptr;
  Out* out = scan ? static_cast<Out*>(scan_output(out_bytes)) : nullptr;
  if ((scan && out == nullptr) || (segmented && seg == nullptr)) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  const Out init = matrix_init<Out, Op>();
  Out* const result = static_cast<Out*>(matrix_device_result());
  if (!scan && result == nullptr) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  const auto args = [&](std::size_t k) {
    matrix_args<In, Out> a;
    a.device_only = device;
    a.result = result;
    a.x = in.buffers[k % rotations];
    if (seg) {
      a.flags = seg->flags[k % rotations];
      a.keys = seg->keys[k % rotations];
    }
    a.out = out;
    a.n = n;
    a.init = init;
    return a;
  };
  std::size_t next = 0;
  Out first{};
  std::string error;
  try {  // a call that throws skips its row, not the rest of the matrix
    for (int w = 0; w < 3; ++w) (void)call(args(next++));
    if (scan) cudaMemsetAsync(out, 0xA5, out_bytes, bench_stream());
    if (device && !scan) cudaMemsetAsync(result, 0xA5, sizeof(Out), bench_stream());
    first = call(args(0));
    cudaStreamSynchronize(bench_stream());
    if (device && !scan) cudaMemcpy(&first, result, sizeof(Out), cudaMemcpyDeviceToHost);
    error = matrix_check<In, Out, Op>(P, args(0), first);
  } catch (const std::exception& e) {
    error = std::string("exception: ") + e.what();
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  if (!time_rotations(
          state, next, [&](std::size_t k) { parprim_bench::keep(call(args(k))); }, device))
    return;
  if (scan) {
    error = matrix_check<In, Out, Op>(P, args(next - 1), first);
    if (!error.empty()) state.SkipWithError(("after the timed loop: " + error).c_str());
  }
  const auto it = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(it * static_cast<std::int64_t>(in_bytes));
}

}  // namespace parprim_bench::cuda

/// \brief Explicit instantiations of F's cells of (In, Out, Op) for every primitive, F one of
/// parprim_call, cub_call.
#define PARPRIM_MATRIX_CELLS(F, In, Out, Op)                                             \
  template Out F<In, Out, Op, matrix_primitive::reduce>(const matrix_args<In, Out>&);    \
  template Out F<In, Out, Op, matrix_primitive::inclusive>(const matrix_args<In, Out>&); \
  template Out F<In, Out, Op, matrix_primitive::exclusive>(const matrix_args<In, Out>&); \
  template Out F<In, Out, Op, matrix_primitive::segmented>(const matrix_args<In, Out>&);
/// \brief The cells of one built-in type with plus, minimum and maximum.
#define PARPRIM_MATRIX_BUILTIN_CELLS(F, In, Out)     \
  PARPRIM_MATRIX_CELLS(F, In, Out, parprim::plus)    \
  PARPRIM_MATRIX_CELLS(F, In, Out, parprim::minimum) \
  PARPRIM_MATRIX_CELLS(F, In, Out, parprim::maximum)
