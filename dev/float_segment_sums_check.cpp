// The OpenMP sums of segments (for floats, the group tree of backends/openmp/detail/
// segmented_grouped_sums.hpp and its AVX-512 form; for integers, the running sums of
// segment_sums_avx2.hpp and segment_sums_avx512.hpp), timed, with a hash of every output's bits
// so that two trees that must give the same bits can be compared: segmented_reduce with one-byte
// head flags, reduce_by_key with integer keys of the values' size, and the inclusive and
// exclusive segmented scans, `plus` on float32 (the default), float64 (`f64`), int32 (`i32`) or
// int64 (`i64`), heads about one in `one_in` elements. Medians of 9 timings, each of one call (2^20
// elements or more) or of calls in a row over 2^20 elements in all (inputs in cache). Build it
// against two trees and run them in turn (results/dev-2core/float-segment-pairs/):
//   g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -I<build>/include -I<tree>/include
//       -I<tree> dev/float_segment_sums_check.cpp -o float_segment_sums_check
//   ./float_segment_sums_check <log2 n> <one_in> <threads> [f32|f64|i32|i64]
// (host_timing.hpp: the median time of a call.)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <parprim/parprim.hpp>

#include "host_timing.hpp"

namespace {

// FNV-1a over the bytes of the first `count` values
template <class T>
std::uint64_t hash_of(const std::vector<T>& v, std::size_t count) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < count * sizeof(T); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

template <class T, class Key>
void run(std::size_t n, unsigned one_in, int threads) {
  namespace pp = parprim;
  std::mt19937_64 g(12345);
  std::vector<T> in(n), out(n);
  std::vector<unsigned char> heads(n);
  std::vector<Key> keys(n), keys_out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      in[i] = std::uniform_real_distribution<T>(-1, 1)(g) * static_cast<T>(1u << (g() % 16));
    else
      in[i] = static_cast<T>(g());
    heads[i] = g() % one_in == 0 ? 1 : 0;
    keys[i] = i == 0 ? 0 : keys[i - 1] + heads[i];
  }
  const auto policy = pp::omp.threads(threads);
  const std::span<const T> x(in);
  std::size_t count = 0;
  // the median of 9 timings of `calls` calls in a row (many for inputs in cache), per call
  const std::size_t calls = n >= (std::size_t{1} << 20) ? 1 : (std::size_t{1} << 20) / n;
  const auto time = [&](auto call) {
    return dev::median_ms([&] {
             for (std::size_t c = 0; c < calls; ++c) call();
           }) /
           static_cast<double>(calls);
  };
  const auto per_element = [&](double ms) { return ms * 1e6 / static_cast<double>(n); };
  const double reduce_ms = time([&] {
    count = pp::segmented_reduce(policy, x, std::span<const unsigned char>(heads),
                                 std::span<T>(out), T{0}, pp::plus{});
  });
  std::printf("segmented_reduce flags   %8.3f ms %6.3f ns/element  %zu results, bits %016llx\n",
              reduce_ms, per_element(reduce_ms), count,
              static_cast<unsigned long long>(hash_of(out, count)));
  const double by_key_ms = time([&] {
    count = pp::reduce_by_key(policy, std::span<const Key>(keys), x, std::span<Key>(keys_out),
                              std::span<T>(out), pp::plus{});
  });
  std::printf("reduce_by_key int%zu keys %8.3f ms %6.3f ns/element  %zu results, bits %016llx\n",
              8 * sizeof(Key), by_key_ms, per_element(by_key_ms), count,
              static_cast<unsigned long long>(hash_of(out, count)));
  const double inclusive_ms = time([&] {
    pp::segmented_inclusive_scan(policy, x, std::span<const unsigned char>(heads),
                                 std::span<T>(out), pp::plus{});
  });
  std::printf("segmented_inclusive_scan %8.3f ms %6.3f ns/element  bits %016llx\n", inclusive_ms,
              per_element(inclusive_ms), static_cast<unsigned long long>(hash_of(out, n)));
  const double exclusive_ms = time([&] {
    pp::segmented_exclusive_scan(policy, x, std::span<const unsigned char>(heads),
                                 std::span<T>(out), static_cast<T>(0.5), pp::plus{});
  });
  std::printf("segmented_exclusive_scan %8.3f ms %6.3f ns/element  bits %016llx\n", exclusive_ms,
              per_element(exclusive_ms), static_cast<unsigned long long>(hash_of(out, n)));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = std::size_t{1} << (argc > 1 ? std::atoi(argv[1]) : 26);
  const unsigned one_in = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 10;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const char* type = argc > 4 ? argv[4] : "f32";
  if (std::strcmp(type, "f64") == 0)
    run<double, std::int64_t>(n, one_in, threads);
  else if (std::strcmp(type, "i32") == 0)
    run<std::int32_t, std::int32_t>(n, one_in, threads);
  else if (std::strcmp(type, "i64") == 0)
    run<std::int64_t, std::int64_t>(n, one_in, threads);
  else
    run<float, std::int32_t>(n, one_in, threads);
}
