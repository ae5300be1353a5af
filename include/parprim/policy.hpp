#pragma once
/// \file
/// \brief Execution policies: tag objects that pick the backend a primitive runs on.
///
/// Policies are cheap to copy and carry options. A primitive called with a policy whose
/// backend was not built (or whose target, e.g. `parprim::openmp`, is not linked) fails to
/// compile with a message naming the missing backend; it never falls back silently.

#include <cstddef>
#include <string>

#include <parprim/detail/policy_traits.hpp>
#include <parprim/error.hpp>

namespace parprim {

/// \brief The sequential reference: plain left folds on the calling thread. Always built.
struct seq_policy {};
/// \brief The sequential policy object.
inline constexpr seq_policy seq{};

/// \brief OpenMP on this process (target `parprim::openmp`).
///
/// Options, each returning a modified copy:
/// - `threads(n)`: use at most `n` threads (default: `omp_get_max_threads()`).
/// - `grain(g)`: give each thread at least `g` elements; inputs shorter than `2 * g` run
///   sequentially on the calling thread. The default was measured (docs/openmp.md).
///
/// Called from inside an active parallel region, the backend runs on the calling thread
/// alone: it neither oversubscribes the machine nor deadlocks on a nested team.
/// Results are deterministic for a given input and effective thread count.
class omp_policy {
 public:
  /// \brief Default minimum number of elements per thread (see docs/openmp.md).
  static constexpr std::size_t default_grain = 16384;
  /// The most threads `threads(n)` accepts. A call also raises parprim::invalid_argument,
  /// before anything is written, when the count exceeds what the process may start
  /// (`OMP_THREAD_LIMIT`, the soft `RLIMIT_NPROC`): the OpenMP runtime would otherwise exit
  /// the process when the system refuses a thread.
  static constexpr int max_threads = 4096;

  /// \brief Use at most `n` threads. \throws parprim::invalid_argument unless 1 <= n <=
  /// max_threads.
  omp_policy threads(int n) const {
    if (n < 1 || n > max_threads)
      throw invalid_argument("parprim::omp.threads(n): n must be in [1, " +
                             std::to_string(max_threads) + "], got " + std::to_string(n));
    omp_policy p = *this;
    p.threads_ = n;
    return p;
  }
  /// \brief At least `g` elements per thread. \throws parprim::invalid_argument if `g < 1`.
  omp_policy grain(std::size_t g) const {
    if (g < 1) throw invalid_argument("parprim::omp.grain(g): g must be >= 1");
    omp_policy p = *this;
    p.grain_ = g;
    return p;
  }
  /// \return the requested thread count, 0 meaning `omp_get_max_threads()`.
  constexpr int thread_count() const noexcept { return threads_; }
  /// \return the minimum number of elements per thread.
  constexpr std::size_t grain_size() const noexcept { return grain_; }

 private:
  int threads_ = 0;
  std::size_t grain_ = default_grain;
};
/// \brief The OpenMP policy object: `parprim::omp` or `parprim::omp.threads(8)`.
inline constexpr omp_policy omp{};

namespace detail {
template <>
struct policy_traits<seq_policy> {
  static constexpr policy_kind kind = policy_kind::seq;
  static constexpr bool device_memory = false;
};
template <>
struct policy_traits<omp_policy> {
  static constexpr policy_kind kind = policy_kind::omp;
  static constexpr bool device_memory = false;
};
}  // namespace detail

}  // namespace parprim
