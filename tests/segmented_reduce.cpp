/// \file
/// \brief parprim::segmented_reduce, head flags and CSR offsets, on every backend of
/// support/backends.hpp and every policy it lists: the per-segment cases of support/cases.hpp,
/// every size of harness.hpp, head flags at every segment density (none, every element, random
/// 1/3 and 1/1000, one flag on the last element, one-element segments at both ends); offsets
/// from the same segments with empty ones added (before the first element, after the last, in
/// between), as int32 and as size_t. Outputs poisoned and guarded, exactly as large as the
/// number of segments or larger (the rest must stay untouched), compared whole with the
/// reference of harness.hpp (seed printed on failure).

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/detail/segments_in_rounds.hpp>
#endif
#include "support/cases.hpp"
#include "support/harness.hpp"
#include "support/sweep.hpp"

namespace parprim_test {
namespace {

/// The head-flag form, with an output of `room` >= k elements.
template <class B, class Case, class Policy>
void check_flags(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                 std::span<const std::uint8_t> host_flags, typename Case::acc_t init,
                 const std::vector<std::size_t>& begins, std::size_t room) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  SCOPED_TRACE("head flags, out of " + std::to_string(room) + " elements");
  const auto want = reference<Case>::segments(host_in, begins, &init, room);
  typename B::template buffer<In> in(host_in);
  typename B::template buffer<std::uint8_t> flags(host_flags);
  typename B::template buffer<Acc> out(room, byte_pattern<Acc>(poison_byte));
  const std::size_t k = parprim::segmented_reduce(p.policy, std::span<const In>(in.range()),
                                                  std::span<const std::uint8_t>(flags.range()),
                                                  out.range(), init, typename Case::op_t{});
  ASSERT_EQ(k, begins.size() - 1) << "number of segments";
  ASSERT_TRUE(matches(want, out.read_all()));
  ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
  ASSERT_TRUE(unchanged(flags.read_all(), host_flags)) << "the flags changed";
}

/// The offsets form, offsets of type I.
template <class B, class Case, class I, class Policy>
void check_offsets(const named_policy<Policy>& p, std::span<const typename Case::in_t> host_in,
                   const std::vector<I>& host_offsets, typename Case::acc_t init) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  SCOPED_TRACE("offsets (" + std::to_string(host_offsets.size() - 1) + " segments, " +
               std::to_string(sizeof(I)) + "-byte)");
  const std::vector<std::size_t> begins(host_offsets.begin(), host_offsets.end());
  const std::size_t k = begins.size() - 1;
  const auto want = reference<Case>::segments(host_in, begins, &init, k);
  typename B::template buffer<In> in(host_in);
  typename B::template buffer<I> offsets(host_offsets);
  typename B::template buffer<Acc> out(k, byte_pattern<Acc>(poison_byte));
  parprim::segmented_reduce(p.policy, std::span<const In>(in.range()),
                            parprim::offsets(std::span<const I>(offsets.range())), out.range(),
                            init, typename Case::op_t{});
  ASSERT_TRUE(matches(want, out.read_all()));
  ASSERT_TRUE(unchanged(in.read_all(), host_in)) << "the input changed";
  ASSERT_TRUE(unchanged(offsets.read_all(), std::span<const I>(host_offsets)))
      << "the offsets changed";
}

template <class B, class Case>
void run_segmented_reduce(const std::vector<std::size_t>& sizes, bool large) {
  for_each_size<Case>(sizes, [&](const sweep_size<Case>& s) {
    for_each_density(segment_densities, "segments: ", [&](density d, std::size_t di) {
      rng_t fr = make_rng(s.seed, s.n, 1 + di);
      const auto flags = make_flags(fr, s.n, d);
      const auto begins = segment_begins(flags);
      const auto offsets32 = with_empty_segments<std::int32_t>(fr, begins, 0);
      const auto offsets_wide = with_empty_segments<std::size_t>(fr, begins, 1 + s.n % 5);
      for_each_policy_at<B>(large, s.n, s.index, [&](const auto& p, std::size_t i) {
        if (!runs_variant(s.n, s.index, i, di, std::size(segment_densities))) return;
        const std::size_t k = begins.size() - 1;
        check_flags<B, Case>(p, s.input, flags, s.init, begins, k);
        if (::testing::Test::HasFatalFailure()) return;
        if (runs_variant(s.n, s.index + di, i, 0, 2)) {
          // room for more than k: k + 3, or n + 1 (room for any number of segments: backends
          // may then count while they reduce)
          check_flags<B, Case>(p, s.input, flags, s.init, begins,
                               (s.index + di + i) % 2 == 0 ? k + 3 : s.n + 1);
          if (::testing::Test::HasFatalFailure()) return;
          check_offsets<B, Case>(p, s.input, offsets32, s.init);
        } else {
          check_offsets<B, Case>(p, s.input, offsets_wide, s.init);
        }
      });
    });
  });
}

template <class B>
class SegmentedReduce : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedReduce, backends);
/// Heads sparse where a block starts and dense after (a backend that guesses a block's density
/// from its start must still count right), outputs of n elements and of exactly k, int64 sums.
template <class B>
void run_sparse_then_dense() {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const std::size_t n : {std::size_t{9000}, std::size_t{40000}, std::size_t{100003}}) {
    rng_t r = make_rng(seed, n);
    std::vector<std::int64_t> x(n);
    for (auto& v : x) v = uniform_int<std::int64_t>(r, -1000, 1000);
    for (const std::size_t from : {n / 4, n / 2 + 1}) {
      std::vector<std::uint8_t> f(n, 0);
      for (std::size_t i = from; i < n; i += 1 + r() % 3) f[i] = 1;
      std::vector<std::int64_t> want;
      for (std::size_t i = 0; i < n; ++i) {
        if (i == 0 || f[i] != 0) want.push_back(7);
        want.back() += x[i];
      }
      for (const auto& p : B::policies()) {
        SCOPED_TRACE(p.name + ", n " + std::to_string(n) + ", dense from " + std::to_string(from));
        for (const std::size_t room : {n, want.size()}) {
          std::vector<std::int64_t> out(room, -1);
          const std::size_t k =
              parprim::segmented_reduce(p.policy, x, f, out, std::int64_t{7}, parprim::plus{});
          ASSERT_EQ(k, want.size()) << "out of " << room;
          ASSERT_TRUE(std::equal(want.begin(), want.end(), out.begin())) << "out of " << room;
          ASSERT_TRUE(std::all_of(out.begin() + k, out.end(), [](auto v) { return v == -1; }));
        }
      }
    }
  }
}

