/// \file
/// \brief parprim::inclusive_scan (out of place) on parprim's CPU backends: seq, omp over
/// threads 1..max, and omp with grain 1 at small sizes (the sequential-fallback threshold);
/// float and double with plus and with parprim::exact_plus (competitors seq_exact, omp_exact):
/// the cost of reproducible prefix sums.

#include <parprim/parprim.hpp>

#include "../common.hpp"

namespace parprim_bench {
namespace {

template <class T, class Policy, class Op = parprim::plus>
void run_scan(benchmark::State& state, const std::string& key, const Policy& policy, std::size_t n,
              int threads, Op op = {}) {
  const auto in = input<T>(n);
  const auto out = output<T>(n);
  const bool check = first_time(key);
  if (check) poison(out.span());
  for (auto _ : state) {
    parprim::inclusive_scan(policy, in.span(), out.span(), op);
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

/// \brief Float scans: plus and exact_plus, seq and omp.
template <class T>
void register_float_scans() {
  const std::string type = type_name<T>();
  add_seq("scan/seq/" + type, type_sizes(), [type](benchmark::State& s, std::size_t n) {
    run_scan<T>(s, "scan/seq/" + type + "/" + std::to_string(n), parprim::seq, n, 1);
  });
  add_seq("scan/seq_exact/" + type, type_sizes(), [type](benchmark::State& s, std::size_t n) {
    run_scan<T>(s, "scan/seq_exact/" + type + "/" + std::to_string(n), parprim::seq, n, 1,
                parprim::exact_plus{});
  });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par("scan/omp/" + type, type_sizes(), thread_counts(),
          [type](benchmark::State& s, int t, std::size_t n) {
            run_scan<T>(s, join({"scan/omp", type, std::to_string(t), std::to_string(n)}),
                        parprim::omp.threads(t), n, t);
          });
  add_par("scan/omp_exact/" + type, type_sizes(), thread_counts(),
          [type](benchmark::State& s, int t, std::size_t n) {
            run_scan<T>(s, join({"scan/omp_exact", type, std::to_string(t), std::to_string(n)}),
                        parprim::omp.threads(t), n, t, parprim::exact_plus{});
          });
#endif
}

const bool registered = register_benchmarks([] {
  using T = std::int32_t;
  add_seq("scan/seq/int32", pow2_sizes(), [](benchmark::State& s, std::size_t n) {
    run_scan<T>(s, "scan/seq/" + std::to_string(n), parprim::seq, n, 1);
  });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par("scan/omp/int32", pow2_sizes(), thread_counts(),
          [](benchmark::State& s, int t, std::size_t n) {
            run_scan<T>(s, join({"scan/omp", std::to_string(t), std::to_string(n)}),
                        parprim::omp.threads(t), n, t);
          });
  add_par("scan/omp_grain1/int32", pow2_sizes(min_log2, small_max_log2), thread_counts(),
          [](benchmark::State& s, int t, std::size_t n) {
            run_scan<T>(s, join({"scan/omp_grain1", std::to_string(t), std::to_string(n)}),
                        parprim::omp.threads(t).grain(1), n, t);
          });
#endif
  register_float_scans<float>();
  register_float_scans<double>();
});

}  // namespace
}  // namespace parprim_bench
