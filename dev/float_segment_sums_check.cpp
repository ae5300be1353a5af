// The OpenMP float sums of segments (the group tree of backends/openmp/detail/
// segmented_grouped_sums.hpp and its AVX-512 form), timed, with a hash of every output's bits so
// that two trees that must give the same bits can be compared: segmented_reduce with one-byte
// head flags, reduce_by_key with int32 keys and float values, and the inclusive and exclusive
// segmented scans, float32 `plus`, heads about one in `one_in` elements. Medians of 9 calls.
// Build it against two trees and run them in turn (results/dev-2core/float-segment-pairs/):
//   g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -I<build>/include -I<tree>/include
//       -I<tree> dev/float_segment_sums_check.cpp -o float_segment_sums_check
//   ./float_segment_sums_check <log2 n> <one_in> <threads>
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

}  // namespace

int main(int argc, char** argv) {
  namespace pp = parprim;
  const std::size_t n = std::size_t{1} << (argc > 1 ? std::atoi(argv[1]) : 26);
  const unsigned one_in = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 10;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  std::mt19937_64 g(12345);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> in(n), out(n);
  std::vector<unsigned char> heads(n);
  std::vector<std::int32_t> keys(n), keys_out(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = value(g) * static_cast<float>(1u << (g() % 16));
    heads[i] = g() % one_in == 0 ? 1 : 0;
    keys[i] = i == 0 ? 0 : keys[i - 1] + heads[i];
  }
  const auto policy = pp::omp.threads(threads);
  const std::span<const float> x(in);
  std::size_t count = 0;
  const double reduce_ms = dev::median_ms([&] {
    count = pp::segmented_reduce(policy, x, std::span<const unsigned char>(heads),
                                 std::span<float>(out), 0.0f, pp::plus{});
  });
  std::printf("segmented_reduce flags   %8.2f ms  %zu results, bits %016llx\n", reduce_ms, count,
              static_cast<unsigned long long>(hash_of(out, count)));
  const double by_key_ms = dev::median_ms([&] {
    count = pp::reduce_by_key(policy, std::span<const std::int32_t>(keys), x,
                              std::span<std::int32_t>(keys_out), std::span<float>(out), pp::plus{});
  });
  std::printf("reduce_by_key int32 keys %8.2f ms  %zu results, bits %016llx\n", by_key_ms, count,
              static_cast<unsigned long long>(hash_of(out, count)));
  const double inclusive_ms = dev::median_ms([&] {
    pp::segmented_inclusive_scan(policy, x, std::span<const unsigned char>(heads),
                                 std::span<float>(out), pp::plus{});
  });
  std::printf("segmented_inclusive_scan %8.2f ms  bits %016llx\n", inclusive_ms,
              static_cast<unsigned long long>(hash_of(out, n)));
  const double exclusive_ms = dev::median_ms([&] {
    pp::segmented_exclusive_scan(policy, x, std::span<const unsigned char>(heads),
                                 std::span<float>(out), 0.5f, pp::plus{});
  });
  std::printf("segmented_exclusive_scan %8.2f ms  bits %016llx\n", exclusive_ms,
              static_cast<unsigned long long>(hash_of(out, n)));
}
