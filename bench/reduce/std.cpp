/// \file
/// \brief Anchors: std::reduce, sequential and (when built with TBB) std::execution::par, whose
/// worker count is capped at the benchmark's thread count with tbb::global_control.

#include <numeric>

#include "../common.hpp"

#if defined(PARPRIM_BENCH_HAVE_TBB)
#include <execution>

#include <tbb/global_control.h>
#endif

namespace parprim_bench {
namespace {

template <class T>
void run_seq(benchmark::State& state, std::size_t n) {
  const auto in = input<T>(n);
  T result{};
  for (auto _ : state) {
    result = std::reduce(in.begin(), in.end(), T{});
    keep(result);
  }
  check_sum(state, n, result);
  set_counters(state, n, n * sizeof(T), 0, 1);
}

#if defined(PARPRIM_BENCH_HAVE_TBB)
template <class T>
void run_par(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
  T result{};
  for (auto _ : state) {
    result = std::reduce(std::execution::par, in.begin(), in.end(), T{});
    keep(result);
  }
  check_sum(state, n, result);
  set_counters(state, n, n * sizeof(T), 0, threads);
}
#endif

template <class T>
void register_type(const std::vector<std::int64_t>& sizes) {
  add_seq(join({"reduce", "std_seq", type_name<T>()}), sizes, run_seq<T>);
#if defined(PARPRIM_BENCH_HAVE_TBB)
  add_par(join({"reduce", "std_par", type_name<T>()}), sizes, thread_counts(), run_par<T>);
#endif
}

const bool registered = register_benchmarks([] {
  register_type<std::int32_t>(pow2_sizes());
  register_type<float>(type_sizes());
  register_type<double>(type_sizes());
});

}  // namespace
}  // namespace parprim_bench
