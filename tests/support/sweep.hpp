#pragma once
/// \file
/// \brief The loops every primitive's test body runs in: over the sizes (one seed, one input
/// and init per size), over a backend's policies at a size, and over head-flag densities.
/// A test body is the check inside them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "backends.hpp"
#include "harness.hpp"

namespace parprim_test {

/// \brief One size of a sweep: its value, its number in the list, the seed, and the input and
/// init drawn (in that order) from make_rng(seed, n).
template <class Case>
struct sweep_size {
  std::uint64_t seed;
  std::size_t n, index;
  std::vector<typename Case::in_t> input;
  typename Case::acc_t init;
};

/// \brief Calls `body(const sweep_size<Case>&)` for each of `sizes`, with the seed and the size
/// in the failure trace; stops at the first fatal failure or skip.
template <class Case, class Body>
void for_each_size(const std::vector<std::size_t>& sizes, Body body) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::size_t index = 0;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    rng_t r = make_rng(seed, n);
    auto input = make_input<Case>(r, n);
    const auto init = Case::init(r);
    body(sweep_size<Case>{seed, n, index++, std::move(input), init});
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

/// \brief Calls `body(named_policy, index)` for each policy of `B` that runs at size number
/// `size_index` of value `n`: policies() or, when `large`, the half of large_policies() that
/// runs_policy picks (for_each_policy: skipped when `B` is not built).
template <class B, class Body>
void for_each_policy_at(bool large, std::size_t n, std::size_t size_index, Body body) {
  const auto list = [large] { return large ? B::large_policies() : B::policies(); };
  const std::size_t policies = list().size();
  for_each_policy<B>(
      list,
      [&](const auto& p, std::size_t i) {
        if (runs_policy(large, size_index, i, policies)) body(p, i);
      },
      n);
}

/// \brief Calls `body(density, index)` for each of `densities`, `what` and the density's name
/// in the failure trace; stops at the first fatal failure or skip.
template <std::size_t N, class Body>
void for_each_density(const density (&densities)[N], const char* what, Body body) {
  for (std::size_t di = 0; di < N; ++di) {
    SCOPED_TRACE(std::string(what) + density_name(densities[di]));
    body(densities[di], di);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

}  // namespace parprim_test
