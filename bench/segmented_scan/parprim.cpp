/// \file
/// \brief parprim::segmented_inclusive_scan (out of place, one-byte head flags) on parprim's
/// CPU backends, at two head densities (1 in 1000: long segments; 1 in 10: short ones): seq,
/// omp over threads 1..max, and omp with grain 1 at small sizes; int32 over every size, float32
/// and float64 at 2^20, 2^24 and 2^28, inclusive and (segmented_exclusive_scan/...) exclusive;
/// float32 `minimum` (`op:min`), one head in 10, inclusive.
/// Bytes read: n * (sizeof(T) + 1).

#include <parprim/parprim.hpp>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "../common.hpp"
#include "../seq_and_omp.hpp"

namespace parprim_bench {
namespace {

template <class T, class Policy, class Op = parprim::plus>
void run_segscan(benchmark::State& state, const std::string& key, const Policy& policy,
                 std::size_t one_in, std::size_t n, int threads, bool exclusive = false,
                 Op op = {}) {
  const auto in = input<T>(n);
  const auto flags = head_flags(n, one_in);
  const auto out = output<T>(n);
  const bool check = first_time(key);
  if (check) poison(out.span());
  for (auto _ : state) {
    if (exclusive)
      parprim::segmented_exclusive_scan(policy, in.span(), flags.span(), out.span(), T{}, op);
    else
      parprim::segmented_inclusive_scan(policy, in.span(), flags.span(), out.span(), op);
    benchmark::ClobberMemory();
  }
  if constexpr (!std::is_same_v<Op, parprim::plus>) {  // other operators: seq's results exactly
    if (check) {
      std::vector<T> want(n);
      if (exclusive)
        parprim::segmented_exclusive_scan(parprim::seq, in.span(), flags.span(), std::span<T>(want),
                                          T{}, op);
      else
        parprim::segmented_inclusive_scan(parprim::seq, in.span(), flags.span(), std::span<T>(want),
                                          op);
      if (!std::equal(want.begin(), want.end(), out.span().begin()))
        state.SkipWithError("wrong segmented scan");
    }
  } else if (check && exclusive)
    check_segmented_exclusive_scan<T>(state, in.span(), flags.span(), out.span());
  else if (check)
    check_segmented_scan<T>(state, in.span(), flags.span(), out.span());
  set_counters(state, n, n * (sizeof(T) + 1), n * sizeof(T), threads);
}

void register_density(std::size_t one_in) {
  using T = std::int32_t;
  const std::string heads = "heads:1in" + std::to_string(one_in);
  add_seq_and_omp<T>("segmented_scan", heads,
                     [=](benchmark::State& s, const std::string& key, const auto& policy,
                         std::size_t n, int t) { run_segscan<T>(s, key, policy, one_in, n, t); });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par(join({"segmented_scan/omp_grain1/int32", heads}), pow2_sizes(min_log2, small_max_log2),
          thread_counts(), [=](benchmark::State& s, int t, std::size_t n) {
            run_segscan<T>(
                s, join({"segmented_scan/omp_grain1", heads, std::to_string(t), std::to_string(n)}),
                parprim::omp.threads(t).grain(1), one_in, n, t);
          });
#endif
}

/// \brief Float segmented sums (or `op`, its label `op_label`), seq and omp, at type_sizes():
/// `segmented_scan/...` inclusive, `segmented_exclusive_scan/...` exclusive from zero.
template <class T, class Op = parprim::plus>
void register_float_density(std::size_t one_in, bool exclusive, const std::string& op_label = "",
                            Op op = {}) {
  const std::string type = type_name<T>();
  const std::string heads =
      (op_label.empty() ? "" : op_label + "/") + "heads:1in" + std::to_string(one_in);
  const std::string primitive = exclusive ? "segmented_exclusive_scan" : "segmented_scan";
  add_seq(join({primitive, "seq", type, heads}), type_sizes(),
          [=](benchmark::State& s, std::size_t n) {
            run_segscan<T>(s, join({primitive, "seq", type, heads, std::to_string(n)}),
                           parprim::seq, one_in, n, 1, exclusive, op);
          });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par(join({primitive, "omp", type, heads}), type_sizes(), thread_counts(),
          [=](benchmark::State& s, int t, std::size_t n) {
            run_segscan<T>(
                s, join({primitive, "omp", type, heads, std::to_string(t), std::to_string(n)}),
                parprim::omp.threads(t), one_in, n, t, exclusive, op);
          });
#endif
}

const bool registered = register_benchmarks([] {
  for (const std::size_t one_in : flag_densities) register_density(one_in);
  for (const bool exclusive : {false, true})
    for (const std::size_t one_in : flag_densities) {
      register_float_density<float>(one_in, exclusive);
      register_float_density<double>(one_in, exclusive);
    }
  register_float_density<float>(10, false, "op:min", parprim::minimum{});
});

}  // namespace
}  // namespace parprim_bench
