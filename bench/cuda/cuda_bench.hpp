#pragma once
/// \file
/// \brief Shared pieces of the CUDA benchmarks (bench/cuda/*): rotated device inputs, timing
/// with CUDA events, counters and registration. Names follow parprim-bench's scheme:
///
///   reduce/<competitor>/<type>/n:<N>/manual_time
///
/// with competitor cuda_k1_interleaved_divergent ... cuda_k7_vectorized_single_pass,
/// cub_device_reduce_sum, cub_device_reduce, thrust_reduce, and roof/cuda_copy_d2d/... for the
/// device-to-device copy roof. These time the synchronous call as a user sees it: kernels,
/// result copied to the host and stream synchronised, all inside the timed interval.
///
/// Device-time variants (bench/cuda/device_time.cu), the same work with the result left in
/// device memory and only the enqueued device work between the events:
///
///   reduce/cuda_k1_interleaved_divergent_device ... reduce/cuda_k7_vectorized_single_pass_device
///   reduce/cub_device_reduce_sum_device, reduce/cub_device_reduce_device
///   roof/cuda_copy_d2d_device
///
/// (no thrust: thrust::reduce always returns to the host). Filter them with
/// --benchmark_filter='_device/'; everything CUDA with --benchmark_filter='cuda|cub|thrust'.
///
/// Method: each benchmark reads one of several identical input buffers in turn, together more
/// than 3x the 60 MB L2, so no input comes out of L2; 3 untimed warm-up calls; every timed
/// call is bracketed by CUDA events on the stream (manual time); 5 repetitions, of which
/// the median is reported (aggregates only). Every competitor's result is checked against an
/// exact reference (inputs are small integers, exact in float and double too). Bytes processed
/// = input bytes, so "bytes_per_second" is the GB/s of the lecture's table.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#include "../keep.hpp"

