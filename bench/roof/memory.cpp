/// \file
/// \brief The memory roof, with every thread: a parallel copy (reads n, writes n: the bound of
/// an out-of-place scan) and a parallel plain read loop summing the input (reads n: the bound
/// of a reduce). GB/s counts the bytes read, as everywhere.

#include <omp.h>

#include "../common.hpp"

namespace parprim_bench {
namespace {

using T = std::int32_t;

void run_copy(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const auto out = output<T>(n);
  const T* x = in.data;
  T* y = out.data;
  for (auto _ : state) {
#pragma omp parallel for simd schedule(static) num_threads(threads)
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
    benchmark::ClobberMemory();
  }
  if (y[n - 1] != x[n - 1]) state.SkipWithError("copy did not copy");
  set_counters(state, n, n * sizeof(T), n * sizeof(T), threads);
}

void run_read(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const T* x = in.data;
  T s{};
  for (auto _ : state) {
    s = T{};
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    keep(s);
  }
  check_sum(state, n, s);
  set_counters(state, n, n * sizeof(T), 0, threads);
}

const bool registered = register_benchmarks([] {
  const std::vector<int> all = {max_threads()};
  add_par("roof/copy/int32", pow2_sizes(), all, run_copy);
  add_par("roof/read/int32", pow2_sizes(), all, run_read);
});

}  // namespace
}  // namespace parprim_bench
