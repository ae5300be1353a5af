// Links parprim::parprim: the sequential backend and every backend the installation has.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <span>
#include <vector>

#include <parprim/parprim.hpp>

#if PARPRIM_BUILT_WITH_OPENMP && !defined(PARPRIM_HAS_OPENMP)
#error "parprim was built with OpenMP, but linking parprim::parprim did not enable the backend"
#endif

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

template <class Policy>
void run(const Policy& policy, const char* name) {
  const std::size_t n = 100003;
  std::vector<std::int32_t> v(n);
  std::iota(v.begin(), v.end(), 1);
  const auto sum = parprim::reduce(policy, v, std::int64_t{0}, parprim::plus{});
  check(sum == static_cast<std::int64_t>(n) * (n + 1) / 2, name);

  std::vector<std::int64_t> prefix(n);
  parprim::inclusive_scan(policy, v, prefix, parprim::plus{});
  check(prefix[n - 1] == sum && prefix[9] == 55, name);

  std::vector<std::uint8_t> flags(n, 0);
  for (std::size_t i = 0; i < n; i += 10) flags[i] = 1;
  parprim::segmented_exclusive_scan(policy, v, flags, prefix, std::int64_t{0}, parprim::plus{});
  check(prefix[10] == 0 && prefix[19] == 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19, name);

  bool threw = false;
  try {
    parprim::inclusive_scan(policy, v, std::span<std::int64_t>(prefix).first(n - 1));
  } catch (const parprim::invalid_argument&) {
    threw = true;
  }
  check(threw, name);
  std::printf("parprim %s (%s): sum = %lld\n", PARPRIM_VERSION, name, static_cast<long long>(sum));
}
}  // namespace

int main() {
  run(parprim::seq, "seq");
#if defined(PARPRIM_HAS_OPENMP)
  run(parprim::omp.threads(3).grain(1), "omp");
#endif
  return failures == 0 ? 0 : 1;
}
