/// \file
/// \brief Anchor: the plain two-pass OpenMP scan, the naive baseline. Pass 1: each thread scans
/// its block of `in` into `out`. Pass 2: each thread adds the sum of the earlier blocks' totals
/// to its block of `out`. It reads and writes `out` twice (3 passes over memory in all). Rows:
/// scan/two_pass/{int32,float32,float64}, beside scan/omp/<type>.

#include <omp.h>

#include <vector>

#include "../common.hpp"

namespace parprim_bench {
namespace {

template <class T>
void two_pass_scan(const T* in, T* out, std::size_t n, int threads, std::vector<T>& totals) {
#pragma omp parallel num_threads(threads)
  {
    const auto p = static_cast<std::size_t>(omp_get_num_threads());
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t b = n * id / p;
    const std::size_t e = n * (id + 1) / p;
    T acc{};
    for (std::size_t i = b; i < e; ++i) {
      acc = static_cast<T>(acc + in[i]);
      out[i] = acc;
    }
    totals[id] = acc;
#pragma omp barrier
    T offset{};
    for (std::size_t j = 0; j < id; ++j) offset = static_cast<T>(offset + totals[j]);
    if (id > 0)
      for (std::size_t i = b; i < e; ++i) out[i] = static_cast<T>(out[i] + offset);
  }
}

template <class T>
void run(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const auto out = output<T>(n);
  std::vector<T> totals(static_cast<std::size_t>(threads));
  const bool check = first_time(
      join({"scan/two_pass", type_name<T>(), std::to_string(threads), std::to_string(n)}));
  if (check) poison(out.span());
  for (auto _ : state) {
    two_pass_scan(in.data, out.data, n, threads, totals);
    benchmark::ClobberMemory();
  }
  if (check) {
    if constexpr (std::is_integral_v<T>)
      check_inclusive_scan<T>(state, in.span(), out.span());
    else
      check_sum<T>(state, n, out.span()[n - 1]);  // the last prefix is the sum
  }
  set_counters(state, n, n * sizeof(T), n * sizeof(T), threads);
}

const bool registered = register_benchmarks([] {
  add_par("scan/two_pass/int32", pow2_sizes(), thread_counts(), run<std::int32_t>);
  // the float anchors of scan/omp/<type> (bench/scan/parprim.cpp), at its sizes
  add_par("scan/two_pass/float32", type_sizes(), thread_counts(), run<float>);
  add_par("scan/two_pass/float64", type_sizes(), thread_counts(), run<double>);
});

}  // namespace
}  // namespace parprim_bench