TYPED_TEST(SegmentedReduce, SparseThenDenseHeads) {
  run_sparse_then_dense<TypeParam>();
}

template <class B>
class SegmentedReduceLarge : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedReduceLarge, backends);

#define PARPRIM_SEGMENTED_REDUCE_TESTS(C)                            \
  TYPED_TEST(SegmentedReduce, C) {                                   \
    run_segmented_reduce<TypeParam, cases::C>(small_sizes(), false); \
  }
PARPRIM_TEST_CASES_SEGMENTS(PARPRIM_SEGMENTED_REDUCE_TESTS)

#define PARPRIM_SEGMENTED_REDUCE_LARGE_TESTS(C)                             \
  TYPED_TEST(SegmentedReduceLarge, C) {                                     \
    run_segmented_reduce<TypeParam, cases::C>(segment_large_sizes(), true); \
  }
PARPRIM_TEST_CASES_SEGMENTS_LARGE(PARPRIM_SEGMENTED_REDUCE_LARGE_TESTS)

// The documented examples; flags that are the input bytes themselves (flags may overlap the
// input, not the output); offsets given as a std::vector<long> and as an array.
TYPED_TEST(SegmentedReduce, DocumentedExamples) {
  for_each_policy<TypeParam>([](const auto& p) {
    const std::vector<int> v = {1, 2, 3, 4, 5};
    const std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
    std::vector<long> sums(v.size(), -1);
    EXPECT_EQ(parprim::segmented_reduce(p.policy, v, f, sums, 0L, parprim::plus{}), 2u);
    EXPECT_EQ(sums, (std::vector<long>{3, 12, -1, -1, -1}));

    const std::vector<std::uint8_t> bytes = {0, 2, 0, 0, 3, 1, 0, 9};
    std::vector<int> out(bytes.size(), -1);
    EXPECT_EQ(parprim::segmented_reduce(p.policy, bytes, bytes, out, 100, parprim::plus{}), 5u);
    EXPECT_EQ(out, (std::vector<int>{100, 102, 103, 101, 109, -1, -1, -1}));

    const std::vector<double> values = {1, 2, 3, 4, 5, 6};
    const std::vector<long> row_ptr = {0, 2, 2, 6};
    std::vector<double> row_sum(3, -1.0);
    parprim::segmented_reduce(p.policy, values, parprim::offsets(row_ptr), row_sum, 0.0,
                              parprim::plus{});
    EXPECT_EQ(row_sum, (std::vector<double>{3, 0, 18}));
    const int ends[] = {0, 0, 6};
    double two[2] = {-1, -1};
    parprim::segmented_reduce(p.policy, values, parprim::offsets(ends), two, 1.0,
                              parprim::multiplies{});
    EXPECT_EQ(two[0], 1.0);
    EXPECT_EQ(two[1], 720.0);
  });
}

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
/// Thrown by the operator of the driver test below.
struct op_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// affine_compose that throws at its `at`-th call over all threads (0: never).
struct compose_or_throw {
  std::atomic<long>* calls;
  long at;
  affine operator()(const affine& f, const affine& g) const {
    if (at > 0 && calls->fetch_add(1) + 1 == at) throw op_failure("operator");
    return affine_compose{}(f, g);
  }
};

/// One run of reduce_segments_in_rounds over `heads` (flags or keys; `keys` non-null for the
/// keyed store) against the segments' reference `want` (and their first keys `want_keys`), the
/// outputs of n + 2 elements poisoned beyond.
template <class T, class Heads, class Op>
void check_in_rounds(int team, std::size_t tile, std::span<const T> in, const Heads& heads,
                     const T* init, const Op& op, const std::vector<T>& want,
                     const std::int32_t* keys, const std::vector<std::int32_t>& want_keys,
                     const T& poison) {
  namespace od = parprim::openmp::detail;
  const std::size_t n = in.size();
  std::vector<T> out(n + 2, poison);
  std::vector<std::int32_t> keys_out(n + 2, -77);
  std::size_t k = 0;
  if (keys)
    k = od::reduce_segments_in_rounds<T>(
        team, tile, in, heads, init, op,
        od::store_keyed_results<std::int32_t, std::int32_t, T>{keys, keys_out.data(), out.data()});
  else
    k = od::reduce_segments_in_rounds<T>(team, tile, in, heads, init, op,
                                         od::store_results<T>{out.data()});
  ASSERT_EQ(k, want.size()) << "number of segments";
  for (std::size_t s = 0; s < k; ++s) {
    ASSERT_TRUE(out[s] == want[s]) << "segment " << s;
    if (keys) {
      ASSERT_EQ(keys_out[s], want_keys[s]) << "key of segment " << s;
    }
  }
  for (std::size_t s = k; s < n + 2; ++s) {
    ASSERT_TRUE(out[s] == poison) << "written past the segments at " << s;
    ASSERT_EQ(keys_out[s], -77) << "key written past the segments at " << s;
  }
}

