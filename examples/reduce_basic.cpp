// parprim::reduce with built-in and user operators, on every CPU backend built.
#include <parprim/parprim.hpp>

#include <cstdio>
#include <vector>

namespace pp = parprim;

/// Composition of affine maps x -> a*x + b, applied left to right: not commutative.
struct affine {
  double a, b;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

template <class Policy>
bool run(const Policy& policy, const char* name) {
  std::vector<int> v = {3, 1, 4, 1, 5, 9, 2, 6};
  const long sum = pp::reduce(policy, v, 0L, pp::plus{});
  const int mx = pp::reduce(policy, v, v[0], pp::maximum{});
  std::vector<affine> maps = {{2, 1}, {1, -3}, {0.5, 0}};  // ((2x+1)-3)/2 = x - 1
  const affine f = pp::reduce(policy, maps, affine{1, 0}, compose{});
  std::printf("%-4s sum=%ld max=%d composed: x -> %g*x + %g\n", name, sum, mx, f.a, f.b);
  return sum == 31 && mx == 9 && f.a == 1.0 && f.b == -1.0;
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp.grain(1), "omp") && ok;
#endif
  return ok ? 0 : 1;
}
