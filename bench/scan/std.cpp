/// \file
/// \brief Anchors: std::inclusive_scan, sequential and (when built with TBB)
/// std::execution::par, capped at the benchmark's thread count with tbb::global_control.

#include <numeric>

#include "../common.hpp"

#if defined(PARPRIM_BENCH_HAVE_TBB)
#include <execution>

#include <tbb/global_control.h>
#endif

namespace parprim_bench {
namespace {

using T = std::int32_t;

void run_seq(benchmark::State& state, std::size_t n) {
  const auto in = input<T>(n);
  const auto out = output<T>(n);
  const bool check = first_time("scan/std_seq/" + std::to_string(n));
  if (check) poison(out.span());
  for (auto _ : state) {
    std::inclusive_scan(in.begin(), in.end(), out.begin());
    benchmark::ClobberMemory();
  }
  if (check) check_inclusive_scan<T>(state, in.span(), out.span());
  set_counters(state, n, n * sizeof(T), n * sizeof(T), 1);
}

#if defined(PARPRIM_BENCH_HAVE_TBB)
void run_par(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const auto out = output<T>(n);
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
  const bool check = first_time(join({"scan/std_par", std::to_string(threads), std::to_string(n)}));
  if (check) poison(out.span());
  for (auto _ : state) {
    std::inclusive_scan(std::execution::par, in.begin(), in.end(), out.begin());
    benchmark::ClobberMemory();
  }
  if (check) check_inclusive_scan<T>(state, in.span(), out.span());
  set_counters(state, n, n * sizeof(T), n * sizeof(T), threads);
}
#endif

const bool registered = register_benchmarks([] {
  add_seq("scan/std_seq/int32", pow2_sizes(), run_seq);
#if defined(PARPRIM_BENCH_HAVE_TBB)
  add_par("scan/std_par/int32", pow2_sizes(), thread_counts(), run_par);
#endif
});

}  // namespace
}  // namespace parprim_bench
