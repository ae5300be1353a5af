/// \file
/// \brief parprim::exact_plus on a communicator: every primitive's float and double results,
/// for every split of the global sequence over the ranks (uneven, empty ranks first, last,
/// odd) and both host local policies, equal bit for bit the exact reference of
/// tests/support/exact_reference.hpp on the gathered global sequence: the same bits as on
/// seq and omp (tests/exact_plus.cpp), whatever the rank count.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/exact_reference.hpp"
#include "../support/exact_values.hpp"
#include "support.hpp"

namespace parprim_mpi_test {
namespace {

using parprim_test::exact_expected;
using parprim_test::exact_mix;
using parprim_test::same_bits;

template <class Local, class F>
struct exact_combo {
  using local = Local;
  using value_type = F;
};

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
using exact_combos =
    ::testing::Types<exact_combo<seq_local, float>, exact_combo<seq_local, double>,
                     exact_combo<omp_local, float>, exact_combo<omp_local, double>>;
#else
using exact_combos =
    ::testing::Types<exact_combo<seq_local, float>, exact_combo<seq_local, double>>;
#endif

struct exact_combo_names {
  template <class C>
  static std::string GetName(int) {
    return std::string(C::local::name) + (sizeof(typename C::value_type) == 4 ? "_f32" : "_f64");
  }
};

/// \brief Bitwise comparison of a gathered result with the reference; the first mismatch.

template <class F>
bool same_value(F a, F b) {
  return std::memcmp(&a, &b, sizeof(F)) == 0;
}

constexpr exact_mix mpi_mixes[] = {
    exact_mix::uniform,      exact_mix::wide, exact_mix::cancellation, exact_mix::special,
    exact_mix::signed_zeros, exact_mix::ties, exact_mix::overflow,     exact_mix::mixed_scale};
constexpr std::size_t mpi_sizes[] = {0, 1, 2, 5, 97, 3001, 20011};

template <class C>
class MpiExactPlus : public ::testing::Test {};
TYPED_TEST_SUITE(MpiExactPlus, exact_combos, exact_combo_names);

TYPED_TEST(MpiExactPlus, EveryPrimitiveEqualsExactReference) {
  using F = typename TypeParam::value_type;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::local::policy());
  const parprim::exact_plus op{};
  std::uint64_t k = 0;
  for (const exact_mix mix : mpi_mixes) {
    SCOPED_TRACE(std::string("input: ") + parprim_test::exact_mix_name(mix));
    for (const std::size_t n : mpi_sizes) {
      for (const split s : all_splits) {
        rng_t r = make_rng(static_cast<std::uint64_t>(mix) + 101, n, ++k);
        const std::vector<F> in = parprim_test::exact_input<F>(mix, r, n);
        std::vector<std::uint8_t> flags(n);
        for (auto& f : flags) f = uniform_int<int>(r, 0, 7) == 0 ? 1 : 0;
        const F init = parprim_test::exact_input<F>(mix, r, 1)[0];
        const layout l = make_layout(s, n, w.size, r);
        SCOPED_TRACE("n = " + std::to_string(n) + ", split: " + split_name(s));
        const auto mine = std::span(in).subspan(l.offset[w.rank], l.count[w.rank]);
        const auto my_flags =
            std::span<const std::uint8_t>(flags).subspan(l.offset[w.rank], l.count[w.rank]);
        std::vector<F> out(mine.size());

        const F sum = parprim::reduce(policy, mine, init, op);
        EXPECT_TRUE(same_value(sum, exact_expected<F>::reduce(in, init))) << "reduce";
        for (const F other : allgather_value(sum))
          EXPECT_TRUE(same_value(other, sum)) << "a rank disagrees";
        // the other ranks get init back, rounded like every result (a NaN: the default NaN)
        const F at_root = parprim::reduce(policy.root(w.size - 1), mine, init, op);
        const F init_back = exact_expected<F>::reduce(std::vector<F>{}, init);
        EXPECT_TRUE(same_value(at_root, w.rank == w.size - 1 ? sum : init_back)) << "reduce, root";

        // a scan's blocks, gathered, bitwise against the reference scan of `source`
        const auto expect_scan = [&](const std::vector<F>& got, const std::vector<F>& source,
                                     const std::uint8_t* heads, bool exclusive, const char* what) {
          EXPECT_TRUE(same_bits(allgather_blocks<F>(got, l),
                                exact_expected<F>::scan(source, heads, exclusive, init)))
              << what;
        };
        parprim::inclusive_scan(policy, mine, out, op);
        expect_scan(out, in, nullptr, false, "inclusive_scan");
        parprim::exclusive_scan(policy, mine, out, init, op);
        expect_scan(out, in, nullptr, true, "exclusive_scan");
        std::vector<F> inout(mine.begin(), mine.end());
        parprim::inclusive_scan(policy, inout, inout, op);
        expect_scan(inout, in, nullptr, false, "inclusive_scan in place");
        parprim::segmented_inclusive_scan(policy, mine, my_flags, out, op);
        expect_scan(out, in, flags.data(), false, "segmented_inclusive_scan");
        parprim::segmented_exclusive_scan(policy, mine, my_flags, out, init, op);
        expect_scan(out, in, flags.data(), true, "segmented_exclusive_scan");

        // per-segment: the flags' segments (spanning ranks), the same runs as keys, and CSR
        // offsets of each rank's own block
        const std::vector<F> with_init = exact_expected<F>::segments(in, flags, &init);
        const std::size_t segments =
            parprim::segmented_reduce(policy, mine, my_flags, out, init, op);
        EXPECT_TRUE(same_bits(allgather_results<F>(out, segments), with_init))
            << "segmented_reduce";
        std::vector<std::int32_t> keys(n);
        for (std::size_t i = 0, run = 0; i < n; ++i)
          keys[i] = static_cast<std::int32_t>(run += (i == 0 || flags[i] != 0) ? 1 : 0);
        const auto my_keys =
            std::span<const std::int32_t>(keys).subspan(l.offset[w.rank], l.count[w.rank]);
        std::vector<std::int32_t> keys_out(mine.size());
        const std::size_t runs = parprim::reduce_by_key(policy, my_keys, mine, keys_out, out, op);
        EXPECT_TRUE(same_bits(allgather_results<F>(out, runs),
                              exact_expected<F>::segments(in, flags, nullptr)))
            << "reduce_by_key";
        parprim::inclusive_scan_by_key(policy, my_keys, mine, out, op);
        expect_scan(out, in, flags.data(), false, "inclusive_scan_by_key");
        parprim::exclusive_scan_by_key(policy, my_keys, mine, out, init, op);
        expect_scan(out, in, flags.data(), true, "exclusive_scan_by_key");
        {
          std::vector<std::int64_t> begins;
          for (std::size_t i = 0; i < mine.size(); ++i)
            if (i == 0 || my_flags[i] != 0) begins.push_back(static_cast<std::int64_t>(i));
          begins.push_back(static_cast<std::int64_t>(mine.size()));
          std::vector<F> per_block(begins.size() - 1);
          parprim::segmented_reduce(policy, mine, parprim::offsets(begins), per_block, init, op);
          EXPECT_TRUE(same_bits(
              per_block, exact_expected<F>::segments(
                             std::vector<F>(mine.begin(), mine.end()),
                             std::vector<std::uint8_t>(my_flags.begin(), my_flags.end()), &init)))
              << "segmented_reduce (offsets of this rank's block)";
        }
        // transforms: f(x) = 2x is exact
        const auto twice = [](F v) { return v * F(2); };
        std::vector<F> doubled(n);
        for (std::size_t i = 0; i < n; ++i) doubled[i] = twice(in[i]);
        EXPECT_TRUE(same_value(parprim::transform_reduce(policy, mine, init, op, twice),
                               exact_expected<F>::reduce(doubled, init)))
            << "transform_reduce";
        parprim::transform_inclusive_scan(policy, mine, out, op, twice);
        expect_scan(out, doubled, nullptr, false, "transform_inclusive_scan");
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

/// A prefix of -0 operands only is -0, also where the ranks before hold only -0 (their carry
/// then says no other operand came before): inputs that start with k copies of -0, then
/// uniform values and the same values negated in reverse (the last prefix an exact zero), and
/// one input of -0 only, over every split; the scans (exclusive from -0 and from +0).
TYPED_TEST(MpiExactPlus, LeadingNegativeZerosKeepTheirSign) {
  using F = typename TypeParam::value_type;
  SCOPED_TRACE(seed_trace());
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(TypeParam::local::policy());
  const parprim::exact_plus op{};
  for (const std::size_t k : {std::size_t{33}, std::size_t{1025}, std::size_t{5000}}) {
    const std::size_t half = k == 5000 ? 0 : 1500;  // (5000: -0 only)
    for (const split s : all_splits) {
      rng_t r = make_rng(k, half, static_cast<std::uint64_t>(s) + 1);
      const std::vector<F> in = parprim_test::leading_negative_zeros<F>(r, k, half);
      std::vector<std::uint8_t> flags(in.size(), 0);
      flags[k / 2] = 1;
      const layout l = make_layout(s, in.size(), w.size, r);
      SCOPED_TRACE("leading -0: " + std::to_string(k) + ", split: " + split_name(s));
      const auto mine = std::span(in).subspan(l.offset[w.rank], l.count[w.rank]);
      const auto my_flags =
          std::span<const std::uint8_t>(flags).subspan(l.offset[w.rank], l.count[w.rank]);
      std::vector<F> out(mine.size());
      const auto expect_scan = [&](const std::uint8_t* heads, bool exclusive, F init,
                                   const char* what) {
        EXPECT_TRUE(same_bits(allgather_blocks<F>(out, l),
                              exact_expected<F>::scan(in, heads, exclusive, init)))
            << what;
      };
      parprim::inclusive_scan(policy, mine, out, op);
      expect_scan(nullptr, false, F(-0.0), "inclusive_scan");
      for (const F init : {F(-0.0), F(0.0)}) {
        parprim::exclusive_scan(policy, mine, out, init, op);
        expect_scan(nullptr, true, init,
                    std::signbit(init) ? "exclusive_scan from -0" : "exclusive_scan from +0");
      }
      parprim::segmented_inclusive_scan(policy, mine, my_flags, out, op);
      expect_scan(flags.data(), false, F(-0.0), "segmented_inclusive_scan");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace parprim_mpi_test
