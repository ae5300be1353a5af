/// \file
/// \brief parprim-bench-mpi-cuda: `parprim::mpi(comm).local(parprim::cuda)` on one GPU per rank,
/// under mpirun (scripts/mpi-gpu-bench runs 1 rank / 1 GPU and 2 ranks / 2 GPUs).
///
/// Strong scaling: n = 2^30 elements in total (PARPRIM_BENCH_MPI_CUDA_LOG2), split evenly;
/// each rank's block lives in the memory of its GPU (parprim::mpi_local_device), allocated
/// and filled once before timing. Each timed call is a whole synchronous primitive as a user
/// sees it (kernels, scalar copies, the collective): MPI_Barrier, wall clock (MPI_Wtime)
/// around the call, the slowest rank's time (MPI_Allreduce max) as manual time. Every
/// repetition starts with one untimed call; 7 repetitions of 5 calls, aggregates only: the
/// `_median` row is the figure. Bytes processed = input bytes (GB/s as in the lecture's
/// table). Results are checked once per benchmark against the exact sum (integer-valued
/// inputs).
///
/// Names (as parprim-bench-mpi's): mpi/<primitive>/<competitor>/<type>/strong/ranks:<p>/n:<N>
/// - reduce/local_cuda: parprim::reduce(mpi(comm).local(cuda), block, 0, plus) -> every rank;
/// - scan/local_cuda: parprim::inclusive_scan(mpi(comm).local(cuda), block, out) (the block
///   reduced on the GPU, MPI_Exscan of one scalar, one GPU scan with the carry);
/// - reduce/raw_cuda: parprim::reduce(parprim::cuda, block) + MPI_Allreduce of the scalar (the
///   "local work + one collective" reference);
/// - scan/raw_cuda_bound: parprim::inclusive_scan(parprim::cuda, block) + one scalar copy +
///   MPI_Exscan, no carry applied: a lower bound, not a correct distributed scan;
/// - mpi/latency/{allreduce,exscan}/int32/ranks:<p>/n:1: one collective of one scalar.
/// Counters: ranks, gpus (distinct GPUs in use), n_per_rank, verified (1: result checked).

#include <cuda_runtime_api.h>

#include "mpi_bench.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <parprim/parprim.hpp>

