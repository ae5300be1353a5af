// A dot product in one pass over two inputs: parprim::transform_reduce with a binary transform.
#include <parprim/parprim.hpp>

#include <cstdio>
#include <vector>

namespace pp = parprim;

template <class Policy>
bool run(const Policy& policy, const char* name) {
  const std::size_t n = 1'000'000;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 5);         // 0..4
    y[i] = static_cast<float>(i % 3) - 1.0f;  // -1, 0, 1
  }
  // accumulate in double: products of small integers, exact sums
  const double dot = pp::transform_reduce(policy, x, y, 0.0, pp::plus{},
                                          [](float a, float b) { return double{a} * b; });
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) want += double{x[i]} * y[i];
  std::printf("%-4s x . y = %.1f (expected %.1f)\n", name, dot, want);
  return dot == want;
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp, "omp") && ok;
#endif
  std::puts(ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
