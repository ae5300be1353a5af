/// \file
/// \brief Why the OpenMP backend pads its per-thread partials: each thread adds its block into
/// its own slot of a shared array, storing to the slot on every element (a relaxed atomic
/// store the compiler must keep, as a naive reduction through `partial[omp_get_thread_num()]`
/// does). Packed `T partial[p]` puts 16 int32 slots on one cache line, which then bounces
/// between cores; `cache_padded<T> partial[p]` gives each slot its own line.
///
///   false_sharing/packed/int32/threads:T/n:N   vs   false_sharing/padded/int32/threads:T/n:N

#include <omp.h>

#include <atomic>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>

#include "../common.hpp"

namespace parprim_bench {
namespace {

using parprim::openmp::detail::cache_padded;

template <class T>
T& slot_value(T& slot) {
  return slot;
}
template <class T>
T& slot_value(cache_padded<T>& slot) {
  return slot.value;
}

/// \brief Sum of x[0, n) through per-thread slots `partial[thread]`, stored every element.
template <class T, class Slot>
T accumulate_in_slots(std::vector<Slot>& partial, const T* x, std::size_t n, int threads) {
  for (auto& s : partial) slot_value(s) = T{};
#pragma omp parallel num_threads(threads)
  {
    const auto p = static_cast<std::size_t>(omp_get_num_threads());
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    const std::atomic_ref<T> slot(slot_value(partial[id]));
    for (std::size_t i = n * id / p, e = n * (id + 1) / p; i < e; ++i)
      slot.store(static_cast<T>(slot.load(std::memory_order_relaxed) + x[i]),
                 std::memory_order_relaxed);
  }
  T sum{};
  for (auto& s : partial) sum = static_cast<T>(sum + slot_value(s));
  return sum;
}

template <class T, class Slot>
void run(benchmark::State& state, int threads, std::size_t n) {
  const auto in = input<T>(n);
  std::vector<Slot> partial(static_cast<std::size_t>(threads));
  T result{};
  for (auto _ : state) {
    result = accumulate_in_slots<T>(partial, in.data, n, threads);
    keep(result);
  }
  check_sum(state, n, result);
  set_counters(state, n, n * sizeof(T), 0, threads);
}

const bool registered = register_benchmarks([] {
  const std::vector<std::int64_t> sizes = {std::int64_t{1} << 20, std::int64_t{1} << 24,
                                           std::int64_t{1} << 28};
  add_par("false_sharing/packed/int32", sizes, thread_counts(), run<std::int32_t, std::int32_t>);
  add_par("false_sharing/padded/int32", sizes, thread_counts(),
          run<std::int32_t, cache_padded<std::int32_t>>);
});

}  // namespace
}  // namespace parprim_bench