namespace bench {
namespace {

int g_gpus = 0;  // distinct GPUs used by the ranks
std::string g_setup_error;

const auto& policy() {
  static const auto p = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  return p;
}

template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "float32" : "int32";
}

/// Period of the input pattern: x[i] = pattern[i % period], values in [-3, 3], each period
/// summing to 0 over 7 consecutive elements (integer-valued: exact in float too).
constexpr std::size_t pattern_period = std::size_t{1} << 20;
template <class T>
T pattern(std::size_t j) {
  return static_cast<T>(static_cast<int>(j * 37 % 7) - 3);
}

/// This rank's block of the global input and an output block, on its GPU, and the exact
/// global sum.
template <class T>
struct blocks {
  std::size_t global_n = 0;
  std::size_t local_n = 0;
  parprim::device_buffer<T> in;
  parprim::device_buffer<T> out;
  long long global_sum = 0;
};

/// Fills `d` with the pattern: one period uploaded, then doubled by device-to-device copies.
template <class T>
void fill(parprim::device_buffer<T>& d) {
  const std::size_t n = d.size();
  if (n == 0) return;
  const std::size_t first = std::min(n, pattern_period);
  std::vector<T> h(first);
  for (std::size_t j = 0; j < first; ++j) h[j] = pattern<T>(j);
  cudaMemcpy(d.data(), h.data(), first * sizeof(T), cudaMemcpyHostToDevice);
  for (std::size_t done = first; done < n;) {
    const std::size_t chunk = std::min(done, n - done);
    cudaMemcpy(d.data() + done, d.data(), chunk * sizeof(T), cudaMemcpyDeviceToDevice);
    done += chunk;
  }
  cudaDeviceSynchronize();
}

template <class T>
blocks<T>& blocks_for(std::size_t global_n) {
  static std::unique_ptr<blocks<T>> b;
  if (!b) {
    b = std::make_unique<blocks<T>>();
    const auto p = static_cast<std::size_t>(g_size);
    b->global_n = global_n / p * p;
    b->local_n = global_n / p;
    b->in = parprim::device_buffer<T>(b->local_n);
    b->out = parprim::device_buffer<T>(b->local_n);
    fill(b->in);
    long long local = 0;
    for (std::size_t j = 0; j < std::min(b->local_n, pattern_period); ++j) {
      const long long v = static_cast<long long>(pattern<T>(j));
      local += v * static_cast<long long>(b->local_n / pattern_period +
                                          (j < b->local_n % pattern_period ? 1 : 0));
    }
    MPI_Allreduce(&local, &b->global_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  return *b;
}

/// Times `body()` (see the file comment) after one untimed call.
template <class Body>
void timed(benchmark::State& state, std::size_t global_n, std::size_t elem_bytes, Body body) {
  timed_on_all_ranks(state, global_n, elem_bytes, body, 1);
  state.counters["gpus"] = g_gpus;
}

/// Marks the benchmark verified, or errored on every rank (the check is collective).
void verify(benchmark::State& state, bool ok_here, const std::string& what) {
  int ok = ok_here ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  state.counters["verified"] = ok;
  if (!ok) state.SkipWithError(("wrong result: " + what).c_str());
}

void add(const std::string& name, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
      ->UseManualTime()
      ->Iterations(5)
      ->Repetitions(7)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

std::string suffix(std::size_t global_n) {
  return std::string("/strong/ranks:") + std::to_string(g_size) + "/n:" + std::to_string(global_n);
}

template <class T>
void register_type(std::size_t requested_n) {
  const std::string t = type_name<T>();
  const std::size_t global_n =
      requested_n / static_cast<std::size_t>(g_size) * static_cast<std::size_t>(g_size);
  const std::string s = suffix(global_n);

  add("mpi/reduce/local_cuda/" + t + s, [=](benchmark::State& st) {
    if (!g_setup_error.empty()) return st.SkipWithError(g_setup_error.c_str());
    auto& b = blocks_for<T>(requested_n);
    const T r = parprim::reduce(policy(), b.in.span(), T{}, parprim::plus{});
    verify(st, static_cast<long long>(r) == b.global_sum,
           std::to_string(static_cast<long long>(r)) + " != " + std::to_string(b.global_sum));
    timed(st, b.global_n, sizeof(T), [&] {
      parprim_bench::keep(parprim::reduce(policy(), b.in.span(), T{}, parprim::plus{}));
    });
  });
  add("mpi/reduce/raw_cuda/" + t + s, [=](benchmark::State& st) {
    if (!g_setup_error.empty()) return st.SkipWithError(g_setup_error.c_str());
    auto& b = blocks_for<T>(requested_n);
    const auto local = parprim::cuda.device(parprim::mpi_local_device(policy()));
    const MPI_Datatype dt = parprim::mpi_datatype<T>();
    timed(st, b.global_n, sizeof(T), [&] {
      const T mine = parprim::reduce(local, b.in.span(), T{}, parprim::plus{});
      T all{};
      MPI_Allreduce(&mine, &all, 1, dt, MPI_SUM, MPI_COMM_WORLD);
      parprim_bench::keep(all);
    });
  });
  add("mpi/scan/local_cuda/" + t + s, [=](benchmark::State& st) {
    if (!g_setup_error.empty()) return st.SkipWithError(g_setup_error.c_str());
    auto& b = blocks_for<T>(requested_n);
    parprim::inclusive_scan(policy(), b.in.span(), b.out.span(), parprim::plus{});
    // The global sum is the last rank's last element.
    T last{};
    if (b.local_n > 0)
      cudaMemcpy(&last, b.out.data() + b.local_n - 1, sizeof(T), cudaMemcpyDeviceToHost);
    MPI_Bcast(&last, sizeof(T), MPI_BYTE, g_size - 1, MPI_COMM_WORLD);
    verify(st, static_cast<long long>(last) == b.global_sum,
           std::to_string(static_cast<long long>(last)) + " != " + std::to_string(b.global_sum));
    timed(st, b.global_n, sizeof(T),
          [&] { parprim::inclusive_scan(policy(), b.in.span(), b.out.span(), parprim::plus{}); });
  });
  add("mpi/scan/raw_cuda_bound/" + t + s, [=](benchmark::State& st) {
    if (!g_setup_error.empty()) return st.SkipWithError(g_setup_error.c_str());
    auto& b = blocks_for<T>(requested_n);
    const auto local = parprim::cuda.device(parprim::mpi_local_device(policy()));
    const MPI_Datatype dt = parprim::mpi_datatype<T>();
    timed(st, b.global_n, sizeof(T), [&] {
      parprim::inclusive_scan(local, b.in.span(), b.out.span(), parprim::plus{});
      T total{};
      if (b.local_n > 0)
        cudaMemcpy(&total, b.out.data() + b.local_n - 1, sizeof(T), cudaMemcpyDeviceToHost);
      T carry{};
      MPI_Exscan(&total, &carry, 1, dt, MPI_SUM, MPI_COMM_WORLD);
      parprim_bench::keep(carry);
    });
  });
}

void register_latency() {
  register_scalar_latencies(200, [](benchmark::State& st, std::size_t n, std::size_t bytes,
                                    auto body) { timed(st, n, bytes, body); });
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  bench::start(argc, argv);

  // This rank's GPU: allocations go there. Errors are agreed on, so every rank skips alike.
  int device = -1;
  int failed = 0;
  try {
    device = parprim::mpi_local_device(bench::policy());
    if (cudaSetDevice(device) != cudaSuccess) throw std::runtime_error("cudaSetDevice failed");
  } catch (const std::exception& e) {
    bench::g_setup_error = std::string("no GPU: ") + e.what();
    failed = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && bench::g_setup_error.empty()) bench::g_setup_error = "no GPU on another rank";
  std::vector<int> devices(static_cast<std::size_t>(bench::g_size));
  MPI_Allgather(&device, 1, MPI_INT, devices.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::set<int> used(devices.begin(), devices.end());
  used.erase(-1);
  bench::g_gpus = static_cast<int>(used.size());

  const std::size_t n = std::size_t{1} << bench::env_int("PARPRIM_BENCH_MPI_CUDA_LOG2", 30);
  bench::register_type<std::int32_t>(n);
  bench::register_type<float>(n);
  bench::register_latency();

  std::string map;
  for (std::size_t r = 0; r < devices.size(); ++r) {
    if (r) map += ',';
    map += std::to_string(devices[r]);
  }
  benchmark::AddCustomContext("mpi_ranks", std::to_string(bench::g_size));
  benchmark::AddCustomContext("parprim_local_policy", "cuda");
  benchmark::AddCustomContext("rank_gpus", map);
  cudaDeviceProp prop{};
  if (bench::g_rank == 0 && device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    benchmark::AddCustomContext("gpu", prop.name);
  return bench::run_and_finish();
}
