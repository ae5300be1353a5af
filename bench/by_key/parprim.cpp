/// \file
/// \brief parprim::reduce_by_key and the scans by key on parprim's CPU backends:
/// seq and omp over threads 1..max, int32 keys and values, plus; runs of equal keys as the head
/// flags of bench/common.hpp mark segments, at three densities (1 in 1000, 1 in 10, a new key
/// at every element). Bytes read: n * (4 + 4); written: k * (4 + 4) (reduce) or n * 4 (scan).

#include <parprim/parprim.hpp>

#include "../common.hpp"
#include "../seq_and_omp.hpp"

namespace parprim_bench {
namespace {

using T = std::int32_t;

/// Key i: the number of heads (bench/common.hpp's flags) in [1, i], so runs are segments.
buffer<const T> run_keys(std::size_t n, std::size_t one_in) {
  auto mem = cached_block("keys/1in" + std::to_string(one_in) + "/" + std::to_string(n),
                          n * sizeof(T), [n, one_in](void* p) {
                            auto* k = static_cast<T*>(p);
                            const auto flags = head_flags(n, one_in);
                            T key = 0;
                            for (std::size_t i = 0; i < n; ++i) {
                              if (i > 0 && flags.data[i] != 0) ++key;
                              k[i] = key;
                            }
                          });
  return {mem, static_cast<const T*>(mem.get()), n};
}

/// Reports an error unless keys_out / out hold every run's key and sum.
void check_runs(benchmark::State& state, std::span<const T> keys, std::span<const T> in,
                std::span<const T> keys_out, std::span<const T> out, std::size_t k) {
  std::size_t s = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < keys.size(); ++s) {
    T sum = 0;
    const std::size_t begin = i;
    for (; i < keys.size() && keys[i] == keys[begin]; ++i) sum = static_cast<T>(sum + in[i]);
    bad += s >= k || keys_out[s] != keys[begin] || out[s] != sum ? 1 : 0;
  }
  if (bad != 0 || s != k)
    state.SkipWithError(("wrong reduce_by_key: " + std::to_string(bad) + " runs").c_str());
}

template <class Policy>
void run_reduce(benchmark::State& state, const std::string& key, const Policy& policy,
                std::size_t one_in, std::size_t n, int threads) {
  const auto in = input<T>(n);
  const auto keys = run_keys(n, one_in);
  const auto keys_out = output<T>(n);
  const auto out = output<T>(n + 1);  // another cached block than keys_out's
  const bool check = first_time(key);
  if (check) poison(out.span());
  std::size_t k = 0;
  for (auto _ : state) {
    k = parprim::reduce_by_key(policy, keys.span(), in.span(), keys_out.span(), out.span(),
                               parprim::plus{});
    benchmark::ClobberMemory();
  }
  if (check) check_runs(state, keys.span(), in.span(), keys_out.span(), out.span(), k);
  set_counters(state, n, n * 2 * sizeof(T), k * 2 * sizeof(T), threads);
}

/// One scan by key, inclusive or (`exclusive`, from 0) exclusive, checked once.
template <class Policy>
void run_scan(benchmark::State& state, const std::string& key, const Policy& policy,
              std::size_t one_in, std::size_t n, int threads, bool exclusive) {
  const auto in = input<T>(n);
  const auto keys = run_keys(n, one_in);
  const auto flags = head_flags(n, one_in);
  const auto out = output<T>(n);
  const bool check = first_time(key);
  if (check) poison(out.span());
  for (auto _ : state) {
    if (exclusive)
      parprim::exclusive_scan_by_key(policy, keys.span(), in.span(), out.span(), T{0},
                                     parprim::plus{});
    else
      parprim::inclusive_scan_by_key(policy, keys.span(), in.span(), out.span(), parprim::plus{});
    benchmark::ClobberMemory();
  }
  if (check && exclusive)
    check_segmented_exclusive_scan<T>(state, in.span(), flags.span(), out.span());
  else if (check)
    check_segmented_scan<T>(state, in.span(), flags.span(), out.span());
  set_counters(state, n, n * 2 * sizeof(T), n * sizeof(T), threads);
}

constexpr std::size_t densities[] = {1000, 10, 1};

template <class Run>
void register_primitive(const std::string& primitive, Run run) {
  for (const std::size_t one_in : densities)
    add_seq_and_omp<T>(primitive, "heads:1in" + std::to_string(one_in),
                       [=](benchmark::State& s, const std::string& key, const auto& policy,
                           std::size_t n, int t) { run(s, key, policy, one_in, n, t); });
}

const bool registered = register_benchmarks([] {
  register_primitive("reduce_by_key", [](auto&&... args) { run_reduce(args...); });
  register_primitive("inclusive_scan_by_key", [](auto&&... args) { run_scan(args..., false); });
  register_primitive("exclusive_scan_by_key", [](auto&&... args) { run_scan(args..., true); });
});

}  // namespace
}  // namespace parprim_bench
