/// \file
/// \brief parprim::segmented_inclusive_scan and parprim::segmented_exclusive_scan on every
/// backend of support/backends.hpp, every case of support/cases.hpp, every size and policy,
/// head flags at every density of harness.hpp (none, every element, random 1/3, random
/// 1/1000, one flag on the last element); out of place and in place (every combination up to
/// harness.hpp's full_cross_max elements, rotated over the policies above it). Output poisoned,
/// guarded and compared whole with an independent sequential segmented scan.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/detail/segmented_grouped_sums.hpp>
#endif
#include "support/cases.hpp"
#include "support/harness.hpp"
#include "support/scan_check.hpp"
#include "support/sweep.hpp"

namespace parprim_test {
namespace {

template <class B, class Case, class Policy>
void check_segmented(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                     std::span<const std::uint8_t> host_flags, bool exclusive,
                     typename Case::acc_t init, const expectation<typename Case::acc_t>& want,
                     bool in_place) {
  const typename Case::op_t op{};
  typename B::template buffer<std::uint8_t> flags(host_flags);
  const std::span<const std::uint8_t> f(flags.range());
  check_scan_call<B, Case>(host_in, want, in_place, [&](auto in, auto out) {
    if (exclusive)
      parprim::segmented_exclusive_scan(p.policy, in, f, out, init, op);
    else
      parprim::segmented_inclusive_scan(p.policy, in, f, out, op);
  });
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(unchanged(flags.read_all(), host_flags)) << "the flags changed";
}

template <class B, class Case>
void run_segmented(const std::vector<std::size_t>& sizes, bool exclusive, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    // Every density meets every policy up to full_cross_max; above it policy i runs density
    // (i + size) mod 5, and in place on every other policy.
    for_each_density(all_densities, "flags: ", [&](density d, std::size_t di) {
      std::vector<std::uint8_t> flags;                        // made when first needed
      std::optional<expectation<typename Case::acc_t>> want;  // computed when first needed
      for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
        if (!runs_variant(s.n, s.index, i, di, std::size(all_densities))) return;
        if (!want) {
          rng_t fr = make_rng(s.seed, s.n, 1 + di);
          flags = make_flags(fr, s.n, d);
          want = reference<Case>::scan(s.input, flags.data(), exclusive, s.init);
        }
        check_segmented<B, Case>(p, s.input, flags, exclusive, s.init, *want, false);
        if (!::testing::Test::HasFatalFailure() && runs_variant(s.n, s.index + di, i, 0, 2))
          check_segmented<B, Case>(p, s.input, flags, exclusive, s.init, *want, true);
      });
    });
  });
}

template <class B>
class SegmentedInclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedInclusiveScan, backends);
template <class B>
class SegmentedExclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedExclusiveScan, backends);
template <class B>
class SegmentedInclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedInclusiveScanLarge, backends);
template <class B>
class SegmentedExclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedExclusiveScanLarge, backends);

#define PARPRIM_SEGMENTED_TESTS(C)                                   \
  TYPED_TEST(SegmentedInclusiveScan, C) {                            \
    run_segmented<TypeParam, cases::C>(small_sizes(), false, false); \
  }                                                                  \
  TYPED_TEST(SegmentedExclusiveScan, C) {                            \
    run_segmented<TypeParam, cases::C>(small_sizes(), true, false);  \
  }
PARPRIM_TEST_CASES(PARPRIM_SEGMENTED_TESTS)

#define PARPRIM_SEGMENTED_LARGE_TESTS(C)                            \
  TYPED_TEST(SegmentedInclusiveScanLarge, C) {                      \
    run_segmented<TypeParam, cases::C>(large_sizes(), false, true); \
  }                                                                 \
  TYPED_TEST(SegmentedExclusiveScanLarge, C) {                      \
    run_segmented<TypeParam, cases::C>(large_sizes(), true, true);  \
  }
PARPRIM_TEST_CASES_LARGE(PARPRIM_SEGMENTED_LARGE_TESTS)

