/// \file
/// \brief dev: the host exact scan on one thread, chunk by chunk as scan_block calls it (the
/// prefix carried from chunk to chunk, the previous chunk's plan guessed), in the form the
/// processor runs (`PARPRIM_EXACT_SIMD` picks another): ns an element, the median of the
/// repetitions, and a hash of the outputs (the same in every build of the same input).
///
///   dev/exact_chunk_scan_time LOG2_N REPETITIONS [float|double] [bench|uniform] [OFFSET]
///   - bench:   the bench's values (a double in [-1, 1), rounded for floats): long float scans
///              take the checked mode, double scans the exact_pair mode;
///   - uniform: std::uniform_real_distribution<F>(-1, 1): float chunks stay exact_double;
///   - OFFSET:  the output that many elements past a 4096-byte boundary (the input on one).
///
///   g++ -std=c++20 -O3 -Iinclude -I<build>/include dev/exact_chunk_scan_time.cpp -o /tmp/cst
#include <parprim/detail/exact_scan.hpp>

#include "host_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace ex = parprim::detail::exact;

template <class F>
int run(std::size_t log2_n, int reps, bool uniform, std::size_t offset) {
  const std::size_t n = std::size_t{1} << log2_n;
  auto* x = static_cast<F*>(std::aligned_alloc(4096, n * sizeof(F) + 4096));
  auto* out = static_cast<F*>(std::aligned_alloc(4096, (n + offset) * sizeof(F) + 4096)) + offset;
  std::mt19937_64 g(42);
  std::uniform_real_distribution<F> u(-1, 1);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = uniform ? u(g) : static_cast<F>(static_cast<double>(g() >> 11) * 0x1p-52 - 1.0);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    parprim::detail::exact_accumulator<F> acc{};
    ex::known_prefix prefix;
    ex::slice_plan guess;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < n; k += ex::chunk)
      ex::scan_chunk(acc, x + k, std::min(ex::chunk, n - k), out + k, false, ex::exact_simd(),
                     &prefix, &guess);
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
  }
  std::uint64_t h = 0;
  for (std::size_t i = 0; i < n; ++i) {
    using bits = typename parprim::detail::ieee_format<F>::bits_type;
    h = h * 31 + static_cast<std::uint64_t>(__builtin_bit_cast(bits, out[i]));
  }
  std::printf("n=2^%zu %s %s median %.3f ns/elem (min %.3f) hash %016llx\n", log2_n,
              sizeof(F) == 4 ? "float" : "double", uniform ? "uniform" : "bench", dev::median(t),
              *std::min_element(t.begin(), t.end()), static_cast<unsigned long long>(h));
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LOG2_N REPS [float|double] [bench|uniform] [OFFSET]\n",
                 argv[0]);
    return 2;
  }
  const auto log2_n = static_cast<std::size_t>(std::atoi(argv[1]));
  const int reps = std::atoi(argv[2]);
  const bool doubles = argc > 3 && std::strcmp(argv[3], "double") == 0;
  const bool uniform = argc > 4 && std::strcmp(argv[4], "uniform") == 0;
  const std::size_t offset = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 0;
  return doubles ? run<double>(log2_n, reps, uniform, offset)
                 : run<float>(log2_n, reps, uniform, offset);
}