/// The CSR offsets' check (detail/offsets.hpp, first_decrease, which every backend's check calls;
/// chunks without a decrease passed over by AVX2 vectors where the processor has them): the first
/// i in [b, e) with offsets[i] < offsets[i - 1], against a loop, for 2-, 4- and 8-byte offsets,
/// signed and unsigned (values with the top bit set among them), around the vectors and the
/// chunks, with none, one or several decreases anywhere.
TEST(OffsetChecks, FirstDecreaseIsTheFirst) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  const auto check = [&]<class I>(I) {
    SCOPED_TRACE(std::string(std::is_signed_v<I> ? "signed " : "unsigned ") +
                 std::to_string(sizeof(I)) + "-byte offsets");
    for (const std::size_t n :
         {2, 3, 4, 5, 8, 9, 16, 17, 100, 4095, 4096, 4097, 4098, 8193, 12295, 20011}) {
      std::vector<I> rising(n);
      const I base = std::is_signed_v<I> ? static_cast<I>(-static_cast<I>(n / 5))
                                         : static_cast<I>(std::numeric_limits<I>::max() / 2);
      for (std::size_t i = 0; i < n; ++i) rising[i] = static_cast<I>(base + static_cast<I>(i / 3));
      for (int trial = 0; trial < 24; ++trial) {
        std::vector<I> o = rising;
        const int drops = trial == 0 ? 0 : uniform_int<int>(r, 1, 3);
        for (int d = 0; d < drops; ++d) {
          const auto k = static_cast<std::size_t>(uniform_int<std::uint64_t>(r, 1, n - 1));
          o[k] = trial % 2 == 0 ? static_cast<I>(o[k - 1] - 1) : std::numeric_limits<I>::min();
        }
        const std::span<const I> x(o);
        for (const std::size_t b : {std::size_t{1}, std::size_t{2}, n / 2 + 1, n - 1}) {
          if (b < 1 || b > n) continue;
          std::size_t want = n;
          for (std::size_t i = b; i < n && want == n; ++i)
            if (o[i] < o[i - 1]) want = i;
          ASSERT_EQ(parprim::detail::first_decrease(x, b, n), want)
              << "n " << n << ", from " << b << ", trial " << trial;
        }
      }
    }
  };
  check(std::int16_t{});
  check(std::int32_t{});
  check(std::uint32_t{});
  check(std::int64_t{});
  check(std::uint64_t{});
  check(long{});
}

/// The OpenMP per-segment reductions in rounds (detail/segments_in_rounds.hpp): each block's
/// results go where the counts of the blocks before it say, the segment a block continues is
/// finished by the block that holds its end, and no result is written twice or by two threads.
/// Blocks of 1-64 elements give up to thousands of rounds; heads from flags (set or not at
/// element 0) and from keys, at densities from every element to none; affine maps (the order of
/// every fold shows) with and without `init`, and int32 sums (the running-sum loops, AVX2 where
/// the processor has it, which store whole vectors of slots: a slot of another block's segment
/// written shows). Then a throw from the operator at a random call reaches the caller.
TEST(OmpSegmentsInRounds, ResultsOfEveryRoundAndThrows) {
  namespace od = parprim::openmp::detail;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  const affine_compose then{};
  int throws = 0;
  for (const int team : {2, 3, 4, 7})
    for (const std::size_t tile : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}})
      for (const std::size_t n : {std::size_t{1}, std::size_t{2}, tile * team - 1,
                                  tile * team * 53 + 3, std::size_t{2003}})
        for (const std::size_t every :
             {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{300}, std::size_t{0}}) {
          if (n == 0) continue;
          SCOPED_TRACE("team " + std::to_string(team) + ", tile " + std::to_string(tile) + ", n " +
                       std::to_string(n) + ", a head every " + std::to_string(every));
          std::vector<std::uint8_t> flags(n, 0);
          for (std::size_t i = 0; i < n; ++i)
            flags[i] = every > 0 && r() % every == 0 ? static_cast<std::uint8_t>(1 + r() % 255) : 0;
          std::vector<std::int32_t> keys(n);
          for (std::size_t i = 0; i < n; ++i)
            keys[i] = i == 0 ? 5
                             : (flags[i] != 0 ? keys[i - 1] + 1 + static_cast<int>(r() % 3)
                                              : keys[i - 1]);
          std::vector<std::size_t> begins;
          for (std::size_t i = 0; i < n; ++i)
            if (i == 0 || flags[i] != 0) begins.push_back(i);
          std::vector<affine> maps(n);
          for (auto& f : maps)
            f = {static_cast<std::uint32_t>(r()) | 1u, static_cast<std::uint32_t>(r())};
          std::vector<std::int32_t> ints(n);
          for (auto& v : ints) v = uniform_int<std::int32_t>(r, -100000, 100000);  // (no overflow)
          const affine init{static_cast<std::uint32_t>(r()) | 1u, static_cast<std::uint32_t>(r())};
          const std::int32_t int_init = static_cast<std::int32_t>(r() % 1000);
          std::vector<affine> want_maps, want_maps_init;
          std::vector<std::int32_t> want_sums, want_keys;
          for (std::size_t s = 0; s < begins.size(); ++s) {
            const std::size_t b = begins[s], e = s + 1 < begins.size() ? begins[s + 1] : n;
            affine f = maps[b];
            std::uint32_t sum = static_cast<std::uint32_t>(int_init);
            for (std::size_t i = b + 1; i < e; ++i) f = then(f, maps[i]);
            for (std::size_t i = b; i < e; ++i) sum += static_cast<std::uint32_t>(ints[i]);
            want_maps.push_back(f);
            want_maps_init.push_back(then(init, f));
            want_sums.push_back(static_cast<std::int32_t>(sum));
            want_keys.push_back(keys[b]);
          }
          const parprim::detail::flag_heads<std::uint8_t> by_flags{std::span(flags)};
          const parprim::detail::key_heads<std::int32_t> by_keys{std::span(std::as_const(keys))};
          const std::span<const affine> m(maps);
          const std::span<const std::int32_t> x(ints);
          const affine poison{0, 7};
          const std::vector<std::int32_t> no_keys;
          check_in_rounds(team, tile, m, by_flags, &init, then, want_maps_init, nullptr, no_keys,
                          poison);
          check_in_rounds(team, tile, m, by_keys, static_cast<const affine*>(nullptr), then,
                          want_maps, keys.data(), want_keys, poison);
          check_in_rounds(team, tile, x, by_flags, &int_init, parprim::plus{}, want_sums, nullptr,
                          no_keys, std::int32_t{-5});
          std::vector<std::int32_t> want_key_sums = want_sums;  // (no init by key)
          for (auto& v : want_key_sums)
            v = static_cast<std::int32_t>(static_cast<std::uint32_t>(v) -
                                          static_cast<std::uint32_t>(int_init));
          check_in_rounds(team, tile, x, by_keys, static_cast<const std::int32_t*>(nullptr),
                          parprim::plus{}, want_key_sums, keys.data(), want_keys, std::int32_t{-5});
          if (::testing::Test::HasFatalFailure()) return;
          // a throw at a random call of the operator (folds, carries, the blocks' reductions)
          std::atomic<long> calls{0};
          const long at = uniform_int<long>(r, 1, static_cast<long>(n));
          std::vector<affine> out(n + 2, poison);
          bool thrown = false;
          try {
            od::reduce_segments_in_rounds<affine>(team, tile, m, by_flags, &init,
                                                  compose_or_throw{&calls, at},
                                                  od::store_results<affine>{out.data()});
          } catch (const op_failure&) {
            thrown = true;
          }
          EXPECT_EQ(thrown, calls.load() >= at) << "throw at call " << at;
          throws += thrown;
        }
  EXPECT_GT(throws, 300) << "most throwing runs reach their throw";
}

