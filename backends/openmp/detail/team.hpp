#pragma once
/// \file
/// \brief How many threads a call uses, and which contiguous block each thread owns.

#include <omp.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif

#include <algorithm>
#include <cstddef>
#include <string>

#include <parprim/error.hpp>
#include <parprim/policy.hpp>

namespace parprim::openmp::detail {

/// \brief Threads for `n` elements: at most the policy's (or `omp_get_max_threads()`), at
/// least `grain` elements each, and 1 inside an active parallel region (no nested teams, so
/// no oversubscription and no deadlock when called from a parallel region).
/// \throws parprim::invalid_argument when the policy asks for more threads than the process may
/// start (`OMP_THREAD_LIMIT`, the soft `RLIMIT_NPROC`): libgomp exits the process when the
/// system refuses a thread, so the call refuses first.
inline int team_size(const omp_policy& policy, std::size_t n) {
  if (omp_in_parallel()) return 1;
  if (policy.thread_count() > 0) {
    long long limit = omp_get_thread_limit();
    const char* which = "OMP_THREAD_LIMIT";
#if defined(__unix__) || defined(__APPLE__)
    rlimit r{};
    if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY &&
        static_cast<unsigned long long>(r.rlim_cur) < static_cast<unsigned long long>(limit)) {
      limit = static_cast<long long>(r.rlim_cur);
      which = "the soft RLIMIT_NPROC (ulimit -u)";
    }
#endif
    if (policy.thread_count() > limit)
      throw invalid_argument("parprim::omp.threads(" + std::to_string(policy.thread_count()) +
                             "): more threads than this process may start (" + which + " = " +
                             std::to_string(limit) + ")");
  }
  const std::size_t requested = static_cast<std::size_t>(
      policy.thread_count() > 0 ? policy.thread_count() : omp_get_max_threads());
  const std::size_t by_grain = n / policy.grain_size();
  return static_cast<int>(std::max<std::size_t>(1, std::min(requested, by_grain)));
}

/// \brief Half-open index range.
struct block {
  std::size_t begin;
  std::size_t end;
};

/// \brief Block `t` of `p` near-equal contiguous blocks of `[0, n)` (sizes differ by <= 1).
inline block block_of(std::size_t n, int p, int t) {
  const std::size_t q = n / static_cast<std::size_t>(p);
  const std::size_t r = n % static_cast<std::size_t>(p);
  const std::size_t ut = static_cast<std::size_t>(t);
  const std::size_t begin = ut * q + std::min(ut, r);
  return {begin, begin + q + (ut < r ? 1 : 0)};
}

}  // namespace parprim::openmp::detail
