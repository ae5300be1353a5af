/// \file
/// \brief dev: the sequential exact_plus scan of doubles whose exponents spread over -20..20
/// (the checked proof's inputs) beside uniform doubles in [-1, 1) and the plain scan, one
/// thread, in cache and from memory; run once with PARPRIM_EXACT_SIMD=avx2 and once without to
/// compare the forms. Prints the median ns an element of each.
///
///   g++ -std=c++20 -O3 -DNDEBUG -Iinclude -I<build>/include dev/exact_scan_wide.cpp -o /tmp/wide
///   PARPRIM_EXACT_SIMD=avx2 /tmp/wide; /tmp/wide
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include <parprim/parprim.hpp>

#include "host_timing.hpp"

namespace pp = parprim;

int main() {
  for (const std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 24}) {
    const int reps = n < (std::size_t{1} << 20) ? 400 : 4;
    std::vector<double> uniform(n), wide(n), out(n);
    for (std::size_t i = 0; i < n; ++i) {
      uniform[i] = static_cast<double>(dev::uniform_input(i)) * 1.0000001;
      wide[i] = std::ldexp(uniform[i], static_cast<int>((i * 2654435761u) >> 20) % 41 - 20);
    }
    const auto time = [&](const std::vector<double>& in, bool exact) {
      std::vector<double> ns;
      for (int r = 0; r < 7; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < reps; ++k) {
          if (exact)
            pp::inclusive_scan(pp::seq, std::span<const double>(in), std::span<double>(out),
                               pp::exact_plus{});
          else
            pp::inclusive_scan(pp::seq, std::span<const double>(in), std::span<double>(out),
                               pp::plus{});
        }
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                     (static_cast<double>(n) * reps));
      }
      return dev::median(ns);
    };
    std::printf("n = %zu: plain %.3f, exact uniform %.3f, exact wide %.3f ns an element\n", n,
                time(uniform, false), time(uniform, true), time(wide, true));
  }
  return 0;
}
