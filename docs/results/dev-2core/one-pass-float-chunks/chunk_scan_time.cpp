// The host exact scan of float chunks on one thread, chunk by chunk as scan_block calls it:
// ns an element, the median of the repetitions, and a hash of the outputs (the same in every
// build). Usage: chunk_scan_time LOG2_N REPETITIONS [bench|uniform] [OUTPUT_OFFSET]
//   bench:   the bench's values (a double in [-1, 1) rounded to float): long scans take the
//            checked mode
//   uniform: std::uniform_real_distribution<float>(-1, 1): the chunks stay exact (exact_double)
// Build: g++ -std=c++20 -O3 -I<tree>/include -I<build>/include chunk_scan_time.cpp
#include <parprim/detail/exact_scan.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace ex = parprim::detail::exact;

int main(int argc, char** argv) {
  if (argc < 3)
    return std::fprintf(stderr, "usage: %s LOG2_N REPS [bench|uniform] [OFFSET]\n", argv[0]), 2;
  const std::size_t n = std::size_t{1} << std::atoi(argv[1]);
  const int reps = std::atoi(argv[2]);
  const bool uniform = argc > 3 && std::strcmp(argv[3], "uniform") == 0;
  const std::size_t offset = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 0;
  // 4096-aligned input and output (the output `offset` floats further)
  auto* x = static_cast<float*>(std::aligned_alloc(4096, n * sizeof(float) + 4096));
  auto* out = static_cast<float*>(std::aligned_alloc(4096, n * sizeof(float) + 4096)) + offset;
  std::mt19937_64 g(42);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = uniform ? u(g) : static_cast<float>(static_cast<double>(g() >> 11) * 0x1p-52 - 1.0);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    parprim::detail::exact_accumulator<float> acc{};
    ex::known_prefix prefix;
    ex::slice_plan guess;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < n; k += ex::chunk)
      ex::scan_chunk(acc, x + k, std::min(ex::chunk, n - k), out + k, false, ex::exact_simd(),
                     &prefix, &guess);
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
  }
  std::sort(t.begin(), t.end());
  unsigned h = 0;
  for (std::size_t i = 0; i < n; ++i) h = h * 31 + __builtin_bit_cast(unsigned, out[i]);
  std::printf("n=2^%s %s median %.3f ns/elem (min %.3f) hash %08x\n", argv[1],
              uniform ? "uniform" : "bench", t[t.size() / 2], t[0], h);
}
