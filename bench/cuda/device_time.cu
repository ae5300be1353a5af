/// \file
/// \brief Device-time benchmarks: how long the GPU works on one reduction, without the host
/// round trip that the synchronous API (bench/cuda/ladder.cpp, cub_thrust.cu) pays for its
/// result. Names (see cuda_bench.hpp):
///
///   reduce/cuda_k1_interleaved_divergent_device/<type>/n:<N>/manual_time ... cuda_k7_..._device
///   reduce/cub_device_reduce_sum_device/<type>/n:<N>/manual_time
///   reduce/cub_device_reduce_device/<type>/n:<N>/manual_time
///   roof/cuda_copy_d2d_device/<type>/n:<N>/manual_time
///
/// Method. Each timed iteration is, on the bench stream:
///
///   gate kernel (spins until the host opens it) | start event | the reduction's kernels,
///   result left in device memory | stop event
///
/// and the host opens the gate only after it has enqueued everything up to the stop event.
/// So the two events bracket exactly the enqueued device work, back to back on the GPU: no
/// host synchronisation, no result copy and no host-side launch overhead inside the bracket
/// (host work between two launches would otherwise show up as idle GPU time, which is what
/// the synchronous benchmarks measure). Same rotated inputs, sizes, types, warm-up and
/// repetitions as the synchronous benchmarks. The parprim rungs run through
/// `parprim::reduce_into` with a `nosync()` policy (the same kernels and launches as
/// `parprim::reduce`); CUB through `cub::DeviceReduce::Sum` / `Reduce` with temporary storage
/// allocated once, outside the timing. The result is checked outside the timed loop, before
/// and after it. Counter `gate_timeouts`: iterations in which the gate gave up waiting for
/// the host (then that iteration's time includes host time; it should be 0).
///
/// Thrust is absent: `thrust::reduce` returns its result to the host, so it has no
/// device-only form.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include <parprim/parprim.hpp>

#include "cub_enqueue.cuh"
#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief Device memory for one benchmark's output, freed at scope exit.
struct device_out {
  void* p = nullptr;
  explicit device_out(std::size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  }
  ~device_out() {
    if (p) cudaFree(p);
  }
  device_out(const device_out&) = delete;
  device_out& operator=(const device_out&) = delete;
};

/// \brief Times `enqueue(x, out)` (device work only, see the file comment) over the rotated
/// inputs. `check(out)` runs after a synchronisation, outside the timed loop (before and
/// after it) and returns an error message or "". `out_bytes`: the output's size.
template <class T, class Enqueue, class Check>
void run_device(benchmark::State& state, std::size_t n, std::size_t out_bytes, double traffic,
                Enqueue enqueue, Check check) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  const auto& in = inputs_for<T>(n);
  const cudaStream_t stream = bench_stream();
  device_out out(out_bytes);
  if (!out.p) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  std::size_t next = 0;
  std::string error;
  // Warm-up (grows the cached scratch: that may synchronise, so never behind a closed gate).
  for (int w = 0; w < 3; ++w) enqueue(in.buffers[next++ % in.buffers.size()], out.p);
  cudaMemsetAsync(out.p, 0xA5, out_bytes, stream);  // poison: the check sees this call's result
  enqueue(in.buffers[0], out.p);
  if (cudaStreamSynchronize(stream) != cudaSuccess)
    error = std::string("CUDA error: ") + cudaGetErrorString(cudaGetLastError());
  else
    error = check(out.p);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
  } else if (time_rotations(
                 state, next,
                 [&](std::size_t k) { enqueue(in.buffers[k % in.buffers.size()], out.p); }, true)) {
    error = check(out.p);  // the last timed call's result (the loop synchronised)
    if (!error.empty()) state.SkipWithError(error.c_str());
  }
  const auto it = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(it * static_cast<std::int64_t>(n * sizeof(T)));
  state.counters["traffic"] =
      benchmark::Counter(traffic, benchmark::Counter::kIsIterationInvariantRate);
}

