// Sum of squares and a norm in one pass, no temporary: parprim::transform_reduce. The squaring
// is the transform; the operator only adds (it must be callable as T op(T, T) and associative).
#include <parprim/parprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace pp = parprim;

template <class Policy>
bool run(const Policy& policy, const char* name) {
  std::vector<int> v(1'000'000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i % 7) - 3;  // -3..3
  const long long squares =
      pp::transform_reduce(policy, v, 0LL, pp::plus{}, [](int x) { return 1LL * x * x; });
  const double norm = std::sqrt(pp::transform_reduce(
      policy, v, 0.0, pp::plus{}, [](int x) { return static_cast<double>(x) * x; }));
  const long long negatives =
      pp::transform_reduce(policy, v, 0LL, pp::plus{}, [](int x) { return x < 0 ? 1LL : 0LL; });
  std::printf("%-4s sum of squares %lld, norm %.3f, %lld negative\n", name, squares, norm,
              negatives);
  // 1'000'000 = 142857 * 7 + 1: each full period squares to 28, the last element is -3
  return squares == 142857LL * 28 + 9 && negatives == 142857LL * 3 + 1 &&
         std::fabs(norm - std::sqrt(142857.0 * 28 + 9)) < 1e-9;
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp, "omp") && ok;
#endif
  std::puts(ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
