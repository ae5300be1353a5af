/// \file
/// \brief dev: where the OpenMP exact_plus scan's time goes at many threads. Times, interleaved
/// in every iteration, on n floats uniform in [-1, 1) (the bench's inputs):
///   plain        parprim::inclusive_scan(omp.threads(t), in, out, plus)
///   exact        the same with exact_plus
///   exact_reduce parprim::reduce(omp.threads(t), in, 0.0f, exact_plus) (the scan's first phase)
///   split_plain  t independent seq scans, one a thread on its own t-th of the input (no carry,
///                no rounds, no barriers: each thread's block step alone, reading from memory)
///   split_exact  the same with exact_plus
/// and prints the medians (ms).
///
///   g++ -std=c++20 -O3 -DNDEBUG -fopenmp -DPARPRIM_HAS_OPENMP=1 -Iinclude -I<build>/include
///   dev/exact_scan_split.cpp
///     -o /tmp/split
///   /tmp/split [log2 n] [threads] [iterations]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <parprim/parprim.hpp>

#include "host_timing.hpp"

namespace pp = parprim;

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  const int t = argc > 2 ? std::atoi(argv[2]) : 16;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 9;
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<float> in(n), out(n);
#pragma omp parallel for num_threads(t)
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = dev::uniform_input(i);
    out[i] = 0;
  }
  const std::span<const float> x(in);
  const std::span<float> y(out);
  const auto split = [&](auto op) {
#pragma omp parallel num_threads(t)
    {
      const std::size_t k = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t b = n * k / static_cast<std::size_t>(t);
      const std::size_t e = n * (k + 1) / static_cast<std::size_t>(t);
      pp::inclusive_scan(pp::seq, x.subspan(b, e - b), y.subspan(b, e - b), op);
    }
  };
  float sink = 0;
  struct call {
    std::string name;
    std::function<void()> run;
    std::vector<double> ms;
  };
  std::vector<call> calls = {
      {"plain", [&] { pp::inclusive_scan(pp::omp.threads(t), x, y, pp::plus{}); }, {}},
      {"exact", [&] { pp::inclusive_scan(pp::omp.threads(t), x, y, pp::exact_plus{}); }, {}},
      {"exact_reduce",
       [&] { sink += pp::reduce(pp::omp.threads(t), x, 0.0f, pp::exact_plus{}); },
       {}},
      {"split_plain", [&] { split(pp::plus{}); }, {}},
      {"split_exact", [&] { split(pp::exact_plus{}); }, {}},
  };
  for (int it = 0; it < iterations + 1; ++it)
    for (auto& c : calls) {
      const auto start = std::chrono::steady_clock::now();
      c.run();
      const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
      if (it > 0) c.ms.push_back(d.count());
    }
  std::printf("n = 2^%d floats, %d threads, medians of %d (ms):\n", log2n, t, iterations);
  for (auto& c : calls) std::printf("  %-13s %8.2f\n", c.name.c_str(), dev::median(c.ms));
  std::printf("(sink %g, out[n-1] %g)\n", static_cast<double>(sink), static_cast<double>(y[n - 1]));
}
