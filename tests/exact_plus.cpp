/// \file
/// \brief parprim::exact_plus on every host backend of support/backends.hpp: every primitive's
/// float and double results must equal, bit for bit, the exact sum of their operands rounded
/// once (support/exact_reference.hpp, an independent big-integer reference), for every
/// configuration in the backend's reproducibility_policies() (OpenMP: 1, 2, 3, 7 and 16
/// threads, several grains), on the inputs of support/exact_values.hpp (wide exponents,
/// cancellation, subnormals, signed zeros, NaN and infinities, overflow, halfway cases) at
/// awkward sizes. Equal to one reference, the configurations are equal to each other.

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#endif

#include "support/backends.hpp"
#include "support/exact_reference.hpp"
#include "support/exact_values.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

/// \brief Around the chunk of the exact sums (1024), small primes, 2^k +- 1.
std::vector<std::size_t> exact_sizes() {
  return {0,   1,   2,    3,    5,    7,    31,   32,   33,    127,
          128, 129, 1023, 1024, 1025, 2047, 2049, 4099, 10007, 65537};
}

/// \brief What make_expectation needs to know: results compared exactly.
template <class F>
struct exact_case {
  using acc_t = F;
  static constexpr bool approximate = false;
};

/// \brief The expected output buffer (guards, then `body`), compared bit for bit.
template <class F>
::testing::AssertionResult same_bits(const std::vector<F>& body, std::span<const F> got) {
  expectation<F> e = make_expectation<exact_case<F>>(body.size());
  std::copy(body.begin(), body.end(), e.exact.begin() + static_cast<std::ptrdiff_t>(guard));
  return matches(e, got);
}

/// \brief Bitwise equality of two result lists.
template <class F>
::testing::AssertionResult same_list(const std::vector<F>& got, const std::vector<F>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " results instead of " << want.size();
  for (std::size_t s = 0; s < got.size(); ++s)
    if (!exact_equal(got[s], want[s]))
      return ::testing::AssertionFailure()
             << "result " << s << ": got " << show(got[s]) << ", expected " << show(want[s]);
  return ::testing::AssertionSuccess();
}

/// \brief The per-segment calls on the segments of `flags`: as head flags, as CSR offsets
/// (with an empty segment in front), as runs of equal keys (the segment's index).
template <class F, class Policy>
void check_per_segment(const named_policy<Policy>& p, const std::vector<F>& in,
                       std::span<const F> x, const std::vector<std::uint8_t>& flags, F init) {
  const parprim::exact_plus op{};
  const std::size_t n = in.size();
  const std::vector<F> with_init = exact_expected<F>::segments(in, flags, &init);
  std::vector<F> out(with_init.size());
  EXPECT_EQ(parprim::segmented_reduce(p.policy, x, flags, out, init, op), with_init.size());
  EXPECT_TRUE(same_list(out, with_init)) << "segmented_reduce (head flags)";
  std::vector<std::int64_t> begins = {0};  // an empty segment, then the flags' segments
  std::vector<std::int32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || flags[i] != 0) begins.push_back(static_cast<std::int64_t>(i));
    keys[i] = static_cast<std::int32_t>(begins.size());
  }
  begins.push_back(static_cast<std::int64_t>(n));
  std::vector<F> by_offsets(begins.size() - 1);
  parprim::segmented_reduce(p.policy, x, parprim::offsets(begins), by_offsets, init, op);
  std::vector<F> want_offsets = {exact_expected<F>::reduce(std::vector<F>{}, init)};
  want_offsets.insert(want_offsets.end(), with_init.begin(), with_init.end());
  EXPECT_TRUE(same_list(by_offsets, want_offsets)) << "segmented_reduce (offsets)";
  const std::vector<F> runs = exact_expected<F>::segments(in, flags, nullptr);
  std::vector<std::int32_t> keys_out(n);
  std::vector<F> run_sums(n);
  const std::size_t k = parprim::reduce_by_key(p.policy, keys, x, keys_out, run_sums, op);
  run_sums.resize(k);
  EXPECT_TRUE(same_list(run_sums, runs)) << "reduce_by_key";
  std::vector<F> scanned(n);
  parprim::inclusive_scan_by_key(p.policy, keys, x, scanned, op);
  EXPECT_TRUE(same_list(scanned, exact_expected<F>::scan(in, flags.data(), false, init)))
      << "inclusive_scan_by_key";
  parprim::exclusive_scan_by_key(p.policy, keys, x, scanned, init, op);
  EXPECT_TRUE(same_list(scanned, exact_expected<F>::scan(in, flags.data(), true, init)))
      << "exclusive_scan_by_key";
}

/// \brief Every primitive on one input with one policy, against the reference.
template <class B, class F, class Policy>
void check_all(const named_policy<Policy>& p, const std::vector<F>& in,
               const std::vector<std::uint8_t>& flags, F init) {
  using buf = typename B::template buffer<F>;
  const parprim::exact_plus op{};
  const std::size_t n = in.size();
  buf input{std::span<const F>(in)};
  const std::span<const F> x(input.range());
  const auto poisoned_out = [n] { return buf(n, byte_pattern<F>(poison_byte)); };

  {
    const F got = parprim::reduce(p.policy, x, init, op);
    const F want = exact_expected<F>::reduce(in, init);
    EXPECT_TRUE(exact_equal(got, want))
        << "reduce: got " << show(got) << ", expected " << show(want);
  }
  const auto inclusive = exact_expected<F>::scan(in, nullptr, false, init);
  const auto exclusive = exact_expected<F>::scan(in, nullptr, true, init);
  {
    buf out = poisoned_out();
    parprim::inclusive_scan(p.policy, x, out.range(), op);
    EXPECT_TRUE(same_bits(inclusive, out.read_all())) << "inclusive_scan";
  }
  {
    buf out = poisoned_out();
    parprim::exclusive_scan(p.policy, x, out.range(), init, op);
    EXPECT_TRUE(same_bits(exclusive, out.read_all())) << "exclusive_scan";
  }
  {
    buf inout{std::span<const F>(in)};  // in place
    parprim::inclusive_scan(p.policy, inout.range(), inout.range(), op);
    EXPECT_TRUE(same_bits(inclusive, inout.read_all())) << "inclusive_scan in place";
  }
  {
    buf inout{std::span<const F>(in)};
    parprim::exclusive_scan(p.policy, inout.range(), inout.range(), init, op);
    EXPECT_TRUE(same_bits(exclusive, inout.read_all())) << "exclusive_scan in place";
  }
  {
    buf out = poisoned_out();
    parprim::segmented_inclusive_scan(p.policy, x, flags, out.range(), op);
    EXPECT_TRUE(same_bits(exact_expected<F>::scan(in, flags.data(), false, init), out.read_all()))
        << "segmented_inclusive_scan";
  }
  {
    buf out = poisoned_out();
    parprim::segmented_exclusive_scan(p.policy, x, flags, out.range(), init, op);
    EXPECT_TRUE(same_bits(exact_expected<F>::scan(in, flags.data(), true, init), out.read_all()))
        << "segmented_exclusive_scan";
  }
  check_per_segment(p, in, x, flags, init);
  EXPECT_TRUE(unchanged(input.read_all(), std::span<const F>(in))) << "the input changed";
}

