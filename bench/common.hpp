#pragma once
/// \file
/// \brief Shared pieces of parprim-bench: the size and thread axes, cached aligned input data
/// (first touched in parallel, so pages sit where the threads that read them run), the
/// counters every benchmark reports, result checks, and registration helpers that give every
/// benchmark a readable name:
///
///   <primitive>/<competitor>/<type>[/heads:1inK]/threads:<T>/n:<N>[/real_time]
///
/// e.g. `reduce/omp/int32/threads:16/n:268435456/real_time`, `scan/seq/int32/n:1024`.
/// A new competitor family (CUDA, MPI, ...) is one more .cpp file under bench/<primitive>/
/// that calls `add_seq` / `add_par` from a static registrar (see `register_benchmarks`).

#include <benchmark/benchmark.h>

#include "keep.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace parprim_bench {

// --- axes --------------------------------------------------------------------------------

/// \brief Smallest and largest log2 of the size axis.
inline constexpr int min_log2 = 10;
inline constexpr int max_log2 = 28;
/// \brief The largest size of the small-n sweep (sequential-fallback threshold).
inline constexpr int small_max_log2 = 20;

/// \brief 2^lo, 2^(lo+1), ..., 2^hi.
std::vector<std::int64_t> pow2_sizes(int lo = min_log2, int hi = max_log2);
/// \brief The sizes at which secondary types (float32, float64) are measured.
std::vector<std::int64_t> type_sizes();
/// \brief The machine's thread count: `omp_get_max_threads()` (honours OMP_NUM_THREADS).
int max_threads();
/// \brief 1, 2, 4, ... below `max_threads()`, then `max_threads()` itself.
std::vector<int> thread_counts();

// --- element types -----------------------------------------------------------------------

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else if constexpr (std::is_same_v<T, float>)
    return "float32";
  else if constexpr (std::is_same_v<T, double>)
    return "float64";
  else
    static_assert(sizeof(T) == 0, "parprim-bench: add a name for this element type");
}

// --- parallel helpers (the pages' first touch decides where they live) ---------------------

/// \brief `f(i)` for i in [0, n), statically split over all threads.
template <class F>
void parallel_for(std::size_t n, F f) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (std::size_t i = 0; i < n; ++i) f(i);
}

/// \brief Number of i in [0, n) with `bad(i)`, counted in parallel.
template <class F>
std::size_t parallel_count(std::size_t n, F bad) {
  std::size_t count = 0;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(+ : count)
#endif
  for (std::size_t i = 0; i < n; ++i) count += bad(i) ? 1 : 0;
  return count;
}

/// \brief Counter-based random bits (splitmix64 of seed and index): the same data whatever
/// the thread count that generates it.
constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// \brief Element i of the input: integers uniform in [-8, 8] (prefix sums and partial sums of
/// 2^28 of them stay far from int32 overflow), floating point uniform in [-1, 1).
template <class T>
constexpr T random_value(std::uint64_t i) {
  const std::uint64_t r = random_bits(0x5eed, i);
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(r % 17) - 8);
  } else {
    return static_cast<T>(static_cast<double>(r >> 11) * 0x1p-52 - 1.0);
  }
}

// --- keeping results alive ------------------------------------------------------------------

// parprim_bench::keep(value): see keep.hpp.

// --- cached buffers ------------------------------------------------------------------------

/// \brief A view of a cached, 64-byte (large: 2 MiB) aligned block that keeps it alive.
template <class T>
struct buffer {
  std::shared_ptr<void> owner;
  T* data = nullptr;
  std::size_t size = 0;
  std::span<T> span() const { return {data, size}; }
  T* begin() const { return data; }
  T* end() const { return data + size; }
};

/// \brief The block cached under `key`, or a new one of `bytes` bytes filled by `fill`.
/// Blocks are kept for reuse by later benchmarks, least recently used ones dropped beyond the
/// budget (PARPRIM_BENCH_CACHE_MB, default half the physical memory).
std::shared_ptr<void> cached_block(const std::string& key, std::size_t bytes,
                                   const std::function<void(void*)>& fill);

