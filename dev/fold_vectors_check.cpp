// The OpenMP folds of whole ranges by vectors (backends/openmp/detail/fold_vectors.hpp), timed
// and checked against seq bit for bit: segmented_reduce with one-byte head flags (one head in
// 1000 and in 100) and the plain reduce, one thread, 2^24 elements, int32 / int64 / float /
// double under maximum or minimum (int32 plus beside them, untouched by the vectors). Medians of
// 9 calls. Build it against two trees and run them in turn (results/dev-2core/fold-vectors/):
//   g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -I<build>/include -I<tree>/include
//       -I<tree> dev/fold_vectors_check.cpp -o fold_vectors_check && ./fold_vectors_check <seed>
// Optional after the seed: log2 of n (24), the OpenMP threads (1) and the densities, one head in
// each of the comma-separated numbers (1000,100); e.g. `./fold_vectors_check 11 26 2 10`.
#include <algorithm>
#include <chrono>
#include <cmath>
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

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T, class Op>
void run(const char* name, Op op, T init, std::size_t n, int one_in, int threads,
         std::mt19937_64& g) {
  std::vector<T> in(n);
  for (auto& x : in) {
    if constexpr (std::is_floating_point_v<T>)
      x = T(std::uniform_real_distribution<double>(-1e6, 1e6)(g));
    else
      x = T(g());
  }
  std::vector<unsigned char> flags(n);
  for (auto& f : flags) f = (g() % static_cast<unsigned>(one_in)) == 0;
  std::vector<T> want(n), got(n);
  const std::span<const T> x(in);
  const std::span<const unsigned char> f(flags);
  const std::size_t k = parprim::segmented_reduce(parprim::seq, x, f, std::span<T>(want), init, op);
  const double per_segment = dev::median_ms([&] {
    parprim::segmented_reduce(parprim::omp.threads(threads), x, f, std::span<T>(got), init, op);
  });
  for (std::size_t s = 0; s < k; ++s)
    if (!same_bits(want[s], got[s])) {
      std::printf("%s: segment %zu differs from seq\n", name, s);
      std::exit(1);
    }
  const T whole_seq = parprim::reduce(parprim::seq, x, init, op);
  T whole{};
  const double reduce =
      dev::median_ms([&] { whole = parprim::reduce(parprim::omp.threads(threads), x, init, op); });
  if (!same_bits(whole, whole_seq)) {
    std::printf("%s: reduce differs from seq\n", name);
    std::exit(1);
  }
  std::printf("%-12s 1in%-5d %d threads segmented_reduce %7.2f ms  reduce %7.2f ms\n", name, one_in,
              threads, per_segment, reduce);
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937_64 g(argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1);
  const std::size_t n = std::size_t{1} << (argc > 2 ? std::atoi(argv[2]) : 24);
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  std::vector<int> densities;
  for (const char* d = argc > 4 ? argv[4] : "1000,100"; *d != '\0';) {
    char* end = nullptr;
    densities.push_back(static_cast<int>(std::strtol(d, &end, 10)));
    d = *end == ',' ? end + 1 : end;
  }
  for (const int one_in : densities) {
    run<std::int32_t>("int32 max", parprim::maximum{}, INT32_MIN, n, one_in, threads, g);
    run<std::int32_t>("int32 plus", parprim::plus{}, 0, n, one_in, threads, g);
    run<float>("f32 min", parprim::minimum{}, INFINITY, n, one_in, threads, g);
    run<double>("f64 max", parprim::maximum{}, -INFINITY, n, one_in, threads, g);
    run<std::int64_t>("int64 min", parprim::minimum{}, INT64_MAX, n, one_in, threads, g);
  }
}