/// \brief The transforms, float elements: f(x) = x * x and f(x, y) = x * y in double are exact
/// (a product of two floats has at most 48 bits), so the results are the exact sum of squares
/// and the exact dot product rounded once to double; and the float sum of x / 3 (each quotient
/// rounded to float first: the contract converts f(x) to the accumulator type).
template <class B, class Policy>
void check_transforms(const named_policy<Policy>& p, const std::vector<float>& in) {
  const parprim::exact_plus op{};
  const std::size_t n = in.size();
  const auto square = [](float v) { return static_cast<double>(v) * static_cast<double>(v); };
  const auto product = [](float a, float b) { return static_cast<double>(a) * b; };
  const auto third = [](float v) { return v / 3.0f; };
  const std::vector<float> rev(in.rbegin(), in.rend());
  std::vector<double> squares(n), products(n);
  std::vector<float> thirds(n);
  for (std::size_t i = 0; i < n; ++i) {
    squares[i] = square(in[i]);
    products[i] = product(in[i], rev[i]);
    thirds[i] = third(in[i]);
  }
  typename B::template buffer<float> a{std::span<const float>(in)};
  typename B::template buffer<float> b{std::span<const float>(rev)};
  const std::span<const float> x(a.range()), y(b.range());
  EXPECT_TRUE(exact_equal(parprim::transform_reduce(p.policy, x, 0.0, op, square),
                          exact_expected<double>::reduce(squares, 0.0)))
      << "transform_reduce, sum of squares";
  EXPECT_TRUE(exact_equal(parprim::transform_reduce(p.policy, x, y, -0.0, op, product),
                          exact_expected<double>::reduce(products, -0.0)))
      << "transform_reduce, dot product";
  EXPECT_TRUE(exact_equal(parprim::transform_reduce(p.policy, x, 0.0f, op, third),
                          exact_expected<float>::reduce(thirds, 0.0f)))
      << "transform_reduce, float sum of x / 3";
  typename B::template buffer<double> out(n, byte_pattern<double>(poison_byte));
  parprim::transform_inclusive_scan(p.policy, x, out.range(), op, square);
  EXPECT_TRUE(same_bits(exact_expected<double>::scan(squares, nullptr, false, 0.0), out.read_all()))
      << "transform_inclusive_scan";
  parprim::transform_exclusive_scan(p.policy, x, out.range(), 1.0, op, square);
  EXPECT_TRUE(same_bits(exact_expected<double>::scan(squares, nullptr, true, 1.0), out.read_all()))
      << "transform_exclusive_scan";
}

template <class B, class F>
void run_exact(const std::vector<std::size_t>& sizes, std::span<const exact_mix> mixes,
               bool large) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const exact_mix mix : mixes) {
    SCOPED_TRACE(std::string("input: ") + exact_mix_name(mix));
    std::size_t size_index = 0;
    for (const std::size_t n : sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      rng_t r = make_rng(seed, n, static_cast<std::uint64_t>(mix) + 1);
      const std::vector<F> in = exact_input<F>(mix, r, n);
      const std::vector<std::uint8_t> flags =
          make_flags(r, n, all_densities[size_index % std::size(all_densities)]);
      const F init = exact_input<F>(mix, r, 1)[0];
      const auto list = [] { return B::reproducibility_policies(); };
      const std::size_t policies = list().size();
      for_each_policy<B>(
          list,
          [&](const auto& p, std::size_t i) {
            if (!runs_policy(large, size_index, i, policies)) return;
            check_all<B>(p, in, flags, init);
            if constexpr (sizeof(F) == 4)
              if (mix == exact_mix::uniform || mix == exact_mix::wide) check_transforms<B>(p, in);
          },
          n);
      ++size_index;
      if (::testing::Test::HasFailure() || ::testing::Test::IsSkipped()) return;
    }
  }
}

template <class B>
class ExactPlus : public ::testing::Test {};
TYPED_TEST_SUITE(ExactPlus, backends);

template <class B>
class ExactPlusLarge : public ::testing::Test {};
TYPED_TEST_SUITE(ExactPlusLarge, backends);

TYPED_TEST(ExactPlus, FloatEqualsExactReference) {
  run_exact<TypeParam, float>(exact_sizes(), all_exact_mixes, false);
}
TYPED_TEST(ExactPlus, DoubleEqualsExactReference) {
  run_exact<TypeParam, double>(exact_sizes(), all_exact_mixes, false);
}

/// The chunk path at sizes where every thread holds many chunks (and the default OpenMP
/// policy runs in parallel).
constexpr exact_mix large_mixes[] = {exact_mix::uniform, exact_mix::mixed_scale,
                                     exact_mix::cancellation, exact_mix::integers};
TYPED_TEST(ExactPlusLarge, FloatEqualsExactReference) {
  run_exact<TypeParam, float>({1000003, (std::size_t{1} << 20) + 1}, large_mixes, true);
}
TYPED_TEST(ExactPlusLarge, DoubleEqualsExactReference) {
  run_exact<TypeParam, double>({1000003, (std::size_t{1} << 20) + 1}, large_mixes, true);
}

