// The CSR offsets' check (include/parprim/detail/offsets.hpp, first_decrease) against the plain
// loop: first every answer compared on offsets of 2, 4 and 8 bytes with decreases placed at
// random, then the time of each over 2^24 + 1 size_t offsets and of the OpenMP segmented_reduce
// over 2^24 segments of one element (one and two threads), medians of 9. Built against two trees
// and run in turn (results/dev-2core/fold-vectors/offsets-check.txt):
//   g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -I<build>/include -I<tree>/include
//       -I<tree> dev/first_decrease_time.cpp -o first_decrease_time
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <parprim/parprim.hpp>
#include <random>
#include <span>
#include <vector>
template <class I>
std::size_t fd_old(std::span<const I> offsets, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (offsets[i] < offsets[i - 1]) return i;
  return e;
}
template <class F>
double med(F f, int reps = 9) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <class I>
void check(std::mt19937_64& g) {
  for (std::size_t n : {1, 2, 3, 4, 5, 8, 9, 17, 100, 4095, 4096, 4097, 10000, 20000}) {
    std::vector<I> o(n);
    for (std::size_t i = 0; i < n; ++i) o[i] = I(i / 3);
    if constexpr (std::is_signed_v<I>)
      for (auto& x : o) x -= I(n / 7);
    for (int t = 0; t < 50; ++t) {
      auto p = o;
      if (n > 1 && t > 0) {
        std::size_t k = 1 + g() % (n - 1);
        p[k] = (t % 3 == 0)
                   ? p[k - 1] - 1
                   : (t % 3 == 1 ? std::numeric_limits<I>::min() : p[k - 1] + I(g() % 3) - 1);
      }
      std::span<const I> s(p);
      for (std::size_t b : {std::size_t{1}, std::size_t{2}, n / 2 + 1})
        if (b <= n) {
          auto a = fd_old(s, b, n), c = parprim::detail::first_decrease(s, b, n);
          if (a != c) {
            printf("MISMATCH %zu %zu %zu %zu\n", sizeof(I), n, a, c);
            std::exit(1);
          }
        }
    }
  }
}
int main() {
  std::mt19937_64 g(5);
  check<std::int32_t>(g);
  check<std::uint32_t>(g);
  check<std::int64_t>(g);
  check<std::uint64_t>(g);
  check<long>(g);
  check<std::int16_t>(g);
  printf("checks ok\n");
  std::size_t n = std::size_t{1} << 24;
  std::vector<std::size_t> off(n + 1);
  for (std::size_t i = 0; i <= n; ++i) off[i] = i;
  std::span<const std::size_t> o(off);
  volatile std::size_t sink = 0;
  for (int r = 0; r < 3; ++r) {
    printf("old %.2f ms  ", med([&] { sink = fd_old(o, 1, n + 1); }));
    printf("new %.2f ms\n", med([&] { sink = parprim::detail::first_decrease(o, 1, n + 1); }));
  }
  std::vector<std::int32_t> in(n), out(n);
  for (int t : {1, 2})
    printf("seg:1 t%d %.2f ms\n", t, med([&] {
             parprim::segmented_reduce(parprim::omp.threads(t), std::span<const std::int32_t>(in),
                                       parprim::offsets(o), std::span<std::int32_t>(out), 0,
                                       parprim::plus{});
           }));
}
