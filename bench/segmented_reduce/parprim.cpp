/// \file
/// \brief parprim::segmented_reduce on parprim's CPU backends: seq and omp over threads 1..max.
/// int32 plus over every size: head flags at three densities (1 in 1000: long segments; 1 in
/// 10; every element) and CSR offsets (size_t) of fixed segment lengths (1, 32, 1024, and one
/// segment of n): the elements are split over the threads, not the segments, so every
/// distribution should scale. Head flags also with float32, float64 and int64 plus, int32
/// `maximum` (`op:max`) and float32 `minimum` (`op:min`) at type_sizes(): float sums take the
/// group tree, int64 sums the int32 sums' running sums in 8-byte lanes, double sums chains folded
/// in step, int32 `maximum` and float32 `minimum` the vector fold (where the processor has AVX2).
/// Bytes read: n * (sizeof(T) + 1) with flags, n * 4 + (k + 1) * 8 with offsets; written:
/// k * sizeof(T).

#include <parprim/parprim.hpp>

#include <cmath>
#include <limits>

#include "../common.hpp"
#include "../seq_and_omp.hpp"

namespace parprim_bench {
namespace {

/// Reports an error unless out[0..k) are the segments' folds of `in` from `init` with `op`
/// for segments starting at `begin(s)`, s < k, the last ending at n (sequential, once per
/// benchmark instance): exactly for integers; for floating-point sums within 2 m eps sum|x| of
/// a long double sum (m the segment's elements); other operators exactly.
template <class T, class Op, class Begin>
void check_segment_results(benchmark::State& state, std::span<const T> in, std::span<const T> out,
                           std::size_t k, Begin begin, T init, Op op) {
  std::size_t bad = 0;
  for (std::size_t s = 0; s < k; ++s) {
    const std::size_t end = s + 1 < k ? begin(s + 1) : in.size();
    if constexpr (std::is_integral_v<T> || !std::is_same_v<Op, parprim::plus>) {
      T acc = init;
      for (std::size_t i = begin(s); i < end; ++i) acc = static_cast<T>(op(acc, in[i]));
      bad += out[s] != acc ? 1 : 0;
    } else {
      long double sum = init, abs_sum = std::fabs(static_cast<long double>(init));
      for (std::size_t i = begin(s); i < end; ++i) {
        sum += in[i];
        abs_sum += std::fabs(static_cast<long double>(in[i]));
      }
      const long double m = static_cast<long double>(end - begin(s) + 1);
      const long double bound = 2.0L * m * std::numeric_limits<T>::epsilon() * abs_sum;
      bad += std::fabs(static_cast<long double>(out[s]) - sum) <= bound ? 0 : 1;
    }
  }
  if (bad != 0)
    state.SkipWithError(("wrong segment results: " + std::to_string(bad) + " segments").c_str());
}

template <class T, class Op, class Policy>
void run_flags(benchmark::State& state, const std::string& key, const Policy& policy,
               std::size_t one_in, std::size_t n, int threads, T init, Op op) {
  const auto in = input<T>(n);
  const auto flags = head_flags(n, one_in);
  const auto out = output<T>(n);
  const bool check = first_time(key);
  if (check) poison(out.span());
  std::size_t k = 0;
  for (auto _ : state) {
    k = parprim::segmented_reduce(policy, in.span(), flags.span(), out.span(), init, op);
    benchmark::ClobberMemory();
  }
  if (check) {
    std::vector<std::size_t> begins;
    for (std::size_t i = 0; i < n; ++i)
      if (flags.data[i] != 0) begins.push_back(i);
    if (begins.size() != k)
      state.SkipWithError("wrong number of segments");
    else
      check_segment_results<T>(
          state, in.span(), out.span(), k, [&](std::size_t s) { return begins[s]; }, init, op);
  }
  set_counters(state, n, n * (sizeof(T) + 1), k * sizeof(T), threads);
}

/// k + 1 offsets 0, len, 2 len, ..., n (the last segment may be shorter).
buffer<const std::size_t> fixed_offsets(std::size_t n, std::size_t len) {
  const std::size_t k = (n + len - 1) / len;
  auto mem = cached_block(
      "offsets/" + std::to_string(len) + "/" + std::to_string(n), (k + 1) * sizeof(std::size_t),
      [n, len, k](void* p) {
        auto* o = static_cast<std::size_t*>(p);
        parallel_for(k + 1, [o, n, len](std::size_t s) { o[s] = s * len < n ? s * len : n; });
      });
  return {mem, static_cast<const std::size_t*>(mem.get()), k + 1};
}

template <class Policy>
void run_offsets(benchmark::State& state, const std::string& key, const Policy& policy,
                 std::size_t len, std::size_t n, int threads) {
  using T = std::int32_t;
  const auto in = input<T>(n);
  const auto offsets = fixed_offsets(n, len);
  const std::size_t k = offsets.size - 1;
  const auto out = output<T>(n);
  const std::span<T> results = out.span().first(k);
  const bool check = first_time(key);
  if (check) poison(out.span());
  for (auto _ : state) {
    parprim::segmented_reduce(policy, in.span(), parprim::offsets(offsets.span()), results, T{0},
                              parprim::plus{});
    benchmark::ClobberMemory();
  }
  if (check)
    check_segment_results<T>(
        state, in.span(), out.span(), k, [&](std::size_t s) { return s * len; }, T{0},
        parprim::plus{});
  set_counters(state, n, n * sizeof(T) + (k + 1) * sizeof(std::size_t), k * sizeof(T), threads);
}

constexpr std::size_t densities[] = {1000, 10, 1};
constexpr std::size_t lengths[] = {1, 32, 1024, 0};  // 0: one segment of n

/// Head-flag rows of T with `op` from `init` at type_sizes(), seq and omp, named
/// segmented_reduce/<seq|omp>/<type>[/<op_label>]/heads:1inK.
template <class T, class Op>
void register_typed_flags(const std::string& op_label, T init, Op op) {
  for (const std::size_t one_in : densities) {
    const std::string label =
        (op_label.empty() ? "" : op_label + "/") + "heads:1in" + std::to_string(one_in);
    const std::string type = type_name<T>();
    add_seq(join({"segmented_reduce", "seq", type, label}), type_sizes(),
            [=](benchmark::State& s, std::size_t n) {
              run_flags<T>(s, join({"segmented_reduce/seq", type, label, std::to_string(n)}),
                           parprim::seq, one_in, n, 1, init, op);
            });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
    add_par(join({"segmented_reduce", "omp", type, label}), type_sizes(), thread_counts(),
            [=](benchmark::State& s, int t, std::size_t n) {
              run_flags<T>(
                  s,
                  join({"segmented_reduce/omp", type, label, std::to_string(t), std::to_string(n)}),
                  parprim::omp.threads(t), one_in, n, t, init, op);
            });
#endif
  }
}

void register_all() {
  using T = std::int32_t;
  for (const std::size_t one_in : densities) {
    add_seq_and_omp<T>(
        "segmented_reduce", "heads:1in" + std::to_string(one_in),
        [=](benchmark::State& s, const std::string& key, const auto& policy, std::size_t n, int t) {
          run_flags<T>(s, key, policy, one_in, n, t, T{0}, parprim::plus{});
        });
  }
  for (const std::size_t length : lengths) {
    const std::string seg = length == 0 ? "seg:n" : "seg:" + std::to_string(length);
    add_seq_and_omp<T>(
        "segmented_reduce", seg,
        [=](benchmark::State& s, const std::string& key, const auto& policy, std::size_t n, int t) {
          run_offsets(s, key, policy, length == 0 ? n : length, n, t);
        });
  }
  register_typed_flags<float>("", 0.0f, parprim::plus{});
  register_typed_flags<double>("", 0.0, parprim::plus{});
  register_typed_flags<std::int64_t>("", std::int64_t{0}, parprim::plus{});
  register_typed_flags<T>("op:max", std::numeric_limits<T>::lowest(), parprim::maximum{});
  register_typed_flags<float>("op:min", std::numeric_limits<float>::infinity(), parprim::minimum{});
}

const bool registered = register_benchmarks(register_all);

}  // namespace
}  // namespace parprim_bench