/// \brief A check that `*out` (one T in device memory) is the exact sum of the inputs.
template <class T>
auto sum_check(std::int64_t sum) {
  return [sum](const void* out) -> std::string {
    T r{};
    if (cudaMemcpy(&r, out, sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
      return "cudaMemcpy of the result failed";
    if (static_cast<std::int64_t>(r) != sum || static_cast<T>(sum) != r)
      return "wrong result " + std::to_string(r) + ", expected " + std::to_string(sum);
    return "";
  };
}

template <class T>
void run_reduce_device_sum(benchmark::State& state, std::size_t n,
                           void (*enqueue)(const T*, std::size_t, T*)) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  const std::int64_t sum = inputs_for<T>(n).sum;
  run_device<T>(
      state, n, sizeof(T), static_cast<double>(n * sizeof(T)),
      [n, enqueue](const T* x, void* out) { enqueue(x, n, static_cast<T*>(out)); },
      sum_check<T>(sum));
}

// --- parprim: every rung, through reduce_into with a nosync policy ----------------------------

template <class T, parprim::cuda_reduce_rung R>
void parprim_enqueue(const T* x, std::size_t n, T* out) {
  parprim::reduce_into(
      parprim::cuda.on(bench_stream()).nosync().reduce_kernel(parprim::cuda_reduce_kernel<R>{}),
      parprim::device_span<const T>(x, n), parprim::device_span<T>(out, 1), T(0), parprim::plus{});
}

template <class T, parprim::cuda_reduce_rung R>
void add_rung_device() {
  add(std::string("reduce/cuda_") + parprim::cuda_reduce_name(R) + "_device/" + type_name<T>(),
      [](benchmark::State& state, std::size_t n) {
        run_reduce_device_sum<T>(state, n, &parprim_enqueue<T, R>);
      });
}

template <class T>
void add_ladder_device() {
  using r = parprim::cuda_reduce_rung;
  add_rung_device<T, r::interleaved_divergent>();
  add_rung_device<T, r::interleaved_strided>();
  add_rung_device<T, r::sequential_addressing>();
  add_rung_device<T, r::first_add_during_load>();
  add_rung_device<T, r::unrolled_last_warp>();
  add_rung_device<T, r::grid_stride_multiple_elements>();
  add_rung_device<T, r::vectorized_single_pass>();
}

// --- CUB -------------------------------------------------------------------------------------

template <class T>
void add_cub_device() {
  const std::string t = type_name<T>();
  add("reduce/cub_device_reduce_sum_device/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce_device_sum<T>(state, n, &cub_reduce_enqueue<T, true>);
  });
  add("reduce/cub_device_reduce_device/" + t, [](benchmark::State& state, std::size_t n) {
    run_reduce_device_sum<T>(state, n, &cub_reduce_enqueue<T, false>);
  });
}

// --- the copy roof, device time --------------------------------------------------------------

template <class T>
void add_copy_device() {
  add(std::string("roof/cuda_copy_d2d_device/") + type_name<T>(),
      [](benchmark::State& state, std::size_t n) {
        if (!have_gpu()) {
          state.SkipWithError("no GPU");
          return;
        }
        const T* first = inputs_for<T>(n).buffers[0];
        run_device<T>(
            state, n, n * sizeof(T), 2.0 * static_cast<double>(n * sizeof(T)),
            [n](const T* x, void* out) {
              cudaMemcpyAsync(out, x, n * sizeof(T), cudaMemcpyDeviceToDevice, bench_stream());
            },
            [first, n](const void* out) -> std::string {
              // The check call copied buffer 0 (and the last timed call some buffer: all are
              // identical): compare the last element, which a partial copy would miss.
              T a{}, b{};
              if (cudaMemcpy(&a, static_cast<const T*>(out) + (n - 1), sizeof(T),
                             cudaMemcpyDeviceToHost) != cudaSuccess ||
                  cudaMemcpy(&b, first + (n - 1), sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
                return "cudaMemcpy failed";
              return a == b ? "" : "the copy's last element differs";
            });
      });
}

const bool registered = register_benchmarks([] {
  add_ladder_device<std::int32_t>();
  add_ladder_device<float>();
  add_ladder_device<double>();
  add_cub_device<std::int32_t>();
  add_cub_device<float>();
  add_cub_device<double>();
  add_copy_device<std::int32_t>();
  add_copy_device<float>();
  add_copy_device<double>();
});

}  // namespace
}  // namespace parprim_bench::cuda
