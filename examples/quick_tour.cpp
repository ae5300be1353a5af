// The README's example: one call, the policy picks where it runs.
#include <parprim/parprim.hpp>

#include <cstdio>
#include <vector>

namespace pp = parprim;

int main() {
  std::vector<int> v(10'000'000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i % 7) - 3;

  long long s_seq = pp::reduce(pp::seq, v, 0LL, pp::plus{});
#if PARPRIM_HAS_OPENMP
  long long s_par = pp::reduce(pp::omp.threads(4), v, 0LL, pp::plus{});  // same call, 4 threads
#else
  long long s_par = s_seq;  // built without OpenMP: parprim::omp is not available
#endif
  std::vector<long long> prefix(v.size());
  pp::inclusive_scan(pp::seq, v, prefix, pp::plus{});  // prefix[i] = v[0] + ... + v[i]

  std::printf("sum = %lld (seq) = %lld (omp), last prefix = %lld\n", s_seq, s_par, prefix.back());
  return s_seq == s_par && prefix.back() == s_seq ? 0 : 1;
}