/// \brief Chunks of very different ranges side by side, over many OpenMP rounds: each run of
/// 1024 elements (the chunk) scaled by 1, 2^e or 2^-e in turn (e = 40 for float, 300 for
/// double), so a chunk summed with another chunk's survey (a backend reusing a fold's surveys
/// in its scan, and getting the wrong ones) would be sliced wrongly.
template <class B, class F>
void check_alternating_ranges() {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  const std::size_t n = 3 * (std::size_t{1} << 16) + 5;
  const int e = sizeof(F) == 4 ? 40 : 300;
  rng_t r = make_rng(seed, n, 97);
  std::vector<F> in = exact_input<F>(exact_mix::uniform, r, n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = std::ldexp(in[i], (static_cast<int>(i / 1024 % 3) - 1) * e);
  const F init = std::ldexp(F(1), e);
  const auto inclusive = exact_expected<F>::scan(in, nullptr, false, init);
  const auto exclusive = exact_expected<F>::scan(in, nullptr, true, init);
  using buf = typename B::template buffer<F>;
  buf input{std::span<const F>(in)};
  const std::span<const F> x(input.range());
  for_each_policy<B>([] { return B::reproducibility_policies(); },
                     [&](const auto& p) {
                       buf out(n, byte_pattern<F>(poison_byte));
                       parprim::inclusive_scan(p.policy, x, out.range(), parprim::exact_plus{});
                       EXPECT_TRUE(same_bits(inclusive, out.read_all())) << "inclusive_scan";
                       parprim::exclusive_scan(p.policy, x, out.range(), init,
                                               parprim::exact_plus{});
                       EXPECT_TRUE(same_bits(exclusive, out.read_all())) << "exclusive_scan";
                     },
                     n);
}

TYPED_TEST(ExactPlus, ChunksOfAlternatingRanges) {
  check_alternating_ranges<TypeParam, float>();
  check_alternating_ranges<TypeParam, double>();
}

/// \brief A prefix of -0 operands only is -0, and the first prefix with any other operand is
/// +0 where it sums to zero: inputs that start with k copies of -0 (across the chunks' edges and
/// beyond a chunk), then uniform values, then the same values negated in reverse (the last
/// prefix an exact zero), and one input of -0 only; inclusive and exclusive (from -0 and from
/// +0), and the segmented scans with a head inside the run of -0 and one after it.
template <class B, class F>
void check_leading_negative_zeros() {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  using buf = typename B::template buffer<F>;
  for (const std::size_t k : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                              std::size_t{100}, std::size_t{1023}, std::size_t{1024},
                              std::size_t{1025}, std::size_t{2500}, std::size_t{5000}}) {
    SCOPED_TRACE("leading -0: " + std::to_string(k));
    rng_t r = make_rng(seed, k, 101);
    const std::size_t half = k == 5000 ? 0 : 1500;  // (5000: -0 only)
    const std::vector<F> in = leading_negative_zeros<F>(r, k, half);
    const std::size_t n = in.size();
    std::vector<std::uint8_t> flags(n, 0);
    flags[k / 2] = 1;
    if (k + 10 < n) flags[k + 10] = 1;
    buf input{std::span<const F>(in)};
    const std::span<const F> x(input.range());
    for_each_policy<B>(
        [] { return B::reproducibility_policies(); },
        [&](const auto& p) {
          buf out(n, byte_pattern<F>(poison_byte));
          parprim::inclusive_scan(p.policy, x, out.range(), parprim::exact_plus{});
          EXPECT_TRUE(
              same_bits(exact_expected<F>::scan(in, nullptr, false, F(-0.0)), out.read_all()))
              << "inclusive_scan";
          for (const F init : {F(-0.0), F(0.0)}) {
            parprim::exclusive_scan(p.policy, x, out.range(), init, parprim::exact_plus{});
            EXPECT_TRUE(same_bits(exact_expected<F>::scan(in, nullptr, true, init), out.read_all()))
                << "exclusive_scan from " << show(init);
          }
          parprim::segmented_inclusive_scan(p.policy, x, flags, out.range(), parprim::exact_plus{});
          EXPECT_TRUE(
              same_bits(exact_expected<F>::scan(in, flags.data(), false, F(-0.0)), out.read_all()))
              << "segmented_inclusive_scan";
          parprim::segmented_exclusive_scan(p.policy, x, flags, out.range(), F(-0.0),
                                            parprim::exact_plus{});
          EXPECT_TRUE(
              same_bits(exact_expected<F>::scan(in, flags.data(), true, F(-0.0)), out.read_all()))
              << "segmented_exclusive_scan";
        },
        n);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(ExactPlus, LeadingNegativeZerosKeepTheirSign) {
  check_leading_negative_zeros<TypeParam, float>();
  check_leading_negative_zeros<TypeParam, double>();
}

/// \brief The OpenMP exact scans size each thread's block by its speed (speed_shares in
/// backends/openmp/detail/tiled_scan.hpp): the blocks tile every round exactly, whatever the
/// shares; a thread half as fast converges to half the others' block; none falls much below a
/// quarter of an even share; an empty block or an unmeasured time leaves the shares as they were.
TEST(ExactPlusOpenMP, BlocksFollowTheThreadsSpeeds) {
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  namespace od = parprim::openmp::detail;
  const auto tiles = [](const od::speed_shares& s, int p, std::size_t len) {
    std::size_t at = 0;
    for (int t = 0; t < p; ++t) {
      const od::block b = s.of(len, t);
      if (b.begin != at || b.end < b.begin) return false;
      at = b.end;
    }
    return at == len;
  };
  const auto length = [](const od::speed_shares& s, std::size_t len, int t) {
    const od::block b = s.of(len, t);
    return static_cast<double>(b.end - b.begin);
  };
  const std::size_t sizes[] = {0, 1, 3, 4, 5, 1000, 131072, 1000003};
  od::speed_shares s(4);
  for (const std::size_t len : sizes) EXPECT_TRUE(tiles(s, 4, len)) << "even shares, " << len;
  const std::size_t len = 1 << 20;
  const double half_speed[] = {1.0, 1.0, 1.0, 2.0};  // seconds for 1000 elements
  for (int round = 0; round < 30; ++round) {
    // each thread's time for its current block at its own speed
    s.update([&](std::size_t k) {
      const double l = length(s, len, int(k));
      return od::speed_shares::speed_of(static_cast<std::size_t>(l), half_speed[k] * l / 1000.0);
    });
    for (const std::size_t n : sizes) ASSERT_TRUE(tiles(s, 4, n)) << "round " << round << ", " << n;
  }
  EXPECT_NEAR(length(s, len, 3) / length(s, len, 0), 0.5, 0.02) << "a thread half as fast";
  const double before = length(s, len, 3);
  s.update([](std::size_t k) { return od::speed_shares::speed_of(k == 2 ? 0 : 1000, 1.0); });
  s.update([](std::size_t k) { return od::speed_shares::speed_of(1000, k == 1 ? 0.0 : 1.0); });
  EXPECT_EQ(length(s, len, 3), before) << "an empty block or no time: unchanged";
  for (int round = 0; round < 30; ++round)
    s.update([](std::size_t k) { return od::speed_shares::speed_of(1000, k == 3 ? 1000.0 : 1.0); });
  EXPECT_GE(length(s, len, 3), 0.9 * 0.25 * 0.25 * static_cast<double>(len))
      << "a very slow thread keeps about a quarter of an even share";
  for (const std::size_t n : sizes) EXPECT_TRUE(tiles(s, 4, n)) << "clamped shares, " << n;
#else
  GTEST_SKIP() << "the OpenMP backend is not built (PARPRIM_WITH_OPENMP) or not linked to this "
                  "test: its block sizing is tested where it is";
#endif
}

/// \brief The documented semantics on every policy: one rounding, special values, signed
/// zeros, integers.
TYPED_TEST(ExactPlus, DocumentedCases) {
  const parprim::exact_plus op{};
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  const auto bits = [](float v) { return std::bit_cast<std::uint32_t>(v); };
  for_each_policy<TypeParam>(
      [] { return TypeParam::reproducibility_policies(); },
      [&](const auto& p) {
        const auto sum = [&](std::vector<float> v, float init = 0.0f) {
          return parprim::reduce(p.policy, v, init, op);
        };
        EXPECT_EQ(sum({1e30f, 1.0f, -1e30f}), 1.0f) << "cancellation";
        EXPECT_EQ(sum({1.0f, 0x1p-24f}), 1.0f) << "a tie rounds to even";
        EXPECT_EQ(sum({1.0f, 0x1p-24f, 0x1p-60f}), 1.0f + 0x1p-23f) << "just above the tie";
        EXPECT_EQ(sum({FLT_MAX, FLT_MAX, -FLT_MAX}), FLT_MAX) << "no intermediate overflow";
        EXPECT_EQ(sum({FLT_MAX, FLT_MAX}), inf) << "overflow of the exact sum";
        EXPECT_EQ(sum({-FLT_MAX, -0x1p103f}), -inf) << "exactly halfway to 2^128";
        EXPECT_EQ(sum({-FLT_MAX, -0x1p102f}), -FLT_MAX) << "below halfway to 2^128";
        EXPECT_EQ(sum({0x1p-149f, 0x1p-149f, 0x1p-149f}), 0x3p-149f) << "subnormals add exactly";
        EXPECT_EQ(bits(sum({inf, -inf})), bits(nan)) << "inf - inf";
        EXPECT_EQ(bits(sum({1.0f, std::bit_cast<float>(0xffc01234u)})), bits(nan))
            << "a NaN with a payload gives the default NaN";
        EXPECT_EQ(sum({inf, 1.0f, FLT_MAX}), inf);
        EXPECT_EQ(bits(sum({}, -0.0f)), bits(-0.0f)) << "empty, init -0";
        EXPECT_EQ(bits(sum({-0.0f, -0.0f}, -0.0f)), bits(-0.0f)) << "only -0";
        EXPECT_EQ(bits(sum({-0.0f, -0.0f}, 0.0f)), bits(0.0f)) << "+0 among them";
        EXPECT_EQ(bits(sum({1.0f, -1.0f}, -0.0f)), bits(0.0f)) << "exact zero of non-zeros";
        const std::vector<int> ints = {std::numeric_limits<int>::max(), 1, -5};
        EXPECT_EQ(parprim::reduce(p.policy, ints, 0LL, op),
                  parprim::reduce(p.policy, ints, 0LL, parprim::plus{}))
            << "integers: plus";
        const std::vector<float> v = {-0.0f, 1e30f, 1.0f, -1e30f, -0.0f};
        std::vector<float> out(v.size());
        parprim::inclusive_scan(p.policy, v, out, op);
        EXPECT_EQ(bits(out[0]), bits(-0.0f));
        EXPECT_EQ(out[2], 1e30f);
        EXPECT_EQ(out[3], 1.0f);
        EXPECT_EQ(out[4], 1.0f);
      });
}

// The host chunk path's passes come in several forms (exact_survey.hpp, exact_chunk.hpp,
// exact_scan.hpp): portable C++, SSE2 for the float survey, AVX2 where the processor has it.
// Each must say and sum what the portable one does, on chunks of one input family, of elements
// drawn from several families, and of every length around the vector widths and the chunk.

/// \brief Chunks to compare the forms on: every family and a mix of families, at `lengths`.
template <class F>
std::vector<std::pair<std::vector<F>, std::string>> chunk_cases(rng_t& r,
                                                                std::vector<std::size_t> lengths) {
  std::vector<std::pair<std::vector<F>, std::string>> cases;
  for (const std::size_t n : lengths) {
    for (const exact_mix m : all_exact_mixes)
      cases.emplace_back(exact_input<F>(m, r, n), exact_mix_name(m));
    std::vector<F> mixed(n);  // each element from a random family
    for (std::size_t i = 0; i < n; ++i)
      mixed[i] = exact_input<F>(all_exact_mixes[r() % std::size(all_exact_mixes)], r, 1)[0];
    cases.emplace_back(std::move(mixed), "elements of random families");
  }
  return cases;
}

/// \brief The survey of each form (SSE2 or portable; AVX2 where supported) against the
/// portable one: exponent fields, all zeros, only -0; and, where the chunk is summed in one
/// slice, the same (exact) sum.
template <class F>
void check_survey(std::uint64_t seed) {
  namespace ex = parprim::detail::exact;
  rng_t r = make_rng(seed, sizeof(F));
  const std::vector<std::size_t> lengths = {0,  1,  2,  3,  4,  5,  7,    8,    9,
                                            15, 16, 17, 31, 33, 47, 1000, 1023, 1024};
  for (const auto& [x, what] : chunk_cases<F>(r, lengths))
    for (const bool avx2 : {false, true}) {
      if (avx2 && !parprim::detail::avx2_supported()) continue;
      double sum_form = 0, sum_portable = 0;
      const ex::chunk_survey a = ex::survey<F, true>(x.data(), x.size(), &sum_form, avx2);
      const ex::chunk_survey b = ex::survey_portable<F, true>(x.data(), x.size(), &sum_portable);
      SCOPED_TRACE(what + ", " + std::to_string(x.size()) + " elements" +
                   (avx2 ? ", AVX2" : ", SSE2 or portable"));
      EXPECT_EQ(a.max_field, b.max_field);
      EXPECT_EQ(a.all_zero, b.all_zero);
      if (!b.all_zero) {
        EXPECT_EQ(a.min_field, b.min_field);
      }
      EXPECT_EQ(a.not_only_negative_zeros, b.not_only_negative_zeros);
      int top = 0;
      if (ex::plan_levels<F>(b, top) == 1 && !b.all_zero) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(sum_form),
                  std::bit_cast<std::uint64_t>(sum_portable))
            << "one-slice chunk summed differently";
      }
    }
}