/// \brief n random elements (see `random_value`), read-only, shared by every benchmark.
template <class T>
buffer<const T> input(std::size_t n) {
  auto mem = cached_block(std::string("in/") + type_name<T>() + "/" + std::to_string(n),
                          n * sizeof(T), [n](void* p) {
                            T* d = static_cast<T*>(p);
                            parallel_for(n, [d](std::size_t i) { d[i] = random_value<T>(i); });
                          });
  return {mem, static_cast<const T*>(mem.get()), n};
}

/// \brief n elements of scratch output (zeroed in parallel once), shared by every benchmark.
template <class T>
buffer<T> output(std::size_t n) {
  auto mem = cached_block(std::string("out/") + type_name<T>() + "/" + std::to_string(n),
                          n * sizeof(T), [n](void* p) {
                            T* d = static_cast<T*>(p);
                            parallel_for(n, [d](std::size_t i) { d[i] = T{}; });
                          });
  return {mem, static_cast<T*>(mem.get()), n};
}

/// \brief n head flags, each set with probability 1/one_in (flag 0 always set).
buffer<const std::uint8_t> head_flags(std::size_t n, std::size_t one_in);

/// \brief The densities of head flags the segmented scans are measured at (1 in K).
inline constexpr std::size_t flag_densities[] = {1000, 10};

// --- counters ------------------------------------------------------------------------------

/// \brief Items/s (elements), bytes/s of INPUT read (what GB/s means in every table), the
/// total memory traffic rate (reads + writes, counter "traffic") and the thread count
/// (counter "nthreads").
void set_counters(benchmark::State& state, std::size_t n, std::size_t bytes_read,
                  std::size_t bytes_written, int threads);

// --- result checks (once per benchmark instance, outside the timed loop) --------------------

/// \brief True the first time it is called with this key: the caller then checks its result.
bool first_time(const std::string& key);

/// \brief The value cached under `key`, computed by `compute` the first time.
long double cached_value(const std::string& key, const std::function<long double()>& compute);

/// \brief Reports an error on `state` unless `got` is the sum of input<T>(n): exactly for
/// integers, within 2 n eps sum|x| (a bound valid for any summation order) otherwise.
template <class T>
void check_sum(benchmark::State& state, std::size_t n, T got) {
  const std::string key = std::string(type_name<T>()) + "/" + std::to_string(n);
  const auto in = input<T>(n);
  const T* x = in.data;
  if constexpr (std::is_integral_v<T>) {
    const auto expect = static_cast<std::int64_t>(cached_value("sum/" + key, [&] {
      std::int64_t s = 0;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(+ : s)
#endif
      for (std::size_t i = 0; i < n; ++i) s += x[i];
      return static_cast<long double>(s);
    }));
    if (static_cast<std::int64_t>(got) != expect)
      state.SkipWithError(
          ("wrong sum: " + std::to_string(got) + " instead of " + std::to_string(expect)).c_str());
  } else {
    const long double expect = cached_value("sum/" + key, [&] {
      long double s = 0;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(+ : s)
#endif
      for (std::size_t i = 0; i < n; ++i) s += x[i];
      return s;
    });
    const long double abs_sum = cached_value("abs/" + key, [&] {
      long double s = 0;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(+ : s)
#endif
      for (std::size_t i = 0; i < n; ++i) s += std::fabs(x[i]);
      return s;
    });
    const long double bound =
        2.0L * static_cast<long double>(n) * std::numeric_limits<T>::epsilon() * abs_sum;
    if (!(std::fabs(static_cast<long double>(got) - expect) <= bound))
      state.SkipWithError(("wrong sum: " + std::to_string(got) + " instead of about " +
                           std::to_string(static_cast<double>(expect)))
                              .c_str());
  }
}

/// \brief Poisons `out` before the checked run, so stale results of another benchmark cannot
/// pass the check.
template <class T>
void poison(std::span<T> out) {
  parallel_for(out.size(), [out](std::size_t i) { out[i] = static_cast<T>(0x5a5a5a5); });
}

