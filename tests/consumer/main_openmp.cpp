// Links parprim::openmp alone.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <parprim/parprim.hpp>

#if !defined(PARPRIM_HAS_OPENMP)
#error "linking parprim::openmp must define PARPRIM_HAS_OPENMP"
#endif

int main() {
  std::vector<double> v(50000, 0.5);
  const double sum = parprim::reduce(parprim::omp.threads(4).grain(1), v, 0.0, parprim::plus{});
  std::vector<std::int32_t> w(50000, 1);
  parprim::inclusive_scan(parprim::omp, w, w, parprim::plus{});
  if (sum != 25000.0 || w.back() != 50000) {
    std::fprintf(stderr, "FAILED: sum = %g, last = %d\n", sum, w.back());
    return 1;
  }
  std::printf("parprim::openmp alone: ok\n");
  return 0;
}