TEST(ExactChunkSurvey, EveryFormSaysWhatThePortableSurveySays) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  check_survey<float>(seed);
  check_survey<double>(seed);
}

/// \brief The forms of the exact passes this processor runs, the portable one first.
std::vector<parprim::detail::exact::simd_form> supported_forms() {
  using parprim::detail::exact::simd_form;
  std::vector<simd_form> forms = {simd_form::portable};
  if (parprim::detail::avx2_supported()) forms.push_back(simd_form::avx2);
  if (parprim::detail::avx512_supported()) forms.push_back(simd_form::avx512);
  return forms;
}

const char* form_name(parprim::detail::exact::simd_form form) {
  using parprim::detail::exact::simd_form;
  return form == simd_form::avx512 ? "AVX-512" : form == simd_form::avx2 ? "AVX2" : "portable";
}

/// \brief A chunk folded and scanned (inclusive and exclusive, from a non-empty running sum; both
/// also with guessed slicing plans) in every form the processor runs (portable, AVX2, AVX-512):
/// the superaccumulators and every output bit for bit equal, and equal to the element-by-element
/// sum.
template <class F>
void check_chunk_forms(std::uint64_t seed) {
  namespace ex = parprim::detail::exact;
  using acc_t = parprim::detail::exact_accumulator<F>;
  rng_t r = make_rng(seed, sizeof(F), 1);
  const std::vector<std::size_t> lengths = {31, 32, 33, 63, 64, 65, 100, 511, 1000, 1023, 1024};
  const auto same_acc = [](const acc_t& a, const acc_t& b) {
    return std::memcmp(&a, &b, sizeof(acc_t)) == 0;
  };
  for (const auto& [x, what] : chunk_cases<F>(r, lengths)) {
    SCOPED_TRACE(what + ", " + std::to_string(x.size()) + " elements");
    acc_t start{};
    for (const F v : exact_input<F>(exact_mix::uniform, r, 3)) start.add(v);
    acc_t one_by_one = start;
    for (const F v : x) one_by_one.add(v);
    acc_t folded[2] = {start, start};
    for (const bool avx2 : {false, true}) {
      if (avx2 && !parprim::detail::avx2_supported()) continue;
      ex::add_chunk(folded[avx2], x.data(), x.size(), avx2);
      EXPECT_TRUE(same_acc(folded[avx2], one_by_one)) << "fold, AVX2 " << avx2;
    }
    // the fold's guessed plans (doubles with AVX2: one pass, kept where the guess covers the
    // chunk): the chunk's own plan, coarser ones, and ones that do not cover it
    int top = 0;
    const int levels = ex::plan_levels<F>(ex::survey_portable<F>(x.data(), x.size()), top);
    for (const ex::slice_plan guess :
         {ex::slice_plan{levels, top}, ex::slice_plan{3, top + 7}, ex::slice_plan{2, top + 1},
          ex::slice_plan{1, top}, ex::slice_plan{levels, top - 1}, ex::slice_plan{3, top - 40},
          ex::slice_plan{0, 0}}) {
      for (const bool avx2 : {false, true}) {
        if (avx2 && !parprim::detail::avx2_supported()) continue;
        acc_t guessed = start;
        ex::slice_plan plan = guess;
        ex::add_chunk(guessed, x.data(), x.size(), avx2, &plan);
        EXPECT_TRUE(same_acc(guessed, one_by_one))
            << "fold with a guessed plan of " << guess.levels << " slices below 2^" << guess.top
            << " (the chunk's: " << levels << " below 2^" << top << "), AVX2 " << avx2;
      }
    }
    for (const bool exclusive : {false, true}) {
      // every form this processor runs (portable first), each against the portable form's bits
      std::vector<F> out[3] = {std::vector<F>(x.size()), std::vector<F>(x.size()),
                               std::vector<F>(x.size())};
      for (const ex::simd_form form : supported_forms()) {
        const auto f = static_cast<std::size_t>(form);
        acc_t scanned = start;
        ex::scan_chunk(scanned, x.data(), x.size(), out[f].data(), exclusive, form);
        EXPECT_TRUE(same_acc(scanned, one_by_one)) << "scan, " << form_name(form);
        for (std::size_t i = 0; i < x.size(); ++i)
          ASSERT_TRUE(exact_equal(out[0][i], out[f][i]))
              << (exclusive ? "exclusive" : "inclusive") << " output " << i << ": "
              << show(out[0][i]) << " portable, " << show(out[f][i]) << " " << form_name(form);
      }
      // the scan under guessed plans (doubles in the AVX2 form: the first pass also surveys the
      // chunk, kept where the guess covers it; the AVX-512 form surveys in a pass of its own), as
      // the fold's above
      for (const ex::slice_plan guess :
           {ex::slice_plan{levels, top}, ex::slice_plan{3, top + 7}, ex::slice_plan{2, top + 1},
            ex::slice_plan{1, top}, ex::slice_plan{levels, top - 1}, ex::slice_plan{3, top - 40}}) {
        for (const ex::simd_form form : supported_forms()) {
          if (form == ex::simd_form::portable) continue;
          SCOPED_TRACE("scan with a guessed plan of " + std::to_string(guess.levels) +
                       " slices below 2^" + std::to_string(guess.top) + ", " + form_name(form));
          acc_t guessed = start;
          ex::slice_plan plan = guess;
          std::vector<F> got(x.size());
          ex::scan_chunk(guessed, x.data(), x.size(), got.data(), exclusive, form, nullptr, &plan);
          EXPECT_TRUE(same_acc(guessed, one_by_one));
          for (std::size_t i = 0; i < x.size(); ++i)
            ASSERT_TRUE(exact_equal(out[0][i], got[i]))
                << (exclusive ? "exclusive" : "inclusive") << " output " << i << ": "
                << show(out[0][i]) << " portable, " << show(got[i]) << " guessed";
        }
      }
    }
  }
}

