/// \file
/// \brief parprim::inclusive_scan and parprim::exclusive_scan on every backend of
/// support/backends.hpp, every case of support/cases.hpp, every size and policy; out of place
/// and in place (when input and output types agree). The output (with guards around it) is
/// poisoned before each call and compared whole with an independent sequential scan.

#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/detail/grouped_sums.hpp>
#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#endif
#include "support/cases.hpp"
#include "support/harness.hpp"
#include "support/scan_check.hpp"
#include "support/sweep.hpp"

namespace parprim_test {
namespace {

template <class B, class Case, class Policy>
void check_scan(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                bool exclusive, typename Case::acc_t init,
                const expectation<typename Case::acc_t>& want, bool in_place) {
  const typename Case::op_t op{};
  check_scan_call<B, Case>(host_in, want, in_place, [&](auto in, auto out) {
    if (exclusive)
      parprim::exclusive_scan(p.policy, in, out, init, op);
    else
      parprim::inclusive_scan(p.policy, in, out, op);
  });
}

template <class B, class Case>
void run_scan(const std::vector<std::size_t>& sizes, bool exclusive, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    const auto want = reference<Case>::scan(s.input, nullptr, exclusive, s.init);
    for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
      check_scan<B, Case>(p, s.input, exclusive, s.init, want, false);
      // in place: every policy up to full_cross_max, every other one above; at large sizes
      // half the policies run (runs_policy)
      if (!::testing::Test::HasFatalFailure() && runs_variant(s.n, s.index, i, 0, 2))
        check_scan<B, Case>(p, s.input, exclusive, s.init, want, true);
    });
  });
}

template <class B>
class InclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(InclusiveScan, backends);
template <class B>
class ExclusiveScan : public ::testing::Test {};
TYPED_TEST_SUITE(ExclusiveScan, backends);
template <class B>
class InclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(InclusiveScanLarge, backends);
template <class B>
class ExclusiveScanLarge : public ::testing::Test {};
TYPED_TEST_SUITE(ExclusiveScanLarge, backends);

#define PARPRIM_SCAN_TESTS(C)                                   \
  TYPED_TEST(InclusiveScan, C) {                                \
    run_scan<TypeParam, cases::C>(small_sizes(), false, false); \
  }                                                             \
  TYPED_TEST(ExclusiveScan, C) {                                \
    run_scan<TypeParam, cases::C>(small_sizes(), true, false);  \
  }
PARPRIM_TEST_CASES(PARPRIM_SCAN_TESTS)

#define PARPRIM_SCAN_LARGE_TESTS(C)                            \
  TYPED_TEST(InclusiveScanLarge, C) {                          \
    run_scan<TypeParam, cases::C>(large_sizes(), false, true); \
  }                                                            \
  TYPED_TEST(ExclusiveScanLarge, C) {                          \
    run_scan<TypeParam, cases::C>(large_sizes(), true, true);  \
  }
PARPRIM_TEST_CASES_LARGE(PARPRIM_SCAN_LARGE_TESTS)

