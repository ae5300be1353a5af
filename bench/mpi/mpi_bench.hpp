#pragma once
/// \file
/// \brief What both MPI bench programs (bench_mpi.cpp, bench_mpi_cuda.cpp) share: the rank,
/// the timing (barrier, wall clock, slowest rank), the scalar-collective latency rows, and
/// start-up and reporting under mpirun (rank 0 reports, the other ranks print nothing).

#include <mpi.h>

#include <benchmark/benchmark.h>

#include "../display_reporter.hpp"
#include "../keep.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline int g_rank = 0;
inline int g_size = 1;

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

/// Times `body()` per iteration between a barrier and the end of the call on each rank, the
/// slowest rank's time (MPI_Allreduce max) as manual time, after `warm_up` untimed calls.
/// Bytes = global_n * elem_bytes; counters ranks and n_per_rank.
template <class Body>
void timed_on_all_ranks(benchmark::State& state, std::size_t global_n, std::size_t elem_bytes,
                        Body body, int warm_up = 0) {
  for (int i = 0; i < warm_up; ++i) body();
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    body();
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(t);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(global_n * elem_bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(global_n));
  state.counters["ranks"] = g_size;
  state.counters["n_per_rank"] = static_cast<double>(global_n) / g_size;
}

/// Registers `fn` as mpi/latency/<name>/int32/ranks:<p>/n:1: `iterations` calls, 3
/// repetitions, aggregates only, in microseconds.
inline void register_latency_row(const std::string& name, benchmark::IterationCount iterations,
                                 std::function<void(benchmark::State&)> fn) {
  const std::string full =
      "mpi/latency/" + name + "/int32/ranks:" + std::to_string(g_size) + "/n:1";
  benchmark::RegisterBenchmark(full.c_str(), std::move(fn))
      ->UseManualTime()
      ->Iterations(iterations)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

/// The latency of one MPI_Allreduce and one MPI_Exscan of one int32 (the cost model's log p
/// term), each call timed by `timed(state, 1, bytes, body)`.
template <class Timed>
void register_scalar_latencies(benchmark::IterationCount iterations, Timed timed) {
  register_latency_row("allreduce", iterations, [=](benchmark::State& st) {
    std::int32_t v = g_rank;
    std::int32_t r = 0;
    timed(st, 1, sizeof(v),
          [&] { MPI_Allreduce(&v, &r, 1, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD); });
    parprim_bench::keep(r);
  });
  register_latency_row("exscan", iterations, [=](benchmark::State& st) {
    std::int32_t v = g_rank;
    std::int32_t r = 0;
    timed(st, 1, sizeof(v), [&] { MPI_Exscan(&v, &r, 1, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD); });
    parprim_bench::keep(r);
  });
}

/// MPI_Init_thread (funneled), the rank and size, and benchmark::Initialize; ranks other than
/// 0 drop --benchmark_out (only rank 0 writes it). Aborts on an unrecognised argument.
inline void start(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::vector<char*> args(argv, argv + argc);
  if (g_rank != 0)
    args.erase(
        std::remove_if(args.begin() + 1, args.end(),
                       [](const char* a) { return std::strncmp(a, "--benchmark_out", 15) == 0; }),
        args.end());
  int nargs = static_cast<int>(args.size());
  benchmark::Initialize(&nargs, args.data());
  if (benchmark::ReportUnrecognizedArguments(nargs, args.data())) MPI_Abort(MPI_COMM_WORLD, 1);
}

/// Google Benchmark reporter that prints nothing (ranks other than 0).
class null_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

/// Runs the registered benchmarks (rank 0 reports), then benchmark::Shutdown and MPI_Finalize.
inline int run_and_finish() {
  if (g_rank == 0) {
    parprim_bench::display_reporter display(PARPRIM_BENCH_BUILD_TYPE);
    benchmark::RunSpecifiedBenchmarks(&display);
  } else {
    null_reporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}

}  // namespace bench