/// The OpenMP per-segment folds in chains (segments.hpp, reduce_block_in_chains: head flags or
/// int32 keys, heads between one in 24 and three in four, operators of the library on
/// arithmetic values; each case as segmented_reduce and as reduce_by_key): several
/// runs folded in step, a run's first segment folded again after the chunk. Each segment is
/// folded in sequence order, so on one thread float64 products have the sequential loop's bits;
/// integer maxima, products and xors on 1-4 threads are exact. Lengths around the chunks of
/// 4 x 512 elements; heads random, only in the first run of each chunk (the other runs start
/// and end inside one segment), or exactly at the runs' starts; int32 products of segments of
/// one or two elements that do not overflow while the chains' discarded products do (undefined
/// if they were not wrapped: the sanitizer build would say so).
TEST(OmpSegmentsInChains, FoldEachSegmentInSequenceOrder) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  constexpr std::size_t run = 512, chunk = 4 * run;
  const auto compare = [&]<class T, class Op>(const std::vector<T>& in,
                                              const std::vector<std::uint8_t>& flags, T init, Op op,
                                              int threads, const char* what) {
    SCOPED_TRACE(std::string(what) + ", " + std::to_string(threads) + " threads");
    const std::size_t k = static_cast<std::size_t>(
        1 + std::count_if(flags.begin() + 1, flags.end(), [](std::uint8_t f) { return f != 0; }));
    std::vector<T> want(k), got(k + 1, T{7});
    const std::span<const T> x(in);
    const std::span<const std::uint8_t> f(flags);
    ASSERT_EQ(parprim::segmented_reduce(parprim::seq, x, f, std::span<T>(want), init, op), k);
    ASSERT_EQ(
        parprim::segmented_reduce(parprim::omp.threads(threads), x, f, std::span<T>(got), init, op),
        k);
    for (std::size_t s = 0; s < k; ++s)
      ASSERT_TRUE(std::memcmp(&got[s], &want[s], sizeof(T)) == 0)
          << "segment " << s << " of " << k << ": " << got[s] << " against " << want[s];
    ASSERT_EQ(got[k], T{7}) << "written past the segments";
    // the same segments as runs of int32 keys (reduce_by_key: no init)
    std::vector<std::int32_t> keys(in.size()), want_keys(k), got_keys(k + 1, -1);
    for (std::size_t i = 0; i < keys.size(); ++i)
      keys[i] = i == 0 ? -5 : keys[i - 1] + (flags[i] != 0 ? flags[i] : 0);
    const std::span<const std::int32_t> ks(keys);
    ASSERT_EQ(parprim::reduce_by_key(parprim::seq, ks, x, std::span<std::int32_t>(want_keys),
                                     std::span<T>(want), op),
              k);
    std::fill(got.begin(), got.end(), T{7});
    ASSERT_EQ(parprim::reduce_by_key(parprim::omp.threads(threads), ks, x,
                                     std::span<std::int32_t>(got_keys), std::span<T>(got), op),
              k);
    for (std::size_t s = 0; s < k; ++s) {
      ASSERT_TRUE(std::memcmp(&got[s], &want[s], sizeof(T)) == 0)
          << "run " << s << " of " << k << ": " << got[s] << " against " << want[s];
      ASSERT_EQ(got_keys[s], want_keys[s]) << "key of run " << s;
    }
    ASSERT_EQ(got[k], T{7}) << "written past the runs";
    ASSERT_EQ(got_keys[k], -1) << "key written past the runs";
  };
  for (const std::size_t n : {chunk - 1, chunk, chunk + 1, chunk + 2, 2 * chunk + 1,
                              3 * chunk + run + 5, std::size_t{10007}})
    for (const int pattern : {7, 10, 30, 60, 70, -1, -2}) {  // heads in 100; first runs; starts
      SCOPED_TRACE("n " + std::to_string(n) + ", heads " + std::to_string(pattern));
      std::vector<std::uint8_t> flags(n, 0);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = i % chunk;  // (chunks counted from 0: the first head is element 0)
        const bool head = pattern == -1   ? at < run && uniform_int<int>(r, 0, 2) == 0
                          : pattern == -2 ? at % run == 0 || uniform_int<int>(r, 0, 9) == 0
                                          : uniform_int<int>(r, 0, 99) < pattern;
        flags[i] = head ? static_cast<std::uint8_t>(uniform_int<int>(r, 1, 255)) : 0;
      }
      std::vector<double> reals(n);  // (products of segments of any length stay normal)
      for (auto& v : reals)
        v = (uniform_int<int>(r, 0, 1) ? -1.0 : 1.0) *
            std::exp2(uniform_real<double>(r, -0.1, 0.1));
      std::vector<std::int64_t> wide(n);
      for (auto& v : wide) v = uniform_int<std::int64_t>(r, INT64_MIN, INT64_MAX);
      std::vector<std::uint32_t> words(n);
      for (auto& v : words) v = static_cast<std::uint32_t>(r());
      compare(reals, flags, uniform_real<double>(r, -4.0, 4.0), parprim::multiplies{}, 1,
              "float64 multiplies");
      for (const int threads : {1, 2, 3, 4}) {
        compare(wide, flags, std::int64_t{INT64_MIN}, parprim::maximum{}, threads, "int64 max");
        compare(wide, flags, std::int64_t{-3}, parprim::minimum{}, threads, "int64 min");
        compare(words, flags, 12345u, parprim::bit_xor{}, threads, "uint32 xor");
        compare(words, flags, 3u, parprim::multiplies{}, threads, "uint32 multiplies");
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  // int32 products: segments of one or two elements below 30000 in magnitude
  std::vector<std::uint8_t> flags(10007);
  std::vector<std::int32_t> small(flags.size());
  for (std::size_t i = 0, length = 0; i < flags.size(); ++i) {
    const bool head = i == 0 || length == 2 || uniform_int<int>(r, 0, 1) == 0;
    flags[i] = head ? 1 : 0;
    length = head ? 1 : length + 1;
    small[i] = uniform_int<std::int32_t>(r, -30000, 30000);
  }
  for (const int threads : {1, 2, 3})
    compare(small, flags, std::int32_t{-1}, parprim::multiplies{}, threads, "int32 multiplies");
}