// std::array, a C array, the default operator, and an exclusive init of another type.
TYPED_TEST(InclusiveScan, OtherRangesAndDefaultOperator) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::array<int, 5> a = {3, 1, 4, 1, 5};
    std::array<long, 5> out{};
    parprim::inclusive_scan(p.policy, a, out);
    EXPECT_EQ(out, (std::array<long, 5>{3, 4, 8, 9, 14}));
    int c[4] = {1, 2, 3, 4};
    parprim::exclusive_scan(p.policy, c, c, 10);
    EXPECT_EQ(std::vector<int>(c, c + 4), (std::vector<int>{10, 11, 13, 16}));
  });
}

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
// The OpenMP backend's grouped block scan (sums of 4- and 8-byte values): its AVX2 form and its
// portable form give the same bits, streamed or not, in place or not, inclusive (with and
// without a carry) and exclusive, over blocks of every length around the groups; integer sums
// equal the left fold; float sums lie within the harness's bound of the exact prefix.
template <class T>
void check_grouped_sums(rng_t& r) {
  namespace od = parprim::openmp::detail;
  const std::vector<std::size_t> lengths = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 4099};
  for (const std::size_t len : lengths) {
    for (const int kind : {0, 1, 2}) {  // inclusive, inclusive from a carry, exclusive
      SCOPED_TRACE(std::string(typeid(T).name()) + " length " + std::to_string(len) + " kind " +
                   std::to_string(kind));
      const std::size_t b = uniform_int<std::size_t>(r, 0, 9);  // the block within the input
      const std::size_t n = b + len + uniform_int<std::size_t>(r, 0, 9);
      std::vector<T> in(n);
      for (auto& x : in) {
        if constexpr (std::is_floating_point_v<T>)
          x = uniform_real<T>(r, T(-1), T(1)) * std::ldexp(T(1), uniform_int<int>(r, -12, 12));
        else
          x = static_cast<T>(r());
      }
      const T c0 = in[0];  // the carry: any value
      const T* carry = kind == 0 ? nullptr : &c0;
      const bool exclusive = kind == 2;
      // The portable form, group by group.
      std::vector<T> portable(n, T(7));
      od::group_carry<T> c;
      if (carry) c = {*carry, true};
      for (std::size_t i = b; i < b + len; i += od::group_elements<T>) {
        const auto count =
            static_cast<unsigned>(std::min<std::size_t>(od::group_elements<T>, b + len - i));
        if (exclusive)
          od::scan_group_portable<true>(in.data() + i, portable.data() + i, count, c);
        else
          od::scan_group_portable<false>(in.data() + i, portable.data() + i, count, c);
      }
      // The block scan as the backend calls it (the AVX2 form where the processor has it),
      // cached and streamed, out of place and in place.
      for (const bool stream : {false, true})
        for (const bool in_place : {false, true}) {
          std::vector<T> data = in;
          std::vector<T> out(n, T(7));
          T* o = in_place ? data.data() : out.data();
          if (exclusive)
            od::grouped_sum_scan<true>(data.data(), o, b, b + len, carry, stream);
          else
            od::grouped_sum_scan<false>(data.data(), o, b, b + len, carry, stream);
          for (std::size_t i = b; i < b + len; ++i)
            ASSERT_TRUE(std::memcmp(&o[i], &portable[i], sizeof(T)) == 0)
                << "element " << i << " (stream " << stream << ", in place " << in_place
                << "): " << show(o[i]) << " against the portable form's " << show(portable[i]);
        }
#if PARPRIM_HOST_AVX2
      if (parprim::detail::avx2_supported() && len >= od::group_elements<T>) {
        // the AVX2 form alone over the whole groups
        std::vector<T> out(n, T(7));
        od::group_carry<T> v;
        if (carry) v = {*carry, true};
        const std::size_t groups = len / od::group_elements<T>;
        if (exclusive)
          od::scan_groups_avx2<true, false>(in.data(), out.data(), b, groups, v);
        else
          od::scan_groups_avx2<false, false>(in.data(), out.data(), b, groups, v);
        for (std::size_t i = b; i < b + groups * od::group_elements<T>; ++i)
          ASSERT_TRUE(std::memcmp(&out[i], &portable[i], sizeof(T)) == 0) << "AVX2, element " << i;
      }
#endif
      // Against the left fold: exact for integers, within the bound for floats.
      long double acc = carry ? static_cast<long double>(*carry) : 0.0L;
      long double abs_sum = carry ? std::fabs(static_cast<long double>(*carry)) : 0.0L;
      T exact{carry ? *carry : T{}};
      for (std::size_t i = b; i < b + len; ++i) {
        const T before = exact;
        const long double wide_before = acc, abs_before = abs_sum;
        exact = od::group_add(exact, in[i]);
        if (!carry && i == b) exact = in[i];
        acc += static_cast<long double>(in[i]);
        abs_sum += std::fabs(static_cast<long double>(in[i]));
        const T want_int = exclusive ? before : exact;
        if constexpr (std::is_integral_v<T>) {
          ASSERT_EQ(portable[i], want_int) << "element " << i;
        } else {
          const long double wide = exclusive ? wide_before : acc;
          const long double operands = static_cast<long double>(i - b + 2);
          const long double bound = 2.0L * operands * std::numeric_limits<T>::epsilon() *
                                    (exclusive ? abs_before : abs_sum);
          ASSERT_LE(std::fabs(static_cast<long double>(portable[i]) - wide), bound)
              << "element " << i;
        }
      }
    }
  }
}

TEST(GroupedSums, AvxAndPortableFormsAgree) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  if (!parprim::openmp::detail::grouped_sums_avx2_usable())
    std::cout << "[ note ] this processor has no AVX2: only the portable form runs here\n";
  check_grouped_sums<float>(r);
  check_grouped_sums<double>(r);
  check_grouped_sums<std::int32_t>(r);
  check_grouped_sums<std::uint32_t>(r);
  check_grouped_sums<std::int64_t>(r);
  check_grouped_sums<std::uint64_t>(r);
}

