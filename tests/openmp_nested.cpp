/// \file
/// \brief OpenMP-specific: parprim called with parprim::omp from inside an OpenMP parallel
/// region (one team of omp_get_max_threads() threads, each calling parprim on its own data)
/// gives the sequential result and returns (no deadlock, no nested-team explosion). Run with
/// nested parallelism off (the default) and on (max_active_levels = 2), and from an inactive
/// region of one thread. CTest gives the test a timeout, so a deadlock fails it. The exact_plus
/// scan among the calls sizes its blocks by the threads' speeds, for as many threads as the
/// region really has (one, where nesting is off, however many the policy asks for).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/harness.hpp"

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <omp.h>
#endif

namespace parprim_test {
namespace {

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP

struct per_thread {
  std::int64_t sum = 0;
  std::vector<std::int64_t> scan, seg;
  std::vector<float> exact;  // exact_plus scan of in[i] / 1024 as floats
  bool threw = false;
};

/// Every thread of a team of `team` threads reduces and scans its own input with `policy`.
void nested_calls(int team, const parprim::omp_policy& policy, std::uint64_t seed) {
  const std::size_t n = 50021;
  std::vector<std::vector<std::int32_t>> inputs(static_cast<std::size_t>(team));
  std::vector<std::vector<std::uint8_t>> flags(static_cast<std::size_t>(team));
  for (int t = 0; t < team; ++t) {
    rng_t r = make_rng(seed, n, static_cast<std::uint64_t>(t));
    auto& in = inputs[static_cast<std::size_t>(t)];
    in.resize(n);
    for (auto& x : in) x = uniform_int<std::int32_t>(r, -1000, 1000);
    flags[static_cast<std::size_t>(t)] = make_flags(r, n, density::third);
  }
  std::vector<per_thread> got(static_cast<std::size_t>(team));
  int seen_team = 0;
#pragma omp parallel num_threads(team)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
#pragma omp single
    seen_team = omp_get_num_threads();
    try {
      got[t].sum = parprim::reduce(policy, inputs[t], std::int64_t{7}, parprim::plus{});
      got[t].scan.assign(n, -1);
      parprim::inclusive_scan(policy, inputs[t], got[t].scan, parprim::plus{});
      got[t].seg.assign(n, -1);
      parprim::segmented_exclusive_scan(policy, inputs[t], flags[t], got[t].seg, std::int64_t{3},
                                        parprim::plus{});
      std::vector<float> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(inputs[t][i]) * 0x1p-10f;
      got[t].exact.assign(n, -1.0f);
      parprim::inclusive_scan(policy, x, got[t].exact, parprim::exact_plus{});
    } catch (...) {
      got[t].threw = true;
    }
  }
  for (int t = 0; t < seen_team; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t) + " of " + std::to_string(seen_team));
    const auto& in = inputs[static_cast<std::size_t>(t)];
    const auto& g = got[static_cast<std::size_t>(t)];
    ASSERT_FALSE(g.threw);
    std::int64_t want = 7;
    std::vector<std::int64_t> scan(n), seg(n);
    std::vector<float> exact(n);  // prefix sums of multiples of 2^-10: exact in double
    std::int64_t acc = 0, sacc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      want += in[i];
      acc += in[i];
      scan[i] = acc;
      exact[i] = static_cast<float>(static_cast<double>(acc) * 0x1p-10);
      if (i == 0 || flags[static_cast<std::size_t>(t)][i]) sacc = 3;
      seg[i] = sacc;
      sacc += in[i];
    }
    EXPECT_EQ(g.sum, want);
    EXPECT_EQ(g.scan, scan);
    EXPECT_EQ(g.seg, seg);
    EXPECT_EQ(g.exact, exact) << "exact_plus inclusive scan";
  }
}

class OpenMPNested : public ::testing::Test {
 protected:
  void TearDown() override { omp_set_max_active_levels(saved_levels_); }
  int saved_levels_ = omp_get_max_active_levels();
};

TEST_F(OpenMPNested, FromInsideParallelRegion) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  const int team = omp_get_max_threads();
  for (const auto& policy :
       {parprim::omp.grain(1), parprim::omp.threads(4).grain(1), parprim::omp}) {
    SCOPED_TRACE("threads " + std::to_string(policy.thread_count()) + ", grain " +
                 std::to_string(policy.grain_size()));
    nested_calls(team, policy, seed);
    nested_calls(std::max(team, 3), policy, seed);  // at least 3 threads even on a small machine
  }
}

TEST_F(OpenMPNested, FromInsideParallelRegionWithNestingEnabled) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  omp_set_max_active_levels(2);
  nested_calls(omp_get_max_threads(), parprim::omp.grain(1), seed);
  nested_calls(3, parprim::omp.threads(3).grain(1), seed);
}

TEST_F(OpenMPNested, FromInactiveRegionOfOneThread) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  nested_calls(1, parprim::omp.threads(3).grain(1), seed);
}

#else

TEST(OpenMPNested, Skipped) {
  GTEST_SKIP() << "OpenMP backend not built: parprim was configured without OpenMP or this "
                  "test is not linked to parprim::openmp (PARPRIM_HAS_OPENMP undefined)";
}

#endif

}  // namespace
}  // namespace parprim_test