#if PARPRIM_HOST_AVX2
/// \brief The AVX-512 outputs (parprim::detail::exact::prefix_outputs_avx512, which the
/// library's one-pass chunk scan writes and tests its outputs with) from given running slice
/// sums and quarter offsets, as the two-pass scans lay them out (the AVX2 form's second pass):
/// each quarter 8 outputs a vector, its last ones element by element (prove_range). Returns
/// non-zero where an output was not proved.
template <class F, int Levels, parprim::detail::exact::prefix_mode Mode>
PARPRIM_TARGET_AVX512 std::uint64_t outputs_avx512(
    std::size_t n, std::size_t quarter, const double (*running)[parprim::detail::exact::chunk],
    const double (*offset)[Levels], double a_hi, double a_lo,
    const parprim::detail::exact::chunk_bound& b, F* out) {
  namespace ex = parprim::detail::exact;
  using outputs_t = ex::prefix_outputs_avx512<F, Levels, Mode, false>;
  if (!outputs_t::proves(b)) return 1;
  outputs_t outputs(a_hi, a_lo);
  std::uint64_t tail_failed = 0;
  for (std::size_t c = 0; c < ex::scan_chains; ++c) {
    const std::size_t end = ex::quarter_end(c, quarter, n);
    std::size_t i = c * quarter;
    for (; i + 8 <= end; i += 8) {
      __m512d s[Levels];
      for (int l = 0; l < Levels; ++l)
        s[l] = _mm512_add_pd(_mm512_loadu_pd(running[l] + i), _mm512_set1_pd(offset[c][l]));
      outputs.put(out + i, s);
    }
    tail_failed |= ex::prove_range<Levels, Mode, outputs_t::float_checked>(
        c, i, end, running, offset, a_hi, a_lo, &b, out, 0);
  }
  return tail_failed | outputs.failed(b);
}
#endif