/// Thrown by the driver's steps below.
struct step_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The scan driver of the OpenMP scans (detail/tiled_scan.hpp): a thread waits only for the
/// totals its carry needs, with no barrier between rounds, and the rounds' totals sit in a ring
/// of slots. Blocks of 1-5 elements give hundreds of rounds, so a carry that read a slot already
/// written for a later round, or a wait that returned early, shows as a wrong carry; with more
/// threads than cores too, with blocks sized by the threads' speeds, and with each block folded
/// rounds before its scan. The combine composes affine maps, so the order of the totals shows.
/// Then a throw from the fold, the combine or the block scan, at a random call, reaches the
/// caller (no thread is left waiting). (The maps' slopes are odd, so no composition forgets a
/// map before it.)
TEST(OmpTiledScan, CarriesOfEveryRoundAndThrows) {
  namespace od = parprim::openmp::detail;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  const affine_compose then{};
  int throws = 0;
  // even or speed-sized blocks, each folded just before its scan or 1 .. 6 rounds before
  const od::scan_rounds schedules[] = {{false, 0}, {true, 0},
                                       {false, 1}, {true, 1},
                                       {true, 3},  {false, od::scan_rounds::max_fold_ahead}};
  for (const int team : {2, 3, 4, 7})
    for (const std::size_t tile : {std::size_t{1}, std::size_t{2}, std::size_t{5}})
      for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, tile * team - 1,
                                  tile * team * 97 + 3, std::size_t{2003}})
        for (const od::scan_rounds how : schedules)
          for (const bool with_carry : {false, true}) {
            SCOPED_TRACE(
                "team " + std::to_string(team) + ", tile " + std::to_string(tile) + ", n " +
                std::to_string(n) + (how.balanced ? ", balanced" : "") +
                (how.fold_ahead > 0 ? ", fold ahead " + std::to_string(how.fold_ahead) : "") +
                (with_carry ? ", carry" : ""));
            std::vector<affine> in(n);
            for (auto& f : in)
              f = {static_cast<std::uint32_t>(r()) | 1u, static_cast<std::uint32_t>(r())};
            const affine carry{static_cast<std::uint32_t>(r()) | 1u,
                               static_cast<std::uint32_t>(r())};
            std::vector<affine> want(n);
            for (std::size_t i = 0; i < n; ++i)
              want[i] =
                  i == 0 ? (with_carry ? then(carry, in[0]) : in[0]) : then(want[i - 1], in[i]);
            // throw_at: the call (counted over all threads) of step `which` that throws; 0: none
            for (const int which : {-1, 0, 1, 2}) {
              std::atomic<long> calls[3] = {0, 0, 0};
              const long throw_at =
                  which < 0 ? 0 : uniform_int<long>(r, 1, std::max<long>(1, long(n / tile)));
              const auto step = [&](int k) {
                if (which == k && calls[k].fetch_add(1) + 1 == throw_at)
                  throw step_failure("step " + std::to_string(k));
              };
              std::vector<affine> out(n, affine{0, 7});
              const auto total = [&](std::size_t b, std::size_t e) {
                step(0);
                affine acc = in[b];
                for (std::size_t i = b + 1; i < e; ++i) acc = then(acc, in[i]);
                return acc;
              };
              const auto combine = [&](const affine& x, const affine& y) {
                step(1);
                return then(x, y);
              };
              const auto scan_block = [&](std::size_t b, std::size_t e, const affine* c) {
                step(2);
                affine acc = c ? then(*c, in[b]) : in[b];
                out[b] = acc;
                for (std::size_t i = b + 1; i < e; ++i) out[i] = acc = then(acc, in[i]);
              };
              const auto run = [&] {
                od::tiled_scan<affine>(n, team, tile, with_carry ? &carry : nullptr, total, combine,
                                       scan_block, how);
              };
              if (which < 0) {
                ASSERT_NO_THROW(run());
                for (std::size_t i = 0; i < n; ++i)
                  ASSERT_TRUE(out[i] == want[i]) << "element " << i;
              } else {
                bool thrown = false;
                try {
                  run();
                } catch (const step_failure&) {
                  thrown = true;
                }
                // the step ran fewer times than throw_at only where the input is too short
                EXPECT_EQ(thrown, calls[which] >= throw_at) << "step " << which;
                throws += thrown;
              }
            }
          }
  EXPECT_GT(throws, 1200) << "most throwing runs reach their throw";
  // a deeper fold than the driver's ring of totals allows is refused before any step runs
  EXPECT_THROW(
      od::tiled_scan<affine>(
          std::size_t{100}, 2, std::size_t{1}, static_cast<const affine*>(nullptr),
          [](std::size_t, std::size_t) -> affine { throw step_failure("total"); }, affine_compose{},
          [](std::size_t, std::size_t, const affine*) { throw step_failure("scan"); },
          {false, od::scan_rounds::max_fold_ahead + 1}),
      parprim::invalid_argument);
}
#endif

}  // namespace
}  // namespace parprim_test