namespace parprim_bench::cuda {

/// \brief The size axis: 2^20, 2^24, 2^28, 2^30.
inline const std::vector<std::int64_t>& sizes() {
  static const std::vector<std::int64_t> s = {std::int64_t(1) << 20, std::int64_t(1) << 24,
                                              std::int64_t(1) << 28, std::int64_t(1) << 30};
  return s;
}

/// \brief The element-type name in benchmark names (a user struct names itself: `bench_name`).
template <class T>
constexpr const char* type_name() {
  if constexpr (requires { T::bench_name; })
    return T::bench_name;
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return "int8";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else if constexpr (std::is_same_v<T, float>)
    return "float32";
  else if constexpr (std::is_same_v<T, double>)
    return "float64";
  else
    static_assert(sizeof(T) == 0, "add a name for this element type");
}

/// \brief Identical copies of one input of n elements x[i] in [-8, 8] (integers, exact in
/// every type; a user struct makes its element with `T::from_element(x, i)`), on the current
/// device, and the exact sum of the integers.
template <class T>
struct rotated_inputs {
  std::vector<const T*> buffers;
  std::size_t n = 0;
  std::int64_t sum = 0;
};

/// \brief How many identical input buffers of `bytes` each the benchmarks rotate over: together
/// at least 3 x 60 MB (so no input comes out of L2), at least 2, at most 4096 (2881 buffers of
/// the matrix's smallest input, 2^16 one-byte elements).
inline std::size_t rotation_count(std::size_t bytes) {
  const std::size_t count = (std::size_t(180) << 20) / bytes + 1;
  return count < 2 ? 2 : (count > 4096 ? 4096 : count);
}

/// \brief The inputs for (T, n), made on first use; the previous (T', n') set is freed first,
/// so only one set is alive (filling on the GPU is fast next to the timed runs).
/// Instantiated in inputs.cu for int32, float, double and the matrix's other types
/// (matrix_bench.hpp).
template <class T>
const rotated_inputs<T>& inputs_for(std::size_t n);

/// \brief A stream, pinned host slot and device scratch shared by the benchmarks.
cudaStream_t bench_stream();

/// \brief Whether a GPU is present; benchmarks skip with an error message otherwise.
bool have_gpu();

/// \brief The stream gate of the device-time benchmarks (stream_gate.cu): `gate_close(s)`
/// enqueues a kernel that holds stream `s` until `gate_open()` (or 0.2 s, counted by
/// `gate_timeouts()`), so that what is enqueued behind it runs back to back on the GPU, without
/// the host's launch gaps. `gate_ready()`: its mapped host memory was allocated. Close it only
/// when no gate is pending, and enqueue nothing behind it that waits for the host (a growing
/// allocation, a synchronous call): that waits for the timeout.
bool gate_ready();
bool gate_close(cudaStream_t stream);
void gate_open();
int gate_timeouts();

/// \brief The timed loop: `call(next++)` (rotation k = next) bracketed by CUDA events on the
/// bench stream, each iteration's manual time the events' interval (`call` returns after its
/// work is enqueued or done; the stop event is recorded after it returns).
///
/// `behind_gate` (device time): each iteration first closes the stream gate and opens it once
/// the stop event is enqueued, so the interval is the GPU's time for the enqueued work alone;
/// `call` must then not wait for the GPU. The counter `gate_timeouts` says how many iterations
/// the gate gave up on (their time includes host time; it should be 0). Returns false (and
/// skips the benchmark) when the gate is missing or fails; the stream is synchronised on return.
template <class Call>
bool time_rotations(benchmark::State& state, std::size_t& next, Call call,
                    bool behind_gate = false) {
  if (behind_gate && !gate_ready()) {
    state.SkipWithError("cudaHostAlloc (mapped) failed: no stream gate");
    return false;
  }
  const cudaStream_t stream = bench_stream();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const int timeouts_before = behind_gate ? gate_timeouts() : 0;
  bool ok = true;
  for (auto _ : state) {
    const std::size_t k = next++;
    if (behind_gate && !gate_close(stream)) {
      state.SkipWithError("gate kernel launch failed");
      ok = false;
      break;
    }
    cudaEventRecord(start, stream);
    call(k);
    cudaEventRecord(stop, stream);
    if (behind_gate) gate_open();
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(static_cast<double>(ms) * 1e-3);
  }
  if (behind_gate) {
    cudaStreamSynchronize(stream);
    state.counters["gate_timeouts"] = static_cast<double>(gate_timeouts() - timeouts_before);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ok;
}

/// \brief Times `call(in)` (which returns the result on the host, or `T` after the stream
/// work is enqueued: the stop event is recorded after it returns) over the rotated inputs and
/// checks the first result against the exact sum.
template <class T, class Call>
void run_reduce(benchmark::State& state, std::size_t n, Call call) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  const auto& in = inputs_for<T>(n);
  std::size_t next = 0;
  for (int w = 0; w < 3; ++w) (void)call(in.buffers[next++ % in.buffers.size()]);
  const T first = call(in.buffers[0]);
  cudaStreamSynchronize(bench_stream());
  if (static_cast<std::int64_t>(first) != in.sum || static_cast<T>(in.sum) != first) {
    state.SkipWithError(
        ("wrong result " + std::to_string(first) + ", expected " + std::to_string(in.sum)).c_str());
  } else {
    time_rotations(state, next, [&](std::size_t k) {
      parprim_bench::keep(call(in.buffers[k % in.buffers.size()]));
    });
  }
  const auto it = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(it * static_cast<std::int64_t>(n * sizeof(T)));
  state.counters["traffic"] = benchmark::Counter(static_cast<double>(n * sizeof(T)),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

/// \brief Registers `name/n:<N>/manual_time` for every size with the common settings.
void add(const std::string& name, std::function<void(benchmark::State&, std::size_t)> fn);

/// \brief Registers `name/n:<N>/manual_time` for one size with the settings of `add` (min time
/// 0.05 s unless given), for files that register (size, input set) outermost and competitor
/// innermost.
void register_one(const std::string& name, std::size_t n, std::function<void(benchmark::State&)> fn,
                  double min_time = 0.05);

/// \brief Runs `f` during static initialisation (one registrar per .cpp/.cu file).
template <class F>
bool register_benchmarks(F f) {
  f();
  return true;
}

}  // namespace parprim_bench::cuda
