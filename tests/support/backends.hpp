#pragma once
/// \file
/// \brief The backends the suite runs on: ONE type list, `parprim_test::backends`.
///
/// Every test body (reduce.cpp, scan.cpp, segmented_scan.cpp, errors.cpp, determinism.cpp) is
/// a typed test over this list. Adding a backend = writing its descriptor below and adding it
/// to the list. A descriptor provides:
///
/// - `name`: a short identifier for messages. (Typed tests are numbered in gtest's own
///   output, `Reduce/1.Int32Plus`, and named after the descriptor in CTest,
///   `Reduce.Int32Plus<parprim_test::omp_backend>`: CMake's gtest_discover_tests only
///   understands numbered typed tests.)
/// - `available`: whether this translation unit can call the backend. When false, every test
///   of the backend is reported as skipped with `unavailable_reason` (the descriptor must still
///   compile, so the list never changes with the build configuration).
/// - `policy_type` and three lists of `named_policy<policy_type>`:
///   `policies()` (every configuration the small-size tests run, e.g. thread counts),
///   `large_policies()` (a cheaper subset for the `large` sizes) and
///   `determinism_policies()` (configurations whose float results must repeat bit for bit)
///   and `reproducibility_policies()` (configurations whose parprim::exact_plus results must
///   equal the exact reference, hence each other, bit for bit: tests/exact_plus.cpp).
/// - `buffer<T>`: where the data lives for this backend. Host backends use `host_buffer<T>`
///   (buffer.hpp); a device backend (CUDA) would provide a type with the same members that
///   copies to and from device memory (constructors from the visible host contents or from
///   a size and a fill value, `range()` for the n elements the primitive sees, `read_all()`
///   for a host copy of the full contents including guards).

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "buffer.hpp"

namespace parprim_test {

/// \brief A policy and how to print it in a failure message.
template <class Policy>
struct named_policy {
  Policy policy;
  std::string name;
  /// Largest input the configuration is worth running on (expensive configurations, such
  /// as many more threads than cores, are only run where they test something).
  std::size_t max_n = static_cast<std::size_t>(-1);
};

/// \brief The sequential reference backend.
struct seq_backend {
  static constexpr const char* name = "seq";
  static constexpr bool available = true;
  static constexpr const char* unavailable_reason = "";
  using policy_type = parprim::seq_policy;
  template <class T>
  using buffer = host_buffer<T>;

  static std::vector<named_policy<policy_type>> policies() { return {{parprim::seq, "seq"}}; }
  static std::vector<named_policy<policy_type>> large_policies() { return policies(); }
  static std::vector<named_policy<policy_type>> determinism_policies() { return policies(); }
  static std::vector<named_policy<policy_type>> reproducibility_policies() { return policies(); }
};

/// \brief The OpenMP backend (target parprim::openmp, macro PARPRIM_HAS_OPENMP).
struct omp_backend {
  static constexpr const char* name = "omp";
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  static constexpr bool available = true;
#else
  static constexpr bool available = false;
#endif
  static constexpr const char* unavailable_reason =
      "OpenMP backend not built: parprim was configured without OpenMP (PARPRIM_WITH_OPENMP) "
      "or this test is not linked to parprim::openmp, so PARPRIM_HAS_OPENMP is undefined";
  using policy_type = parprim::omp_policy;
  template <class T>
  using buffer = host_buffer<T>;

  /// Thread counts {1, 2, 3, 7, 64} with grain 1, so that even 2-element inputs really run in
  /// parallel (64: more threads than elements; a call costs about a millisecond on a 2-core
  /// machine, so only up to 257 elements); a mid grain (inputs below 2 * 5 elements
  /// sequential, others split); and the default policy (all threads, default grain:
  /// sequential below 2 * default_grain elements).
  static std::vector<named_policy<policy_type>> policies() {
    std::vector<named_policy<policy_type>> v;
    for (int t : {1, 2, 3, 7})
      v.push_back(
          {parprim::omp.threads(t).grain(1), "omp.threads(" + std::to_string(t) + ").grain(1)"});
    v.push_back({parprim::omp.threads(64).grain(1), "omp.threads(64).grain(1)", 257});
    v.push_back({parprim::omp.threads(4).grain(5), "omp.threads(4).grain(5)"});
    v.push_back({parprim::omp, "omp (default threads and grain)"});
    return v;
  }
  static std::vector<named_policy<policy_type>> large_policies() {
    return {{parprim::omp.threads(3).grain(1), "omp.threads(3).grain(1)"},
            {parprim::omp.threads(7).grain(1), "omp.threads(7).grain(1)"},
            {parprim::omp.threads(2), "omp.threads(2) (default grain)"},
            {parprim::omp, "omp (default threads and grain)"}};
  }
  static std::vector<named_policy<policy_type>> determinism_policies() {
    std::vector<named_policy<policy_type>> v;
    for (int t : {1, 3, 7})
      v.push_back(
          {parprim::omp.threads(t).grain(1), "omp.threads(" + std::to_string(t) + ").grain(1)"});
    v.push_back({parprim::omp, "omp (default threads and grain)"});
    return v;
  }
  /// Thread counts 1, 2, 3, 7 and 16 with grain 1 (16: more threads than the 2-core test
  /// machine has; so only up to 100000 elements), 4 threads with a grain of half a chunk of the
  /// exact sums (blocks that split their chunks), and the default policy.
  static std::vector<named_policy<policy_type>> reproducibility_policies() {
    std::vector<named_policy<policy_type>> v;
    for (int t : {1, 2, 3, 7})
      v.push_back(
          {parprim::omp.threads(t).grain(1), "omp.threads(" + std::to_string(t) + ").grain(1)"});
    v.push_back({parprim::omp.threads(16).grain(1), "omp.threads(16).grain(1)", 100000});
    v.push_back({parprim::omp.threads(4).grain(512), "omp.threads(4).grain(512)"});
    v.push_back({parprim::omp, "omp (default threads and grain)"});
    return v;
  }
};

// Later: struct cuda_backend { ... using buffer = device_buffer<T>; ... }; struct mpi_backend.

/// \brief THE list. Add a backend here.
using backends = ::testing::Types<seq_backend, omp_backend>;

/// \brief Calls `body(named_policy)` for each policy in `list()` of backend `B`, or marks the
/// test skipped when `B` is not available in this build. `body` is a generic lambda: it is
/// instantiated only for available backends, so an unbuilt backend never has to compile.
/// `body` may take the policy's index as a second argument. Skips policies whose `max_n` is below
/// `n`. Stops at the first policy that produced a fatal failure.
template <class B, class ListFn, class Body>
void for_each_policy(ListFn list, Body body, std::size_t n = 0) {
  if constexpr (!B::available) {
    GTEST_SKIP() << B::unavailable_reason;
  } else {
    std::size_t index = 0;
    for (const auto& p : list()) {
      if (n > p.max_n) continue;
      SCOPED_TRACE("policy: " + p.name);
      if constexpr (std::is_invocable_v<Body&, decltype(p), std::size_t>)
        body(p, index++);
      else
        body(p);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

/// \brief for_each_policy over `B::policies()`, the policies of the small sizes.
template <class B, class Body>
void for_each_policy(Body body) {
  for_each_policy<B>([] { return B::policies(); }, body);
}

}  // namespace parprim_test