/// \brief The float scan's proof against one bound for the whole chunk, in its AVX2 and AVX-512
/// forms (where the processor runs them) and element by element: each rejects the chunk when any
/// prefix lies nearer its float midpoint than the bound or below the chunk's smallest binade (and
/// the vector forms also where the chunk's prefixes may reach 2^127: they never prove what the
/// portable form does not); else they write the same outputs. Every position of the odd prefix
/// (each quarter, vector part and tail).
TEST(ExactChunkPasses, ChunkBoundProofRejectsWhatItCannotProve) {
  namespace ex = parprim::detail::exact;
  if (!parprim::detail::avx2_supported())
    GTEST_SKIP() << "this processor has no AVX2 (or the AVX2 passes are not compiled for it): "
                    "the chunk-bound proof runs only in its portable form, which the other tests "
                    "check against the reference";
#if PARPRIM_HOST_AVX2
  constexpr std::size_t n = 30, quarter = 8;  // quarters of 8, 8, 8 and 6 (4 + 2 left over)
  const ex::chunk_bound bound{0x1p-30, 0x1p-3, 1.0};
  static double running[1][ex::chunk];
  const double offset[ex::scan_chains][1] = {{0.0}, {0.0}, {0.0}, {0.0}};
  bool wide = false;  // the AVX-512 form (else the AVX2 one)
  const auto prove = [&](const ex::chunk_bound& b, bool& same_outputs) {
    float vector_out[n], portable_out[n];
    std::uint64_t portable = 0;
    for (std::size_t i = 0; i < n; ++i)
      portable |= ex::round_prefix_in_chunk<1>(0.0, &running[0][i], b, portable_out[i]);
    const std::uint64_t vector =
        wide ? outputs_avx512<float, 1, ex::prefix_mode::checked>(n, quarter, running, offset, 0.0,
                                                                  0.0, b, vector_out)
             : ex::prove_in_chunk_avx2<1>(n, quarter, running, offset, 0.0, b, vector_out);
    same_outputs = std::memcmp(vector_out, portable_out, sizeof vector_out) == 0;
    if (portable != 0) {
      EXPECT_NE(vector, 0u) << "the vector form proved what the portable did not";
    }
    return vector != 0;
  };
  const auto reset = [&] {
    for (std::size_t i = 0; i < n; ++i) running[0][i] = 0.75 + static_cast<double>(i) * 0x1p-20;
  };
  for (const bool form : {false, true}) {
    if (form && !parprim::detail::avx512_supported()) continue;
    wide = form;
    SCOPED_TRACE(wide ? "AVX-512" : "AVX2");
    reset();
    bool same = false;
    EXPECT_FALSE(prove(bound, same)) << "every prefix far from its midpoint, above 2^-3";
    EXPECT_TRUE(same) << "proved outputs differ";
    EXPECT_TRUE(prove(ex::chunk_bound{0x1p-30, 0x1p-3, 0x1p127}, same)) << "may reach 2^127";
    for (std::size_t at = 0; at < n; ++at) {
      SCOPED_TRACE("odd prefix at " + std::to_string(at));
      reset();
      running[0][at] = 0x1p-5;  // exactly a float, yet below the chunk's smallest binade
      EXPECT_TRUE(prove(bound, same)) << "a prefix below the smallest binade";
      reset();
      running[0][at] = -0x1p-4 - 0x1p-20;
      EXPECT_TRUE(prove(bound, same)) << "a negative prefix below the smallest binade";
      reset();
      running[0][at] = 0.75 + 0x1p-25 + 0x1p-40;  // 2^-40 from the float midpoint
      EXPECT_TRUE(prove(bound, same)) << "a prefix within the bound of its midpoint";
      reset();
      running[0][at] = -(0.75 + 0x1p-25) + 0x1p-40;
      EXPECT_TRUE(prove(bound, same)) << "a negative prefix within the bound of its midpoint";
    }
  }
#endif
}

