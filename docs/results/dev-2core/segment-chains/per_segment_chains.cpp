// The program of README.md's tables: segmented_reduce (head flags) and reduce_by_key (int32
// keys) on 2^24 elements at the densities of main(), medians of 9 calls. Built against a tree
// as `g++ -std=c++20 -O3 -fopenmp -DPARPRIM_HAS_OPENMP=1 -I<build>/include -I<tree>/include`
// (add -DPARPRIM_OMP_CHAINS_PREFETCH=0 for the chains without the read of the next chunk);
// run with the thread count as its argument.
#include <parprim/parprim.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
template <class T, class Op>
void run(const char* name, Op op, int dens_num, int dens_den, int th, bool keyed) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<T> in(n);
  std::vector<unsigned char> f(n);
  std::vector<int> keys(n);
  std::mt19937_64 g(1);
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) { in[i] = T(g() % 1000); f[i] = int(g() % dens_den) < dens_num; key += f[i]; keys[i] = key; }
  std::size_t k = 1; for (std::size_t i = 1; i < n; ++i) k += f[i];
  std::vector<T> out(k);
  std::vector<int> kout(k);
  std::vector<double> ts;
  for (int r = 0; r < 9; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (keyed) parprim::reduce_by_key(parprim::omp.threads(th), std::span<const int>(keys), std::span<const T>(in), std::span<int>(kout), std::span<T>(out), op);
    else parprim::segmented_reduce(parprim::omp.threads(th), std::span<const T>(in), std::span<const unsigned char>(f), std::span<T>(out), T(0), op);
    auto t1 = std::chrono::steady_clock::now();
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ts.begin(), ts.end());
  std::printf("%-12s %s %d/%d th%d: %.1f ms\n", name, keyed ? "rbk " : "flag", dens_num, dens_den, th, ts[4]);
}
int main(int argc, char** argv) {
  int th = atoi(argv[1]);
  for (auto [a, b] : {std::pair{1, 10}, {1, 3}}) {
    run<int>("int32 max", parprim::maximum{}, a, b, th, false);
    run<double>("f64 plus", parprim::plus{}, a, b, th, false);
    if (0) run<float>("f32 min", parprim::minimum{}, a, b, th, false);
    run<int>("int32 max", parprim::maximum{}, a, b, th, true);
    run<double>("f64 plus", parprim::plus{}, a, b, th, true);
  }
}