/// The OpenMP per-segment vector fold (segments.hpp, fold_block_by_vectors; segment_folds_avx2.hpp:
/// blocks dense enough in heads, vectors_from, where the processor has AVX2) and the segmented
/// scans' vector form (segmented_folds_avx2) against `seq`, bit for bit: segmented_reduce (with
/// and without init), reduce_by_key (keys of the values' size), the segmented scans and the
/// scans by key, inclusive and exclusive: integer minimum, maximum and bit operators on 4- and
/// 8-byte values, 4-byte products (uint32 wrapping), float and double minimum and maximum with NaNs
/// of both signs and several payloads, signed zeros, infinities and subnormals (the order of
/// operators.hpp, taken on ordered keys). Lengths around the vectors, heads from none (one
/// segment) and one in about 1000 to every element, 1-4 threads; sparse heads take the folds of
/// whole ranges by vectors (fold_vectors.hpp), as does the plain `reduce`, compared here too.
/// Where the processor has AVX-512 its forms run (segment_folds_avx512.hpp, fold_vectors.hpp),
/// the AVX2 ones under PARPRIM_SEGMENT_SIMD=avx2 (a second run of this test); without AVX2 (or
/// under PARPRIM_SEGMENT_SIMD=portable) the same comparisons check the element-by-element folds.
TEST(OmpSegmentVectors, ExactOperatorsMatchTheSequence) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  const auto same_bits = [](const auto& a, const auto& b) {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
  };
  const auto compare = [&]<class T, class Op>(const std::vector<T>& in,
                                              const std::vector<std::uint8_t>& flags, T init, Op op,
                                              int threads, const char* what) {
    SCOPED_TRACE(std::string(what) + ", " + std::to_string(threads) + " threads");
    const std::size_t k = static_cast<std::size_t>(
        1 + std::count_if(flags.begin() + 1, flags.end(), [](std::uint8_t f) { return f != 0; }));
    const std::span<const T> x(in);
    const std::span<const std::uint8_t> f(flags);
    const T guard = static_cast<T>(77);
    const T whole = parprim::reduce(parprim::omp.threads(threads), x, init, op);
    const T whole_seq = parprim::reduce(parprim::seq, x, init, op);
    ASSERT_TRUE(same_bits(whole, whole_seq)) << "reduce: " << whole << " against " << whole_seq;
    for (const bool with_init : {false, true}) {
      std::vector<T> want(k), got(k + 1, guard);
      if (with_init) {
        ASSERT_EQ(parprim::segmented_reduce(parprim::seq, x, f, std::span<T>(want), init, op), k);
        ASSERT_EQ(parprim::segmented_reduce(parprim::omp.threads(threads), x, f, std::span<T>(got),
                                            init, op),
                  k);
      } else {  // (reduce_by_key's results: no init)
        using Key = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
        std::vector<Key> keys(in.size()), want_keys(k), got_keys(k + 1, Key{-1});
        for (std::size_t i = 0; i < keys.size(); ++i)
          keys[i] = i == 0 ? Key{-5} : static_cast<Key>(keys[i - 1] + flags[i]);
        const std::span<const Key> ks(keys);
        ASSERT_EQ(parprim::reduce_by_key(parprim::seq, ks, x, std::span<Key>(want_keys),
                                         std::span<T>(want), op),
                  k);
        ASSERT_EQ(parprim::reduce_by_key(parprim::omp.threads(threads), ks, x,
                                         std::span<Key>(got_keys), std::span<T>(got), op),
                  k);
        for (std::size_t s = 0; s < k; ++s) ASSERT_EQ(got_keys[s], want_keys[s]) << "key of " << s;
        ASSERT_EQ(got_keys[k], Key{-1}) << "key written past the runs";
      }
      for (std::size_t s = 0; s < k; ++s)
        ASSERT_TRUE(same_bits(got[s], want[s])) << (with_init ? "segment " : "run ") << s << " of "
                                                << k << ": " << got[s] << " against " << want[s];
      ASSERT_TRUE(same_bits(got[k], guard)) << "written past the segments";
    }
    // the segmented scans (segmented_folds_avx2), inclusive and exclusive, by flags and by keys
    using Key = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    std::vector<Key> keys(in.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      keys[i] = i == 0 ? Key{3} : static_cast<Key>(keys[i - 1] - flags[i]);
    const std::span<const Key> ks(keys);
    for (int form = 0; form < 4; ++form) {
      SCOPED_TRACE("scan form " + std::to_string(form));
      std::vector<T> want(in.size()), got(in.size() + 1, guard);
      const std::span<T> g = std::span<T>(got).first(in.size());
      if (form == 0) {
        parprim::segmented_inclusive_scan(parprim::seq, x, f, std::span<T>(want), op);
        parprim::segmented_inclusive_scan(parprim::omp.threads(threads), x, f, g, op);
      } else if (form == 1) {
        parprim::segmented_exclusive_scan(parprim::seq, x, f, std::span<T>(want), init, op);
        parprim::segmented_exclusive_scan(parprim::omp.threads(threads), x, f, g, init, op);
      } else if (form == 2) {
        parprim::inclusive_scan_by_key(parprim::seq, ks, x, std::span<T>(want), op);
        parprim::inclusive_scan_by_key(parprim::omp.threads(threads), ks, x, g, op);
      } else {
        parprim::exclusive_scan_by_key(parprim::seq, ks, x, std::span<T>(want), init, op);
        parprim::exclusive_scan_by_key(parprim::omp.threads(threads), ks, x, g, init, op);
      }
      for (std::size_t i = 0; i < in.size(); ++i)
        ASSERT_TRUE(same_bits(got[i], want[i]))
            << "element " << i << ": " << got[i] << " against " << want[i];
      ASSERT_TRUE(same_bits(got[in.size()], guard)) << "written past the output";
    }
  };
  // floats: mostly numbers of wide range, some of the values operators.hpp orders specially
  const auto real = [&]<class F>(F) {
    using bits = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
    switch (uniform_int<int>(r, 0, 15)) {
      case 0:
        return std::numeric_limits<F>::quiet_NaN();
      case 1:
        return -std::numeric_limits<F>::quiet_NaN();
      case 2: {  // a NaN of another payload and sign
        const bits payload = static_cast<bits>(r()) & (std::numeric_limits<bits>::max() >> 12);
        return std::bit_cast<F>(
            static_cast<bits>(std::bit_cast<bits>(std::numeric_limits<F>::quiet_NaN()) | payload |
                              (r() % 2 == 0 ? bits{0} : ~(~bits{0} >> 1))));
      }
      case 3:
        return F{0};
      case 4:
        return -F{0};
      case 5:
        return (r() % 2 == 0 ? F{1} : F{-1}) * std::numeric_limits<F>::infinity();
      case 6:
        return (r() % 2 == 0 ? F{1} : F{-1}) * std::numeric_limits<F>::denorm_min() * F(r() % 1000);
      default:
        return static_cast<F>(uniform_real<double>(r, -1.0, 1.0) *
                              std::ldexp(1.0, uniform_int<int>(r, -60, 60)));
    }
  };
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{8}, std::size_t{9},
        std::size_t{17}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000},
        std::size_t{10007}, std::size_t{100003}})
    for (const int per_4096 : {0, 4, 30, 64, 192, 1280, 3072, 4096}) {  // heads in 4096 elements
      if (n > 10007 && per_4096 > 64) continue;  // (the large input for sparse heads only)
      SCOPED_TRACE("n " + std::to_string(n) + ", heads " + std::to_string(per_4096) + " in 4096");
      std::vector<std::uint8_t> flags(n, 0);
      for (auto& h : flags)
        h = uniform_int<int>(r, 0, 4095) < per_4096
                ? static_cast<std::uint8_t>(uniform_int<int>(r, 1, 3))
                : 0;
      std::vector<std::int32_t> i32(n), signs(n);  // (signs: products that never overflow)
      std::vector<std::uint32_t> u32(n);
      std::vector<std::int64_t> i64(n);
      std::vector<std::uint64_t> u64(n);
      std::vector<float> f32(n);
      std::vector<double> f64(n);
      for (std::size_t i = 0; i < n; ++i) {
        i32[i] = static_cast<std::int32_t>(r());
        signs[i] = uniform_int<int>(r, 0, 20) == 0 ? 0 : uniform_int<int>(r, 0, 1) * 2 - 1;
        u32[i] = static_cast<std::uint32_t>(r());
        i64[i] = static_cast<std::int64_t>(r());
        u64[i] = r();
        f32[i] = real(0.0f);
        f64[i] = real(0.0);
      }
      for (const int threads : {1, 2, 3, 4}) {
        compare(i32, flags, std::int32_t{-9}, parprim::maximum{}, threads, "int32 max");
        compare(i32, flags, std::int32_t{9}, parprim::minimum{}, threads, "int32 min");
        compare(signs, flags, std::int32_t{-1}, parprim::multiplies{}, threads, "int32 multiplies");
        compare(u32, flags, 3u, parprim::multiplies{}, threads, "uint32 multiplies");
        compare(u32, flags, 0xf0f0f0f0u, parprim::bit_and{}, threads, "uint32 and");
        compare(u32, flags, 5u, parprim::maximum{}, threads, "uint32 max");
        compare(i64, flags, std::int64_t{-2}, parprim::minimum{}, threads, "int64 min");
        compare(i64, flags, std::int64_t{3}, parprim::bit_or{}, threads, "int64 or");
        compare(u64, flags, std::uint64_t{1} << 63, parprim::minimum{}, threads, "uint64 min");
        compare(u64, flags, std::uint64_t{12345}, parprim::bit_xor{}, threads, "uint64 xor");
        compare(f32, flags, -0.0f, parprim::minimum{}, threads, "float32 min");
        compare(f32, flags, 0.5f, parprim::maximum{}, threads, "float32 max");
        compare(f64, flags, 0.0, parprim::minimum{}, threads, "float64 min");
        compare(f64, flags, -std::numeric_limits<double>::infinity(), parprim::maximum{}, threads,
                "float64 max");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}
#endif

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP && PARPRIM_HOST_AVX2
/// One run of the vector per-segment float or double sums (sum_segment_ends_vectors) over the
/// whole groups of [b, b + len) from the running sum `acc0`: each slot bit for bit the portable
/// scan's sum before its head, plus `init` (With_init); by key, each head's key one slot further
/// on; the count of segments ended and the running sum after; nothing written beyond.
template <bool With_init, class Key, class T, class K, class Flags>
void check_segment_ends(const std::vector<T>& in, const std::vector<std::uint8_t>& head,
                        const std::vector<K>& keys, const Flags& flags, std::size_t b,
                        std::size_t len, T acc0, T init) {
  namespace od = parprim::openmp::detail;
  const std::size_t groups = len / od::group_elements<T>;
  const std::size_t e = b + groups * od::group_elements<T>;
  std::vector<T> scan(len + 1);
  const T last =
      od::segmented_grouped_sum_scan(in.data(), scan.data(), b, e, false, acc0, flags, false);
  std::vector<T> want;
  std::vector<K> want_keys;
  for (std::size_t i = b; i < e; ++i)
    if (head[i] != 0) {
      const T before = i == b ? acc0 : scan[i - b - 1];
      want.push_back(With_init ? init + before : before);
      want_keys.push_back(keys[i]);
    }
  std::vector<T> slot(len + 9, T{-7});
  std::vector<K> keys_out(len + 10, K{-77});
  std::size_t ends = 0;
  const T end = od::sum_segment_ends_vectors<With_init, T, Key, Flags>(
      in.data(), slot.data(), std::is_void_v<Key> ? nullptr : keys_out.data(), b, groups, flags,
      acc0, init, ends);
  ASSERT_EQ(ends, want.size()) << "segments ended";
  ASSERT_TRUE(std::memcmp(&end, &last, sizeof(T)) == 0) << "running sum";
  for (std::size_t q = 0; q < ends; ++q) {
    ASSERT_TRUE(std::memcmp(&slot[q], &want[q], sizeof(T)) == 0)
        << "segment " << q << ": " << slot[q] << " against " << want[q];
    if (!std::is_void_v<Key>) {
      ASSERT_EQ(keys_out[q + 1], want_keys[q]) << "key after segment " << q;
    }
  }
  for (std::size_t q = ends; q < slot.size(); ++q) ASSERT_EQ(slot[q], T{-7}) << "slot " << q;
  ASSERT_EQ(keys_out[0], K{-77}) << "key before the first slot";
  for (std::size_t q = ends + 1; q < keys_out.size(); ++q) ASSERT_EQ(keys_out[q], K{-77}) << q;
}

/// The segment ends of check_segment_ends for values of `T` and integer keys of `K` (its size):
/// head flags and keys, with and without init, blocks of whole groups and not, heads from none
/// to every element, signed zeros among the inputs.
template <class T, class K>
void check_segment_ends_at_densities(rng_t& r) {
  for (const std::size_t len : {3, 4, 5, 7, 8, 9, 16, 63, 64, 65, 1000, 4099})
    for (const int density : {0, 2, 10, 30, 75, 100}) {  // heads in 100 elements
      SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + ", length " +
                   std::to_string(len) + ", heads " + std::to_string(density) + "%");
      const std::size_t b = uniform_int<std::size_t>(r, 1, 9);
      const std::size_t n = b + len + 8;
      std::vector<T> in(n);
      std::vector<std::uint8_t> head(n);
      std::vector<K> keys(n);
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = uniform_int<int>(r, 0, 9) == 0 ? (uniform_int<int>(r, 0, 1) ? T{-0.0} : T{0})
                                               : uniform_real<T>(r, T{-1}, T{1});
        head[i] = uniform_int<int>(r, 0, 99) < density ? 1 : 0;
        keys[i] = i == 0 ? 0 : keys[i - 1] + (head[i] ? 1 : 0);
      }
      const T acc0 = in[0];
      const T init = uniform_real<T>(r, T{-4}, T{4});
      const std::span<const unsigned char> flags(head.data(), n);
      const parprim::detail::key_heads<K> by_keys{std::span<const K>(keys)};
      check_segment_ends<false, void>(in, head, keys, flags, b, len, acc0, init);
      check_segment_ends<true, void>(in, head, keys, flags, b, len, acc0, init);
      check_segment_ends<false, K>(in, head, keys, by_keys, b, len, acc0, init);
      check_segment_ends<true, K>(in, head, keys, by_keys, b, len, acc0, init);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

/// One run of a vector form of the OpenMP per-segment integer sums' running-sum loop (`loop`:
/// sum_tails_avx2 or sum_tails_avx512) from element `i0` with `left` heads left, checked
/// against the portable loop's values over the elements it took: the slots of the segments it
/// closed (the running sum before each head, or with `Differences` `base` plus its difference
/// from the end before), by key the heads' keys one slot further on, and its cursor. Its
/// stores may write past the slots it packs, never past W slots beyond them.
template <bool Differences, class U, class Key, class Loop>
void check_sum_tails(Loop loop, const std::vector<U>& in, const std::vector<std::uint8_t>& head,
                     const std::vector<std::conditional_t<std::is_void_v<Key>, U, Key>>& keys,
                     std::size_t i0, std::size_t e, U base, std::size_t ahead, const char* form) {
  namespace od = parprim::openmp::detail;
  SCOPED_TRACE(form);
  using K = std::conditional_t<std::is_void_v<Key>, U, Key>;
  std::size_t left = 0;
  for (std::size_t k = i0; k < e; ++k) left += head[k] != 0 ? 1 : 0;
  const U running0 = in[0] * U{3}, closed0 = in[1];
  const std::size_t j0 = 2;
  std::vector<U> slot(e + 40, U{7});
  std::vector<K> keys_out(e + 40, K{9});
  const auto* key_data = [&] {
    if constexpr (std::is_void_v<Key>)
      return static_cast<const void*>(nullptr);
    else
      return keys.data();
  }();
  const od::tails_cursor<U> c = loop(
      in.data(), head.data(), key_data, std::is_void_v<Key> ? nullptr : keys_out.data(),
      slot.data(), e, base, od::tails_cursor<U>{i0, running0, closed0, j0, left}, ahead, in.size());
  ASSERT_GE(c.i, i0);
  ASSERT_LE(c.i, e);
  U running = running0, closed = closed0;
  std::size_t j = j0;
  for (std::size_t k = i0; k < c.i; ++k) {
    if (head[k] != 0) {
      const U want =
          Differences ? static_cast<U>(base + static_cast<U>(running - closed)) : running;
      ASSERT_EQ(slot[j], want) << "slot " << j << " (element " << k << ")";
      if constexpr (!std::is_void_v<Key>) {
        ASSERT_EQ(keys_out[j + 1], keys[k]) << "key after slot " << j;
      }
      closed = running;
      ++j;
    }
    running = static_cast<U>(running + in[k]);
  }
  ASSERT_EQ(c.j, j) << "slots written";
  ASSERT_EQ(c.running, running) << "running sum";
  if (Differences) {
    ASSERT_EQ(c.closed, closed) << "end of the last segment closed";
  }
  std::size_t met = 0;
  for (std::size_t k = i0; k < c.i; ++k) met += head[k] != 0 ? 1 : 0;
  ASSERT_EQ(c.heads_left, left - met) << "heads left";
  if (left >= 64 && e - c.i >= 64) {
    ASSERT_GT(c.i, i0) << "the loop took no element of a long block";
  }
  for (std::size_t q = 0; q < j0; ++q) ASSERT_EQ(slot[q], U{7}) << "slot before the first";
  for (std::size_t q = c.j + 16; q < slot.size(); ++q) ASSERT_EQ(slot[q], U{7}) << "slot " << q;
}

/// The per-segment integer sums' vector loops on values of `U` with keys of `Key` (void: head
/// flags) at every density, both ways of writing the slots, with and without the read-ahead.
template <class U, class Key>
void check_sum_tails_forms(rng_t& r) {
  namespace od = parprim::openmp::detail;
  using K = std::conditional_t<std::is_void_v<Key>, U, Key>;
  for (const std::size_t len : {15, 16, 17, 33, 100, 1000, 4099})
    for (const int density : {0, 2, 10, 30, 75, 90, 100}) {
      SCOPED_TRACE(std::to_string(8 * sizeof(U)) + "-bit values, " +
                   (std::is_void_v<Key> ? "flags" : "keys") + ", length " + std::to_string(len) +
                   ", heads " + std::to_string(density) + "%");
      const std::size_t i0 = uniform_int<std::size_t>(r, 2, 9);
      const std::size_t e = i0 + len;
      std::vector<U> in(e + 16);
      std::vector<std::uint8_t> head(e + 16);
      std::vector<K> keys(e + 16);
      for (std::size_t k = 0; k < in.size(); ++k) {
        in[k] = static_cast<U>(r());
        head[k] = uniform_int<int>(r, 0, 99) < density ? 1 : 0;
        keys[k] = k == 0 ? K{0} : static_cast<K>(keys[k - 1] + (head[k] ? 1 : 0));
      }
      const U base = static_cast<U>(r());
      const auto run = [&]<bool Differences>(std::size_t ahead) {
        check_sum_tails<Differences, U, Key>(
            [](auto&&... a) { return od::sum_tails_avx2<Differences, U, Key>(a...); }, in, head,
            keys, i0, e, base, ahead, "AVX2");
        if (!parprim::detail::avx512_supported()) return;
        if (ahead > 0)
          check_sum_tails<Differences, U, Key>(
              [](auto&&... a) { return od::sum_tails_avx512<Differences, true, U, Key>(a...); }, in,
              head, keys, i0, e, base, ahead, "AVX-512, read-ahead");
        else
          check_sum_tails<Differences, U, Key>(
              [](auto&&... a) { return od::sum_tails_avx512<Differences, false, U, Key>(a...); },
              in, head, keys, i0, e, base, ahead, "AVX-512");
      };
      run.template operator()<false>(0);
      run.template operator()<false>(64);
      run.template operator()<true>(0);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// The vector counts of heads (count_heads.hpp: one-byte flags, integer keys of 4 and 8 bytes)
// against the views' own loops, over whole views and subviews (whose element 0 is a head only
// at the sequence's start), every range [b, e) of a few lengths, heads from none to every
// element.
TEST(CountHeads, VectorLoopsAgreeWithTheViews) {
  namespace od = parprim::openmp::detail;
  namespace pd = parprim::detail;
  if (!od::sums_tails_avx2_usable())
    GTEST_SKIP() << "no AVX2 on this processor (or PARPRIM_SEGMENT_SIMD=portable): the vector "
                    "counts do not run";
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  for (const std::size_t n : {1, 2, 31, 33, 64, 100, 1000, 4099})
    for (const int density : {0, 3, 50, 100}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", heads " + std::to_string(density) + "%");
      std::vector<std::uint8_t> flags(n);
      std::vector<std::int32_t> k32(n);
      std::vector<std::uint64_t> k64(n);
      for (std::size_t i = 0; i < n; ++i) {
        const bool head = uniform_int<int>(r, 0, 99) < density;
        flags[i] = head ? static_cast<std::uint8_t>(uniform_int<int>(r, 1, 255)) : 0;
        k32[i] = i == 0 ? -3 : k32[i - 1] + (head ? uniform_int<std::int32_t>(r, 1, 9) : 0);
        k64[i] = i == 0 ? 0 : k64[i - 1] + (head ? (std::uint64_t{1} << 40) : 0);
      }
      const pd::flag_heads<std::uint8_t> by_flags{std::span<const std::uint8_t>(flags)};
      const pd::key_heads<std::int32_t> by_k32{std::span<const std::int32_t>(k32)};
      const pd::key_heads<std::uint64_t> by_k64{std::span<const std::uint64_t>(k64)};
      for (const std::size_t off : {std::size_t{0}, std::size_t{1}, n / 2}) {
        if (off >= n) continue;
        const auto check = [&](const auto& view, const char* what) {
          const std::size_t m = view.size();
          for (int t = 0; t < 20; ++t) {
            std::size_t b = uniform_int<std::size_t>(r, 0, m);
            std::size_t e = uniform_int<std::size_t>(r, 0, m);
            if (b > e) std::swap(b, e);
            if (t == 0) b = 0, e = m;
            ASSERT_EQ(od::count_heads(view, b, e), view.count(b, e))
                << what << ", subview from " << off << ", [" << b << ", " << e << ")";
          }
        };
        check(by_flags.subspan(off), "flags");
        check(by_k32.subspan(off), "int32 keys");
        check(by_k64.subspan(off), "uint64 keys");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// The vector loops of OpenMP's per-segment integer sums (segment_sums_avx2.hpp and, where the
// processor has AVX-512, segment_sums_avx512.hpp) against the portable loop's values: 4- and
// 8-byte values, head flags and keys of their size.
TEST(SegmentSumsVectors, AgreeWithThePortableLoop) {
  namespace od = parprim::openmp::detail;
  if (!parprim::detail::avx2_supported())
    GTEST_SKIP() << "no AVX2 on this processor: the vector loops do not run";
  if (!parprim::detail::avx512_supported())
    std::cout << "[ note ] no AVX-512 here: only the AVX2 loop runs\n";
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  check_sum_tails_forms<std::uint32_t, void>(r);
  check_sum_tails_forms<std::uint32_t, std::int32_t>(r);
  check_sum_tails_forms<std::uint64_t, void>(r);
  check_sum_tails_forms<std::uint64_t, std::int64_t>(r);
}

// The vector form of OpenMP's per-segment float and double sums (AVX-512 where the processor
// has it, else AVX2; the test runs again with PARPRIM_SEGMENT_SIMD=avx2) keeps, of the segmented
// scans' group sums, those before each head, in the bits the portable form's scan gives there:
// float values with int32 keys, double values with int64 keys.
TEST(SegmentEndsAvx2, AgreesWithThePortableScanAtEveryHead) {
  namespace od = parprim::openmp::detail;
  if (!od::sums_tails_avx2_usable())
    GTEST_SKIP() << "no AVX2 on this processor (or PARPRIM_SEGMENT_SIMD=portable): the form "
                    "does not run";
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(seed_trace(seed));
  rng_t r = make_rng(seed, 0);
  check_segment_ends_at_densities<float, std::int32_t>(r);
  check_segment_ends_at_densities<double, std::int64_t>(r);
}
#endif

}  // namespace
}  // namespace parprim_test
