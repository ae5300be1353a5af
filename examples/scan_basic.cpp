// Inclusive and exclusive scans, out of place and in place.
#include <parprim/parprim.hpp>

#include <cstdio>
#include <vector>

namespace pp = parprim;

template <class Policy>
bool run(const Policy& policy, const char* name) {
  std::vector<int> v = {3, 1, 4, 1, 5};
  std::vector<int> ex(v.size());
  pp::exclusive_scan(policy, v, ex, 0, pp::plus{});  // {0, 3, 4, 8, 9}
  pp::inclusive_scan(policy, v, v, pp::plus{});      // in place: {3, 4, 8, 9, 14}
  std::printf("%-4s inclusive:", name);
  for (int x : v) std::printf(" %d", x);
  std::printf("  exclusive:");
  for (int x : ex) std::printf(" %d", x);
  std::printf("\n");
  return v == std::vector<int>{3, 4, 8, 9, 14} && ex == std::vector<int>{0, 3, 4, 8, 9};
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp.grain(1), "omp") && ok;
#endif
  return ok ? 0 : 1;
}