#if PARPRIM_HOST_AVX2
/// \brief The one-pass scan of a float chunk of one slice, in the AVX-512 form (`wide`) or the
/// AVX2 one.
template <bool Exclusive, parprim::detail::exact::prefix_mode Mode, bool ZeroTest>
std::uint64_t one_pass_float_scan(bool wide, const float* x, std::size_t n, double a_hi,
                                  const parprim::detail::exact::chunk_bound& b, float* out,
                                  double* sum) {
  namespace ex = parprim::detail::exact;
  return wide ? ex::scan_one_pass_avx512<float, 1, Exclusive, Mode, ZeroTest>(
                    x, n, nullptr, a_hi, 0.0, b, out, sum, nullptr)
              : ex::scan_floats_one_pass_avx2<1, Exclusive, Mode, ZeroTest>(x, n, nullptr, a_hi, b,
                                                                            out, sum, nullptr);
}
#endif

/// \brief The one-pass scans of float chunks of one slice (AVX2 and AVX-512, where the
/// processor runs them), inclusive and exclusive, against the same tests element by element on
/// each exact prefix: in the checked mode each rejects the chunk when any prefix lies nearer its
/// float midpoint than the chunk's bound or below its smallest binade (or may reach 2^127), in
/// the exact_double mode when a prefix is zero and its sign unknown; else it writes what the
/// element-by-element tests write and returns the chunk's sum. Every position of the odd prefix
/// (both vectors of a step and the last elements one by one).
TEST(ExactChunkPasses, OnePassFloatScanRejectsWhatItCannotProve) {
  namespace ex = parprim::detail::exact;
  if (!parprim::detail::avx2_supported())
    GTEST_SKIP() << "this processor has no AVX2 (or the AVX2 passes are not compiled for it): "
                    "the one-pass float scans do not run here; the other tests check the "
                    "portable form";
#if PARPRIM_HOST_AVX2
  // AVX-512: two steps of 16 and 13 elements one by one; AVX2: five steps of 8 and 5
  constexpr std::size_t n = 45;
  bool wide = false;  // the AVX-512 form (else the AVX2 one)
  const ex::chunk_bound bound{0x1p-30, 0x1p-3, 1.0};
  constexpr double a_hi = 0.25;  // the sum before the chunk (an exclusive scan's first output)
  float x[n];
  // prefixes a_hi + 0.5 + i 2^-20: floats, far from their midpoints, above 2^-3
  const auto reset = [&] {
    x[0] = 0.5f;
    for (std::size_t i = 1; i < n; ++i) x[i] = 0x1p-20f;
  };
  // x[at] changed by d, x[at + 1] by -d: only the prefix at `at` moves (by d)
  const auto odd = [&](std::size_t at, float d) {
    reset();
    x[at] += d;
    if (at + 1 < n) x[at + 1] -= d;
  };
  // runs the one-pass scan; `expected_failed`: what the element-by-element tests say
  const auto scan = [&](bool exclusive, bool checked, bool zero_test, const ex::chunk_bound& b,
                        bool& same_outputs, bool& expected_failed) {
    float got[n], want[n];
    double sum = -1.0;
    std::uint64_t failed = 0;
    using ex::prefix_mode;
    if (checked)
      failed = exclusive ? one_pass_float_scan<true, prefix_mode::checked, false>(wide, x, n, a_hi,
                                                                                  b, got, &sum)
                         : one_pass_float_scan<false, prefix_mode::checked, false>(wide, x, n, a_hi,
                                                                                   b, got, &sum);
    else if (zero_test)
      failed = exclusive ? one_pass_float_scan<true, prefix_mode::exact_double, true>(
                               wide, x, n, a_hi, b, got, &sum)
                         : one_pass_float_scan<false, prefix_mode::exact_double, true>(
                               wide, x, n, a_hi, b, got, &sum);
    else
      failed = exclusive ? one_pass_float_scan<true, prefix_mode::exact_double, false>(
                               wide, x, n, a_hi, b, got, &sum)
                         : one_pass_float_scan<false, prefix_mode::exact_double, false>(
                               wide, x, n, a_hi, b, got, &sum);
    std::uint64_t expected = checked && !(b.largest < 0x1p127) ? 1 : 0;
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double before = s;
      s += static_cast<double>(x[i]);
      const double p = exclusive ? before : s;
      expected |= checked ? ex::round_prefix_in_chunk<1>(a_hi, &p, b, want[i])
                          : ex::prefix_value<1, ex::prefix_mode::exact_double>(
                                a_hi, 0.0, &p, want[i], zero_test ? 1 : 0);
    }
    same_outputs = std::memcmp(got, want, sizeof got) == 0;
    expected_failed = expected != 0;
    if (expected != 0) {
      EXPECT_NE(failed, 0u) << "the one-pass scan proved what the element-by-element tests did not";
    }
    if (failed == 0) {
      EXPECT_TRUE(same_outputs) << "proved outputs differ";
      EXPECT_EQ(sum, s) << "the chunk's sum";
    }
    return failed != 0;
  };
  for (const bool form : {false, true})
    for (const bool exclusive : {false, true}) {
      if (form && !parprim::detail::avx512_supported()) continue;
      wide = form;
      SCOPED_TRACE(std::string(wide ? "AVX-512, " : "AVX2, ") +
                   (exclusive ? "exclusive" : "inclusive"));
      bool same = false, expected = false;
      reset();
      EXPECT_FALSE(scan(exclusive, true, false, bound, same, expected)) << "checked, every prefix "
                                                                           "proved";
      EXPECT_FALSE(scan(exclusive, false, true, bound, same, expected)) << "exact, no zero prefix";
      EXPECT_TRUE(
          scan(exclusive, true, false, ex::chunk_bound{0x1p-30, 0x1p-3, 0x1p127}, same, expected))
          << "may reach 2^127";
      for (std::size_t at = 0; at < n; ++at) {
        SCOPED_TRACE("odd prefix at " + std::to_string(at));
        const std::size_t moved = exclusive ? at + 1 : at;          // the output whose prefix moves
        const double p = 0.75 + static_cast<double>(at) * 0x1p-20;  // the prefix at `at`, a_hi in
        // (an exclusive scan's prefix at n is no output: nothing to reject there)
        const bool seen = moved < n;
        odd(at, static_cast<float>(0x1p-5 - p));  // exactly a float, below the smallest binade
        EXPECT_EQ(scan(exclusive, true, false, bound, same, expected), seen)
            << "a prefix below the smallest binade";
        odd(at, static_cast<float>(-0x1p-4 - 0x1p-20 - p));
        EXPECT_EQ(scan(exclusive, true, false, bound, same, expected), seen)
            << "a negative prefix below the smallest binade";
        odd(at, 0x1p-25f + 0x1p-40f);  // 2^-40 from the float midpoint
        EXPECT_EQ(scan(exclusive, true, false, bound, same, expected), seen)
            << "a prefix within the bound of its midpoint";
        odd(at, static_cast<float>(-p));  // a zero prefix
        EXPECT_EQ(scan(exclusive, false, true, bound, same, expected), seen)
            << "a zero prefix, its sign unknown";
        EXPECT_FALSE(scan(exclusive, false, false, bound, same, expected))
            << "a zero prefix, its sign known";
        EXPECT_TRUE(same) << "a zero prefix, its sign known: outputs";
      }
    }
