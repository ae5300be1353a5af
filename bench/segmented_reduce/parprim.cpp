/// \file
/// \brief parprim::segmented_reduce on parprim's CPU backends: seq and omp over threads 1..max,
/// int32 plus. Head flags at three densities (1 in 1000: long segments; 1 in 10; every element)
/// and CSR offsets (size_t) of fixed segment lengths (1, 32, 1024, and one segment of n): the
/// elements are split over the threads, not the segments, so every distribution should scale.
/// Bytes read: n * (4 + 1) with flags, n * 4 + (k + 1) * 8 with offsets; written: k * 4.

#include <parprim/parprim.hpp>

#include "../common.hpp"
#include "../seq_and_omp.hpp"

namespace parprim_bench {
namespace {

using T = std::int32_t;

/// Reports an error unless out[0..k) are the segment sums of `in` for segments starting at
/// `begin(s)`, s < k, the last ending at n (sequential, once per benchmark instance).
template <class Begin>
void check_segment_sums(benchmark::State& state, std::span<const T> in, std::span<const T> out,
                        std::size_t k, Begin begin) {
  std::size_t bad = 0;
  for (std::size_t s = 0; s < k; ++s) {
    const std::size_t end = s + 1 < k ? begin(s + 1) : in.size();
    T sum = 0;
    for (std::size_t i = begin(s); i < end; ++i) sum = static_cast<T>(sum + in[i]);
    bad += out[s] != sum ? 1 : 0;
  }
  if (bad != 0)
    state.SkipWithError(("wrong segment sums: " + std::to_string(bad) + " segments").c_str());
}

template <class Policy>
void run_flags(benchmark::State& state, const std::string& key, const Policy& policy,
               std::size_t one_in, std::size_t n, int threads) {
  const auto in = input<T>(n);
  const auto flags = head_flags(n, one_in);
  const auto out = output<T>(n);
  const bool check = first_time(key);
  if (check) poison(out.span());
  std::size_t k = 0;
  for (auto _ : state) {
    k = parprim::segmented_reduce(policy, in.span(), flags.span(), out.span(), T{0},
                                  parprim::plus{});
    benchmark::ClobberMemory();
  }
  if (check) {
    std::vector<std::size_t> begins;
    for (std::size_t i = 0; i < n; ++i)
      if (flags.data[i] != 0) begins.push_back(i);
    if (begins.size() != k)
      state.SkipWithError("wrong number of segments");
    else
      check_segment_sums(state, in.span(), out.span(), k, [&](std::size_t s) { return begins[s]; });
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
    check_segment_sums(state, in.span(), out.span(), k, [&](std::size_t s) { return s * len; });
  set_counters(state, n, n * sizeof(T) + (k + 1) * sizeof(std::size_t), k * sizeof(T), threads);
}

constexpr std::size_t densities[] = {1000, 10, 1};
constexpr std::size_t lengths[] = {1, 32, 1024, 0};  // 0: one segment of n

void register_all() {
  for (const std::size_t one_in : densities) {
    add_seq_and_omp<T>("segmented_reduce", "heads:1in" + std::to_string(one_in),
                       [=](benchmark::State& s, const std::string& key, const auto& policy,
                           std::size_t n, int t) { run_flags(s, key, policy, one_in, n, t); });
  }
  for (const std::size_t length : lengths) {
    const std::string seg = length == 0 ? "seg:n" : "seg:" + std::to_string(length);
    add_seq_and_omp<T>(
        "segmented_reduce", seg,
        [=](benchmark::State& s, const std::string& key, const auto& policy, std::size_t n, int t) {
          run_offsets(s, key, policy, length == 0 ? n : length, n, t);
        });
  }
}

const bool registered = register_benchmarks(register_all);

}  // namespace
}  // namespace parprim_bench
