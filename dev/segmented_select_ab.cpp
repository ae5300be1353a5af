// Scratch (host only): OpenMP inclusive / exclusive scans by key and the segmented inclusive scan
// with head flags, 2^24 int32, heads at random one in 1000, 40, 10, 3 and 1, at 1 and 2 threads;
// medians of 7 calls (ms). Built once against the tree before a change and once after, the two
// binaries run in turn (docs/results/dev-2core/segmented-scan-select.txt):
//   g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -DNDEBUG -Iinclude -I<config dir> \
//       dev/segmented_select_ab.cpp -o ab_new   (the config dir holds parprim/config.hpp and
//   parprim/backends -> the tree's backends/); then: for r in 1 2 3 4 5; do ./ab_old old; ./ab_new
//   new; done
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <parprim/parprim.hpp>
#include <random>
#include <vector>
namespace pp = parprim;
int main(int argc, char** argv) {
  const std::size_t n = std::size_t{1} << 24;
  const char* tag = argc > 1 ? argv[1] : "?";
  std::mt19937_64 rng(42);
  std::vector<int> in(n), keys(n), out(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : in) x = int(rng() % 201) - 100;
  for (unsigned one_in : {1000u, 40u, 10u, 3u, 1u}) {
    int key = 0;
    for (std::size_t i = 0; i < n; ++i) {
      f[i] = rng() % one_in == 0;
      if (i > 0 && f[i]) ++key;
      keys[i] = key;
    }
    for (int threads : {1, 2}) {
      const auto pol = pp::omp.threads(threads);
      const auto time = [&](auto fn) {
        std::vector<double> t;
        for (int r = 0; r < 7; ++r) {
          const auto a = std::chrono::steady_clock::now();
          fn();
          t.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
                  .count());
        }
        std::sort(t.begin(), t.end());
        return t[3];
      };
      const double sbk = time([&] { pp::inclusive_scan_by_key(pol, keys, in, out, pp::plus{}); });
      const double ebk =
          time([&] { pp::exclusive_scan_by_key(pol, keys, in, out, 0, pp::plus{}); });
      const double ssf = time([&] { pp::segmented_inclusive_scan(pol, in, f, out, pp::plus{}); });
      std::printf("%s 1in%-4u t%d  scan_by_key %6.1f  excl_by_key %6.1f  seg_scan_flags %6.1f ms\n",
                  tag, one_in, threads, sbk, ebk, ssf);
    }
  }
}
