/// \file
/// \brief Anchor: the OpenMP `reduction(+:s)` clause, the loop a user writes by hand. For
/// floating point also `parallel for simd`, which lets the compiler reassociate (vectorise) the
/// per-thread loop, as integer sums are anyway.

#include "../common.hpp"

namespace parprim_bench {
namespace {

template <class T>
T clause_sum(const T* x, std::size_t n, int threads) {
  T s{};
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : s)
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

template <class T>
T clause_simd_sum(const T* x, std::size_t n, int threads) {
  T s{};
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(+ : s)
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

template <class T, T (*Sum)(const T*, std::size_t, int)>
void run(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  T result{};
  for (auto _ : state) {
    result = Sum(in.data, n, threads);
    keep(result);
  }
  check_sum(state, n, result);
  set_counters(state, n, n * sizeof(T), 0, threads);
}

template <class T>
void register_type(const std::vector<std::int64_t>& sizes, bool simd) {
  add_par(join({"reduce", "omp_clause", type_name<T>()}), sizes, thread_counts(),
          run<T, clause_sum<T>>);
  if (simd)
    add_par(join({"reduce", "omp_clause_simd", type_name<T>()}), sizes, thread_counts(),
            run<T, clause_simd_sum<T>>);
}

const bool registered = register_benchmarks([] {
  register_type<std::int32_t>(pow2_sizes(), false);
  register_type<float>(type_sizes(), true);
  register_type<double>(type_sizes(), true);
});

}  // namespace
}  // namespace parprim_bench
