/// \file
/// \brief Run-to-run determinism: the same call twice with the same policy (thread count,
/// grain) on the same input gives bitwise identical float results (memcmp), for every
/// primitive, at a large size, for every policy in the backend's determinism_policies()
/// (OpenMP: threads 1, 3, 7 with grain 1, and the default policy).
/// The second run uses a fresh copy of the input at another address, so a result that
/// depended on alignment would show up too.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

template <class B>
class Determinism : public ::testing::Test {};
TYPED_TEST_SUITE(Determinism, backends);

// Float values of mixed magnitude and sign, so that every reassociation changes the result.
std::vector<float> mixed_floats(rng_t& r, std::size_t n) {
  std::vector<float> v(n);
  for (auto& x : v)
    x = uniform_real<float>(r, -1.0f, 1.0f) * std::ldexp(1.0f, uniform_int<int>(r, -20, 20));
  return v;
}

TYPED_TEST(Determinism, FloatSumsAreBitwiseRepeatable) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  const std::size_t n = (std::size_t{1} << 22) + 3;
  rng_t r = make_rng(seed, n);
  const std::vector<float> input = mixed_floats(r, n);
  const std::vector<std::uint8_t> flags = make_flags(r, n, density::thousandth);
  for_each_policy<TypeParam>(
      [] { return TypeParam::determinism_policies(); },
      [&](const auto& p) {
        // Runs `call(in, out)` twice, each time on a fresh copy of the input, and memcmps.
        const auto twice = [&](const char* what, auto out_type, auto call) {
          using Out = decltype(out_type);
          std::vector<Out> results[2];
          for (auto& res : results) {
            const std::vector<float> copy = input;
            res.assign(n, Out(-7));
            call(copy, res);
          }
          std::size_t i = 0;
          while (i < n && std::memcmp(&results[0][i], &results[1][i], sizeof(Out)) == 0) ++i;
          EXPECT_TRUE(bitwise_equal(results[0], results[1]))
              << what << ": the two runs differ first at element " << i << ": "
              << show(results[0][i]) << " vs " << show(results[1][i]);
        };
        twice("reduce (float)", float{}, [&](const auto& in, auto& out) {
          out[0] = parprim::reduce(p.policy, in, 0.5f, parprim::plus{});
        });
        twice("reduce (float in, double accumulator)", double{}, [&](const auto& in, auto& out) {
          out[0] = parprim::reduce(p.policy, in, 0.0, parprim::plus{});
        });
        twice("inclusive_scan", float{},
              [&](const auto& in, auto& out) { parprim::inclusive_scan(p.policy, in, out); });
        twice("inclusive_scan (float in, double out)", double{},
              [&](const auto& in, auto& out) { parprim::inclusive_scan(p.policy, in, out); });
        twice("exclusive_scan", float{}, [&](const auto& in, auto& out) {
          parprim::exclusive_scan(p.policy, in, out, 0.25f, parprim::plus{});
        });
        twice("segmented_inclusive_scan", float{}, [&](const auto& in, auto& out) {
          parprim::segmented_inclusive_scan(p.policy, in, flags, out, parprim::plus{});
        });
        twice("segmented_exclusive_scan", float{}, [&](const auto& in, auto& out) {
          parprim::segmented_exclusive_scan(p.policy, in, flags, out, 0.25f, parprim::plus{});
        });
      });
}

}  // namespace
}  // namespace parprim_test
