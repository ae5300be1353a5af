/// \file
/// \brief parprim::reduce on parprim's CPU backends: seq, omp over threads 1..max, and omp with
/// grain 1 at small sizes (always parallel: where it crosses seq is the sequential-fallback
/// threshold the default grain should encode); float and double also with parprim::exact_plus
/// (competitors seq_exact, omp_exact), the cost of reproducible sums beside plus; int32, float
/// and double also with parprim::maximum (competitor omp_max: an operator that combines exactly
/// in any order, folded by vectors where the processor has AVX2), checked against seq bit for
/// bit.

#include <cstring>
#include <limits>

#include <parprim/parprim.hpp>

#include "../common.hpp"

namespace parprim_bench {
namespace {

template <class T, class Policy, class Op = parprim::plus>
void run_reduce(benchmark::State& state, const Policy& policy, std::size_t n, int threads,
                Op op = {}) {
  const auto in = input<T>(n);
  const std::span<const T> x = in.span();
  T result{};
  for (auto _ : state) {
    result = parprim::reduce(policy, x, T{}, op);
    keep(result);
  }
  check_sum(state, n, result);
  set_counters(state, n, n * sizeof(T), 0, threads);
}

/// reduce/omp_max/<type>: parprim::maximum from the lowest value, the result checked against
/// seq's bits.
template <class T>
void run_maximum(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  const std::span<const T> x = in.span();
  const T init = std::numeric_limits<T>::lowest();
  T result{};
  for (auto _ : state) {
    result = parprim::reduce(parprim::omp.threads(threads), x, init, parprim::maximum{});
    keep(result);
  }
  const T want = parprim::reduce(parprim::seq, x, init, parprim::maximum{});
  if (std::memcmp(&result, &want, sizeof(T)) != 0) state.SkipWithError("maximum differs from seq");
  set_counters(state, n, n * sizeof(T), 0, threads);
}

template <class T>
void register_type(const std::vector<std::int64_t>& sizes) {
  add_seq(join({"reduce", "seq", type_name<T>()}), sizes,
          [](benchmark::State& s, std::size_t n) { run_reduce<T>(s, parprim::seq, n, 1); });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par(join({"reduce", "omp", type_name<T>()}), sizes, thread_counts(),
          [](benchmark::State& s, int t, std::size_t n) {
            run_reduce<T>(s, parprim::omp.threads(t), n, t);
          });
  add_par(join({"reduce", "omp_max", type_name<T>()}), sizes, thread_counts(), run_maximum<T>);
#endif
  if constexpr (std::is_floating_point_v<T>) {
    add_seq(join({"reduce", "seq_exact", type_name<T>()}), sizes,
            [](benchmark::State& s, std::size_t n) {
              run_reduce<T>(s, parprim::seq, n, 1, parprim::exact_plus{});
            });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
    add_par(join({"reduce", "omp_exact", type_name<T>()}), sizes, thread_counts(),
            [](benchmark::State& s, int t, std::size_t n) {
              run_reduce<T>(s, parprim::omp.threads(t), n, t, parprim::exact_plus{});
            });
#endif
  }
}

const bool registered = register_benchmarks([] {
  register_type<std::int32_t>(pow2_sizes());
  register_type<float>(type_sizes());
  register_type<double>(type_sizes());
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par("reduce/omp_grain1/int32", pow2_sizes(min_log2, small_max_log2), thread_counts(),
          [](benchmark::State& s, int t, std::size_t n) {
            run_reduce<std::int32_t>(s, parprim::omp.threads(t).grain(1), n, t);
          });
#endif
});

}  // namespace
}  // namespace parprim_bench