#endif
}

#if PARPRIM_HOST_AVX2
/// \brief DoubleProofRejectsWhatItCannotProve with `Levels` slices (the lower slices' running
/// sums small and not all representable with the top one: prefixes round, far from a boundary).
template <int Levels>
void check_double_proof() {
  namespace ex = parprim::detail::exact;
  constexpr std::size_t n = 30, quarter = 8;    // quarters of 8, 8, 8 and 6 (4 + 2 left over)
  constexpr double a_hi = 1.0, a_lo = 0x1p-40;  // (every prefix rounds a_lo in: r is not h)
  static double running[Levels][ex::chunk];
  double offset[ex::scan_chains][Levels] = {};
  bool wide = false;  // the AVX-512 form (else the AVX2 one)
  const auto prove = [&](bool& same_outputs) {
    double vector_out[n], portable_out[n];
    std::uint64_t portable = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double v[Levels];
      for (int l = 0; l < Levels; ++l) v[l] = running[l][i];
      portable |= ex::round_prefix<Levels>(a_hi, a_lo, v, portable_out[i]);
    }
    const std::uint64_t vector =
        wide ? outputs_avx512<double, Levels, ex::prefix_mode::checked>(
                   n, quarter, running, offset, a_hi, a_lo, ex::chunk_bound{}, vector_out)
             : ex::prove_doubles_avx2<Levels>(n, quarter, running, offset, a_hi, a_lo, vector_out);
    same_outputs = std::memcmp(vector_out, portable_out, sizeof vector_out) == 0;
    if (portable != 0) {
      EXPECT_NE(vector, 0u) << "the vector form proved what the portable did not";
    }
    return vector != 0;
  };
  const auto reset = [&] {
    for (std::size_t i = 0; i < n; ++i)
      for (int l = 0; l < Levels; ++l)
        running[l][i] = static_cast<double>(i + 1) * ex::pow2(-20 - 25 * l);
  };
  // the odd prefix at `at`: the top slice's running sum `top`, the lower ones zero
  const auto odd = [&](std::size_t at, double top) {
    reset();
    running[0][at] = top;
    for (int l = 1; l < Levels; ++l) running[l][at] = 0.0;
  };
  for (const bool form : {false, true}) {
    if (form && !parprim::detail::avx512_supported()) continue;
    wide = form;
    SCOPED_TRACE(std::string(wide ? "AVX-512" : "AVX2") + ", " + std::to_string(Levels) +
                 " slices");
    reset();
    bool same = false;
    EXPECT_FALSE(prove(same)) << "every prefix far from a boundary";
    EXPECT_TRUE(same) << "proved outputs differ";
    for (std::size_t at = 0; at < n; ++at) {
      SCOPED_TRACE("odd prefix at " + std::to_string(at));
      odd(at, 0x1p-53);  // 1 + 2^-40 + 2^-53: halfway between two doubles
      EXPECT_TRUE(prove(same)) << "a prefix on a rounding boundary";
      odd(at, -0x1p-40 - 0x1p-54);  // 1 - 2^-54: halfway, below a power of two
      EXPECT_TRUE(prove(same)) << "a prefix on a rounding boundary below a power of two";
      odd(at, -1.0 - 0x1p-40);
      EXPECT_TRUE(prove(same)) << "a zero prefix";
      odd(at, 0x1p1023);
      EXPECT_TRUE(prove(same)) << "a huge prefix";
    }
  }
}
#endif

/// \brief The double scan's checked proof (round_prefix's double-double prefix and tests) in its
/// AVX2 and AVX-512 forms (where the processor runs them) against round_prefix element by
/// element, with 1, 2 and 3 slices: each rejects the chunk when any prefix lies on a rounding
/// boundary, is zero or is huge; else they write the same outputs. Every position of the odd
/// prefix.
TEST(ExactChunkPasses, DoubleProofRejectsWhatItCannotProve) {
  if (!parprim::detail::avx2_supported())
    GTEST_SKIP() << "this processor has no AVX2 (or the AVX2 passes are not compiled for it): "
                    "the double proof runs only in its portable form, which the other tests "
                    "check against the reference";
#if PARPRIM_HOST_AVX2
  check_double_proof<1>();
  check_double_proof<2>();
  check_double_proof<3>();
#endif
}

TEST(ExactChunkPasses, AvxAndPortableFormsGiveTheSameBits) {
  if (!parprim::detail::avx2_supported())
    GTEST_SKIP() << "this processor has no AVX2 (or the AVX2 passes are not compiled for it): "
                    "only the portable passes run, checked against the reference by the other "
                    "tests";
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  check_chunk_forms<float>(seed);
  check_chunk_forms<double>(seed);
}

TEST(ExactPlusOperator, IsCommutativeWithIdentityMinusZero) {
  static_assert(parprim::is_commutative_v<parprim::exact_plus>);
  static_assert(std::bit_cast<std::uint64_t>(parprim::identity_v<parprim::exact_plus, double>()) ==
                std::bit_cast<std::uint64_t>(-0.0));
  static_assert(parprim::identity_v<parprim::exact_plus, int>() == 0);
  EXPECT_EQ(parprim::exact_plus{}(0.1f, 0.2f), 0.1f + 0.2f) << "on two operands, a + b";
}

}  // namespace
}  // namespace parprim_test
