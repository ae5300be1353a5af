#include <parprim/parprim.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
template <class T, class Op>
void run(const char* name, Op op, int den, int th) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<T> in(n), out(n);
  std::vector<unsigned char> f(n);
  std::mt19937_64 g(1);
  for (std::size_t i = 0; i < n; ++i) { in[i] = T(g() % 1000); f[i] = int(g() % den) == 0; }
  std::vector<double> ts;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    parprim::segmented_inclusive_scan(parprim::omp.threads(th), std::span<const T>(in), std::span<const unsigned char>(f), std::span<T>(out), op);
    auto t1 = std::chrono::steady_clock::now();
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ts.begin(), ts.end());
  std::printf("%-12s 1/%d th%d: %.1f ms\n", name, den, th, ts[3]);
}
int main(int argc, char** argv) {
  int th = atoi(argv[1]);
  for (int d : {10, 3}) {
    run<int>("int32 plus", parprim::plus{}, d, th);
    run<int>("int32 max", parprim::maximum{}, d, th);
    run<float>("f32 plus", parprim::plus{}, d, th);
    run<float>("f32 min", parprim::minimum{}, d, th);
    run<double>("f64 plus", parprim::plus{}, d, th);
  }
}