/// \brief Reports an error unless out is the inclusive plus-scan of in (integers, exact).
template <class T>
void check_inclusive_scan(benchmark::State& state, std::span<const T> in, std::span<const T> out) {
  static_assert(std::is_integral_v<T>, "scan checks are exact and need integers");
  const std::size_t bad = parallel_count(in.size(), [&](std::size_t i) {
    return out[i] != (i == 0 ? in[0] : static_cast<T>(out[i - 1] + in[i]));
  });
  if (bad != 0)
    state.SkipWithError(("wrong inclusive scan: " + std::to_string(bad) + " elements").c_str());
}

/// \brief The outputs of a floating-point segmented plus-scan of in (inclusive, or exclusive
/// from zero) that lie more than 2 m eps sum|x| from their prefix (m its elements, the sums over
/// its segment so far; a long double reference, one pass).
template <class T>
std::size_t segmented_float_errors(std::span<const T> in, std::span<const std::uint8_t> flags,
                                   std::span<const T> out, bool exclusive) {
  std::size_t bad = 0;
  long double sum = 0, abs_sum = 0, m = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || flags[i]) sum = abs_sum = m = 0;
    if (!exclusive) {
      sum += in[i];
      abs_sum += std::fabs(static_cast<long double>(in[i]));
    }
    m += 1;
    const long double bound = 2.0L * m * std::numeric_limits<T>::epsilon() * abs_sum;
    if (!(std::fabs(static_cast<long double>(out[i]) - sum) <= bound)) ++bad;
    if (exclusive) {
      sum += in[i];
      abs_sum += std::fabs(static_cast<long double>(in[i]));
    }
  }
  return bad;
}

/// \brief Reports an error unless out is the segmented inclusive plus-scan of in: exactly for
/// integers, within segmented_float_errors' bound for floating-point values.
template <class T>
void check_segmented_scan(benchmark::State& state, std::span<const T> in,
                          std::span<const std::uint8_t> flags, std::span<const T> out) {
  std::size_t bad = 0;
  if constexpr (std::is_integral_v<T>) {
    bad = parallel_count(in.size(), [&](std::size_t i) {
      return out[i] != (i == 0 || flags[i] ? in[i] : static_cast<T>(out[i - 1] + in[i]));
    });
  } else {
    bad = segmented_float_errors(in, flags, out, false);
  }
  if (bad != 0)
    state.SkipWithError(("wrong segmented scan: " + std::to_string(bad) + " elements").c_str());
}

/// \brief Reports an error unless out is the exclusive plus-scan of in from zero, restarting at
/// zero at each head (flags[i] != 0, and element 0): exactly for integers, within
/// segmented_float_errors' bound for floating-point values.
template <class T>
void check_segmented_exclusive_scan(benchmark::State& state, std::span<const T> in,
                                    std::span<const std::uint8_t> flags, std::span<const T> out) {
  std::size_t bad = 0;
  if constexpr (std::is_integral_v<T>) {
    bad = parallel_count(in.size(), [&](std::size_t i) {
      return out[i] != (i == 0 || flags[i] ? T{} : static_cast<T>(out[i - 1] + in[i - 1]));
    });
  } else {
    bad = segmented_float_errors(in, flags, out, true);
  }
  if (bad != 0)
    state.SkipWithError(
        ("wrong segmented exclusive scan: " + std::to_string(bad) + " elements").c_str());
}

// --- registration ----------------------------------------------------------------------------

/// \brief "a/b/c" from the parts.
std::string join(std::initializer_list<std::string> parts);

/// \brief A single-threaded benchmark over sizes: name + "/n:<N>"; fn(state, n).
void add_seq(const std::string& name, const std::vector<std::int64_t>& sizes,
             std::function<void(benchmark::State&, std::size_t)> fn);

/// \brief A multithreaded benchmark over sizes x thread counts, timed by the wall clock:
/// name + "/threads:<T>/n:<N>/real_time"; fn(state, threads, n).
void add_par(const std::string& name, const std::vector<std::int64_t>& sizes,
             const std::vector<int>& threads,
             std::function<void(benchmark::State&, int, std::size_t)> fn);

/// \brief Runs `f` during static initialisation; each bench .cpp holds one:
/// `const bool registered = parprim_bench::register_benchmarks([] { add_par(...); });`
template <class F>
bool register_benchmarks(F f) {
  f();
  return true;
}

}  // namespace parprim_bench