// The documented example, and flags that are the input bytes themselves (flags may overlap
// the input; only an overlap with the output is an error).
TYPED_TEST(SegmentedInclusiveScan, DocumentedExampleAndFlagsAliasingInput) {
  for_each_policy<TypeParam>([](const auto& p) {
    std::vector<int> v = {1, 2, 3, 4, 5};
    const std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
    parprim::segmented_inclusive_scan(p.policy, v, f, v, parprim::plus{});
    EXPECT_EQ(v, (std::vector<int>{1, 3, 3, 7, 12}));

    const std::vector<std::uint8_t> bytes = {0, 2, 0, 0, 3, 1, 0, 9};
    std::vector<int> out(bytes.size(), -1);
    parprim::segmented_inclusive_scan(p.policy, bytes, bytes, out, parprim::plus{});
    EXPECT_EQ(out, (std::vector<int>{0, 2, 2, 2, 3, 1, 1, 9}));
    parprim::segmented_exclusive_scan(p.policy, bytes, bytes, out, 100, parprim::plus{});
    EXPECT_EQ(out, (std::vector<int>{100, 100, 102, 102, 100, 100, 101, 100}));
  });
}

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
// The OpenMP backend's grouped block step of segmented float and double sums, inclusive and
// exclusive: its vector form (AVX-512 for floats where the processor has it, else AVX2; the
// suite runs again with PARPRIM_SEGMENT_SIMD=avx2) and its portable form give the same bits,
// streamed or not, in place or not, heads from one-byte flags and from keys, at densities from none
// to every element, over blocks of every length around the groups at every offset; every output
// lies within the harness's bound of its segment's exact prefix (an exclusive one's head is `init`
// itself), and an inclusive segment of -0 gives -0.
template <bool Exclusive, class T, class Key>
void check_segmented_grouped_sums(rng_t& r) {
  namespace od = parprim::openmp::detail;
  constexpr std::size_t width = od::group_elements<T>;
  const std::vector<std::size_t> lengths = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 4099};
  for (const std::size_t len : lengths) {
    for (const int density : {0, 2, 5, 30, 100}) {  // heads in 100 elements
      SCOPED_TRACE(std::string(typeid(T).name()) + "/" + typeid(Key).name() + " length " +
                   std::to_string(len) + " heads " + std::to_string(density) + "%");
      const std::size_t b = uniform_int<std::size_t>(r, 1, 10);  // the block within the input
      const std::size_t n = b + len + uniform_int<std::size_t>(r, 0, 9);
      std::vector<T> in(n);
      std::vector<std::uint8_t> head(n);
      std::vector<Key> keys(n);
      const bool zeros = uniform_int<int>(r, 0, 3) == 0;  // some inputs of signed zeros
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = zeros ? (uniform_int<int>(r, 0, 1) ? T(-0.0) : T(0.0))
                      : uniform_real<T>(r, T(-1), T(1)) *
                            std::ldexp(T(1), uniform_int<int>(r, -12, 12));
        head[i] = uniform_int<int>(r, 0, 99) < density ? 1 : 0;
        keys[i] = static_cast<Key>(i == 0 ? 0 : keys[i - 1] + (head[i] ? 1 : 0));
      }
      const T acc0 = in[0];  // the running value before the block: any value
      const T init = Exclusive ? uniform_real<T>(r, T(-4), T(4)) : T{};
      const auto scan = [&](const auto& flags, T* src, T* dst, bool stream, bool avx2) {
        return od::segmented_grouped_sum_scan<Exclusive>(src, dst + b, b, b + len, stream, acc0,
                                                         flags, avx2, init);
      };
      const auto run_all = [&](const auto& flags) {
        // The portable form alone.
        std::vector<T> portable(n, T(7));
        const T last = scan(flags, in.data(), portable.data(), false, false);
        if (!Exclusive) {  // (an exclusive scan's running value is its last inclusive sum)
          ASSERT_TRUE(std::memcmp(&last, &portable[b + len - 1], sizeof(T)) == 0);
        }
        // The AVX2 form where the processor has it, cached and streamed, in place or not.
        for (const bool stream : {false, true})
          for (const bool in_place : {false, true}) {
            std::vector<T> data = in;
            std::vector<T> out(n, T(7));
            T* o = in_place ? data.data() : out.data();
            const T end = scan(flags, data.data(), o, stream, od::sums_tails_avx2_usable());
            ASSERT_TRUE(std::memcmp(&end, &last, sizeof(T)) == 0) << "running value";
            for (std::size_t i = b; i < b + len; ++i)
              ASSERT_TRUE(std::memcmp(&o[i], &portable[i], sizeof(T)) == 0)
                  << "element " << i << " (stream " << stream << ", in place " << in_place
                  << "): " << o[i] << " against the portable form's " << portable[i];
            if (!in_place)
              for (std::size_t i = 0; i < n; ++i)
                if (i < b || i >= b + len) {
                  ASSERT_EQ(out[i], T(7)) << "written outside, " << i;
                }
          }
#if PARPRIM_HOST_AVX2
        if (od::sums_tails_avx2_usable() && len >= width) {  // the vector form over whole groups
          std::vector<T> out(n, T(7));
          const std::size_t groups = len / width;
          od::scan_segmented_groups_vectors<Exclusive, false>(in.data(), out.data() + b, b, groups,
                                                              flags, acc0, init);
          for (std::size_t i = b; i < b + groups * width; ++i)
            ASSERT_TRUE(std::memcmp(&out[i], &portable[i], sizeof(T)) == 0) << "vector form, " << i;
        }
#endif
        // Against the segment's exact prefix (a sign of zero included).
        long double sum = acc0, abs_sum = std::fabs(static_cast<long double>(acc0));
        bool negative_zero = std::signbit(acc0) && acc0 == T(0);
        std::size_t m = 2;
        for (std::size_t i = b; i < b + len; ++i) {
          if (head[i]) {
            sum = init;
            abs_sum = std::fabs(static_cast<long double>(init));
            m = Exclusive ? 2 : 1;
            negative_zero = !Exclusive;
          } else {
            ++m;
          }
          if constexpr (Exclusive) {  // the output is the sum before the element
            if (head[i]) {
              ASSERT_TRUE(std::memcmp(&portable[i], &init, sizeof(T)) == 0) << "head " << i;
            } else {
              const long double bound = 2.0L * m * std::numeric_limits<T>::epsilon() * abs_sum;
              ASSERT_LE(std::fabs(static_cast<long double>(portable[i]) - sum), bound)
                  << "element " << i;
            }
          }
          sum += in[i];
          abs_sum += std::fabs(static_cast<long double>(in[i]));
          negative_zero = negative_zero && in[i] == T(0) && std::signbit(in[i]);
          if constexpr (Exclusive) continue;
          const long double bound = 2.0L * m * std::numeric_limits<T>::epsilon() * abs_sum;
          ASSERT_LE(std::fabs(static_cast<long double>(portable[i]) - sum), bound)
              << "element " << i;
          if (abs_sum == 0) {
            ASSERT_EQ(std::signbit(portable[i]), negative_zero) << "element " << i;
          }
        }
      };
      run_all(std::span<const std::uint8_t>(head));
      run_all(parprim::detail::key_heads<Key>{std::span<const Key>(keys)});
    }
  }
}

TEST(SegmentedGroupedSums, AvxAndPortableFormsAgree) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  if (!parprim::openmp::detail::sums_tails_avx2_usable())
    std::cout << "[ note ] no AVX2 here (or PARPRIM_SEGMENT_SIMD=portable): only the portable "
                 "form runs\n";
  check_segmented_grouped_sums<false, float, std::int32_t>(r);
  check_segmented_grouped_sums<false, double, std::int64_t>(r);
  check_segmented_grouped_sums<true, float, std::int32_t>(r);
  check_segmented_grouped_sums<true, double, std::int64_t>(r);
}
#endif

}  // namespace
}  // namespace parprim_test
