/// \file
/// \brief The non-template parts of bench/common.hpp: axes, the buffer cache, counters,
/// registration.

#include "common.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>
#include <set>
#include <thread>
#include <utility>

#if defined(__unix__)
#include <unistd.h>
#endif

namespace parprim_bench {

std::vector<std::int64_t> pow2_sizes(int lo, int hi) {
  std::vector<std::int64_t> sizes;
  for (int k = lo; k <= hi; ++k) sizes.push_back(std::int64_t{1} << k);
  return sizes;
}

std::vector<std::int64_t> type_sizes() {
  return {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28};
}

int max_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
}

std::vector<int> thread_counts() {
  const int max = max_threads();
  std::vector<int> counts;
  // PARPRIM_BENCH_THREADS=1,2,3,4,...: an explicit list (values above the maximum dropped)
  if (const char* list = std::getenv("PARPRIM_BENCH_THREADS"); list != nullptr && *list) {
    for (const char* p = list; *p;) {
      char* end = nullptr;
      const long t = std::strtol(p, &end, 10);
      if (end == p) break;
      if (t >= 1 && t <= max) counts.push_back(static_cast<int>(t));
      p = *end == ',' ? end + 1 : end;
    }
    if (!counts.empty()) return counts;
  }
  for (int t = 1; t < max; t *= 2) counts.push_back(t);
  counts.push_back(max);
  return counts;
}

// --- the buffer cache ------------------------------------------------------------------------

namespace {

struct cache_entry {
  std::shared_ptr<void> block;
  std::size_t bytes = 0;
  std::uint64_t last_use = 0;
};

std::size_t cache_budget() {
  if (const char* mb = std::getenv("PARPRIM_BENCH_CACHE_MB"))
    return static_cast<std::size_t>(std::strtoull(mb, nullptr, 10)) << 20;
#if defined(__unix__)
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2;
#endif
  return std::size_t{8} << 30;
}

std::shared_ptr<void> allocate(std::size_t bytes) {
  // 2 MiB alignment lets large blocks use transparent huge pages; aligned_alloc wants the size
  // to be a multiple of the alignment.
  const std::size_t align = bytes >= (std::size_t{2} << 20) ? (std::size_t{2} << 20) : 64;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return {p, [](void* q) { std::free(q); }};
}

}  // namespace

std::shared_ptr<void> cached_block(const std::string& key, std::size_t bytes,
                                   const std::function<void(void*)>& fill) {
  static std::map<std::string, cache_entry> cache;
  static std::uint64_t clock = 0;
  static const std::size_t budget = cache_budget();

  if (auto it = cache.find(key); it != cache.end()) {
    it->second.last_use = ++clock;
    return it->second.block;
  }
  std::size_t used = 0;
  for (const auto& [k, e] : cache) used += e.bytes;
  while (!cache.empty() && used + bytes > budget) {
    auto oldest = std::min_element(cache.begin(), cache.end(), [](const auto& a, const auto& b) {
      return a.second.last_use < b.second.last_use;
    });
    used -= oldest->second.bytes;
    cache.erase(oldest);  // freed once the running benchmark lets go of it too
  }
  auto block = allocate(bytes);
  fill(block.get());
  cache.emplace(key, cache_entry{block, bytes, ++clock});
  return block;
}

buffer<const std::uint8_t> head_flags(std::size_t n, std::size_t one_in) {
  auto mem = cached_block("flags/1in" + std::to_string(one_in) + "/" + std::to_string(n), n,
                          [n, one_in](void* p) {
                            auto* f = static_cast<std::uint8_t*>(p);
                            parallel_for(n, [f, one_in](std::size_t i) {
                              f[i] = i == 0 || random_bits(0xf1a9, i) % one_in == 0 ? 1 : 0;
                            });
                          });
  return {mem, static_cast<const std::uint8_t*>(mem.get()), n};
}

long double cached_value(const std::string& key, const std::function<long double()>& compute) {
  static std::map<std::string, long double> values;
  if (auto it = values.find(key); it != values.end()) return it->second;
  const long double v = compute();
  values.emplace(key, v);
  return v;
}

// --- counters and checks -------------------------------------------------------------------

void set_counters(benchmark::State& state, std::size_t n, std::size_t bytes_read,
                  std::size_t bytes_written, int threads) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(bytes_read));
  state.counters["traffic"] = benchmark::Counter(static_cast<double>(bytes_read + bytes_written),
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["nthreads"] = threads;  // "threads" is a field of the JSON already
}

bool first_time(const std::string& key) {
  static std::set<std::string> seen;
  return seen.insert(key).second;
}

// --- registration ----------------------------------------------------------------------------

std::string join(std::initializer_list<std::string> parts) {
  std::string s;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!s.empty()) s += '/';
    s += p;
  }
  return s;
}

void add_seq(const std::string& name, const std::vector<std::int64_t>& sizes,
             std::function<void(benchmark::State&, std::size_t)> fn) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& state) {
    fn(state, static_cast<std::size_t>(state.range(0)));
  });
  b->ArgNames({"n"})->Unit(benchmark::kMicrosecond);
  for (const auto n : sizes) b->Arg(n);
}

void add_par(const std::string& name, const std::vector<std::int64_t>& sizes,
             const std::vector<int>& threads,
             std::function<void(benchmark::State&, int, std::size_t)> fn) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& state) {
    fn(state, static_cast<int>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  });
  b->ArgNames({"threads", "n"})->Unit(benchmark::kMicrosecond)->UseRealTime();
  for (const auto n : sizes)
    for (const int t : threads) b->Args({t, n});
}

}  // namespace parprim_bench
