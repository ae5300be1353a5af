// Per-segment running totals: a head flag starts a new segment.
#include <parprim/parprim.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace pp = parprim;

template <class Policy>
bool run(const Policy& policy, const char* name) {
  std::vector<int> v = {1, 2, 3, 4, 5, 6};
  std::vector<std::uint8_t> heads = {1, 0, 1, 0, 0, 1};
  std::vector<int> inc(v.size()), exc(v.size());
  pp::segmented_inclusive_scan(policy, v, heads, inc, pp::plus{});     // {1, 3, 3, 7, 12, 6}
  pp::segmented_exclusive_scan(policy, v, heads, exc, 0, pp::plus{});  // {0, 1, 0, 3, 7, 0}
  std::printf("%-4s inclusive:", name);
  for (int x : inc) std::printf(" %d", x);
  std::printf("  exclusive:");
  for (int x : exc) std::printf(" %d", x);
  std::printf("\n");
  return inc == std::vector<int>{1, 3, 3, 7, 12, 6} && exc == std::vector<int>{0, 1, 0, 3, 7, 0};
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp.grain(1), "omp") && ok;
#endif
  return ok ? 0 : 1;
}
