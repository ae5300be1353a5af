/// \file
/// \brief The CUDA scans from a PLAIN C++ translation unit (g++), through the instantiations
/// precompiled in the parprim::cuda library: every rung of the scan ladder x {int32, uint32,
/// int64, uint64, float, double} x {plus, minimum, maximum}; inclusive_scan, exclusive_scan,
/// segmented_inclusive_scan, segmented_exclusive_scan; in place and out of place; head flags
/// at every density; outputs poisoned, with guard elements around them. Compared with the
/// sequential left fold (tests/support/harness.hpp): integers and min/max exactly, rounded
/// float sums within 2 m eps sum|x| per element (m operands). Also: subspans that start off
/// any alignment, three-level hierarchies, float determinism, the default policy, streams and
/// threads, managed and pinned memory, empty inputs, bad inputs; the scans by key on every
/// precompiled key type; and parprim::exact_plus per segment (segmented scans, segmented_reduce,
/// reduce_by_key, scans by key) from plain C++.
///
/// Every failure prints the seed; rerun with PARPRIM_TEST_SEED=<seed> to reproduce it.
/// PARPRIM_CUDA_TEST_MAX_N=<n> caps the sizes (for the compute-sanitizer runs).
///
/// What must NOT compile (each is a static_assert with a readable message):
/// \code
///   std::vector<int> host(10);
///   parprim::inclusive_scan(parprim::cuda, host, host);               // host ranges
///   parprim::inclusive_scan(parprim::cuda, d_int8, d_int32);          // int8 into int32: not
///                                                                     // precompiled, needs .cu
///   parprim::inclusive_scan(parprim::cuda, d_mat2, d_mat2, mat2_multiply{});  // user op: .cu
/// \endcode

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

#if defined(__CUDACC__)
#error "this file checks the g++ path: it must not be compiled by nvcc"
#endif

namespace parprim_cuda_test::scans {
namespace {

using namespace cases;  // NOLINT: the case names read as the test matrix

template <class Case, class... Cs>
inline constexpr bool one_of_cases = (std::is_same_v<Case, Cs> || ...);

// --- every rung x type x operator x size ------------------------------------------------------

template <class Case>
class CudaScanBuiltin : public ::testing::Test {};
using builtin_cases =
    ::testing::Types<Int32Plus, Int32Min, Int32Max, Uint32Plus, Uint32Min, Uint32Max, Int64Plus,
                     Int64Min, Int64Max, Uint64Plus, Uint64Min, Uint64Max, FloatPlus,
                     FloatPlusExact, FloatMin, FloatMax, DoublePlus, DoublePlusExact, DoubleMin,
                     DoubleMax, FloatMinSpecial, DoubleMaxSpecial, FloatMaxSpecial,
                     DoubleMinSpecial>;
TYPED_TEST_SUITE(CudaScanBuiltin, builtin_cases);

/// The cases that also run at n = 10^7 (the rest stop at 3 * 10^6; FloatPlusExact must, its
/// partial sums are exact only below 2^24).
template <class Case>
constexpr bool plain_at_ten_million =
    one_of_cases<Case, Int32Plus, Uint32Max, Int64Plus, FloatPlus, DoublePlus>;
template <class Case>
constexpr bool segmented_at_ten_million = one_of_cases<Case, Int32Plus, FloatPlus>;

TYPED_TEST(CudaScanBuiltin, InclusiveAndExclusiveEveryRungAndSize) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  sweep<TypeParam>(seed, scan_sizes(seed, plain_at_ten_million<TypeParam>), sweep_options{});
}

TYPED_TEST(CudaScanBuiltin, SegmentedEveryRungDensityAndSize) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  sweep_options o;
  o.plain = false;
  o.segmented = true;
  sweep<TypeParam>(seed, scan_sizes(seed, segmented_at_ten_million<TypeParam>), o);
}

// Rung 5 loads vectors: inputs and outputs that start off a 16-byte boundary (and off each
// other's alignment) take the unaligned paths. Exact cases only (compared bit for bit).
TYPED_TEST(CudaScanBuiltin, SubspansAtEveryAlignment) {
  using Case = TypeParam;
  using T = typename Case::in_t;
  if constexpr (Case::approximate) {
    GTEST_SKIP() << "rounded sums: the exact cases cover the alignments";
  } else {
    PARPRIM_SKIP_WITHOUT_GPU();
    const std::uint64_t seed = pt::test_seed();
    SCOPED_TRACE(pt::seed_trace(seed));
    const std::size_t max_off = 7;
    guarded_device_buffer<T> d_in(100003 + max_off), d_out(100003 + max_off);
    guarded_device_buffer<std::uint8_t> d_flags(100003 + max_off);
    struct offsets {
      std::size_t in, out;
    };
    for (const offsets off : {offsets{1, 0}, offsets{0, 1}, offsets{3, 5}, offsets{2, 2},
                              offsets{7, 4}, offsets{4, 0}}) {
      for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(17), std::size_t(4099),
                            std::size_t(100003)}) {
        if (n > scan_max_n()) continue;
        SCOPED_TRACE("input at element " + std::to_string(off.in) + ", output at element " +
                     std::to_string(off.out) + ", n = " + std::to_string(n));
        pt::rng_t r = pt::make_rng(seed, n, off.in * 16 + off.out);
        const std::vector<T> padded = pt::make_input<Case>(r, n + off.in);
        const std::vector<T> in(padded.begin() + static_cast<std::ptrdiff_t>(off.in), padded.end());
        const T init = Case::init(r);
        const std::vector<std::uint8_t> padded_flags =
            pt::make_flags(r, n + off.in, density::third);
        const std::vector<std::uint8_t> flags(
            padded_flags.begin() + static_cast<std::ptrdiff_t>(off.in), padded_flags.end());
        d_in.fill(padded);
        d_flags.fill(padded_flags);
        for (const variant v :
             {variant{false, false, density::none}, variant{false, true, density::none},
              variant{true, false, density::third}, variant{true, true, density::third}}) {
          SCOPED_TRACE(describe(v, init));
          const auto ref = pt::reference<Case>::scan(
              std::span<const T>(in), v.segmented ? flags.data() : nullptr, v.exclusive, init);
          // The whole output buffer: poison before the output's first element, then the scan.
          std::vector<T> want = pt::poisoned<T>(n + off.out);
          std::copy(ref.exact.begin() + static_cast<std::ptrdiff_t>(guard),
                    ref.exact.end() - static_cast<std::ptrdiff_t>(guard),
                    want.begin() + static_cast<std::ptrdiff_t>(guard + off.out));
          pt::expectation<T> e;
          e.exact = want;
          for_each_scan_rung([&](const auto& rung, std::size_t) {
            if (::testing::Test::HasFatalFailure()) return;
            d_out.poison(n + off.out);
            call_public(rung.on(test_stream()), v, d_in.body().subspan(off.in, n),
                        d_flags.body().subspan(off.in, n), d_out.body().subspan(off.out, n), init,
                        typename Case::op_t{});
            const std::vector<T> got = d_out.read_all();
            ASSERT_TRUE(pt::matches(e, std::span<const T>(got)))
                << scan_rung_name(rung) << ", out of place";
            // In place at the input's offset.
            std::vector<T> in_place_want = pt::poisoned<T>(n + off.in);
            std::copy(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(off.in),
                      in_place_want.begin() + static_cast<std::ptrdiff_t>(guard));
            std::copy(ref.exact.begin() + static_cast<std::ptrdiff_t>(guard),
                      ref.exact.end() - static_cast<std::ptrdiff_t>(guard),
                      in_place_want.begin() + static_cast<std::ptrdiff_t>(guard + off.in));
            pt::expectation<T> e2;
            e2.exact = in_place_want;
            d_out.fill(padded);
            const auto io = d_out.body().subspan(off.in, n);
            call_public(rung.on(test_stream()), v, parprim::device_span<const T>(io),
                        d_flags.body().subspan(off.in, n), io, init, typename Case::op_t{});
            const std::vector<T> got2 = d_out.read_all();
            ASSERT_TRUE(pt::matches(e2, std::span<const T>(got2)))
                << scan_rung_name(rung) << ", in place";
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// --- rung 1-3's hierarchy: n above tile^2 needs a third level --------------------------------

TEST(CudaScanBuiltinHierarchy, ThreeLevelsEveryRung) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  std::vector<std::size_t> sizes;
  for (std::size_t n : {(std::size_t(1) << 22) + 1, (std::size_t(1) << 24) + 1})
    if (n <= scan_max_n()) sizes.push_back(n);
  sweep_options o;
  o.segmented = true;
  o.densities = {density::none, density::thousandth, density::last_only};
  o.in_place = false;
  o.full_cross_max = std::size_t(-1);  // every rung runs every variant
  sweep<Uint32Plus>(seed, sizes, o);
}

// --- determinism ---------------------------------------------------------------------------

template <class Case>
class CudaScanDeterminism : public ::testing::Test {};
using float_cases = ::testing::Types<FloatPlus, DoublePlus>;
TYPED_TEST_SUITE(CudaScanDeterminism, float_cases);

// Float results repeat bit for bit, for every rung (the look-back rungs, 5 and 6 the default, are
// documented to be deterministic: their look-back combines a fixed tree, whatever is ready first):
// the same call twice, with another call (another size, the same cached scratch) in between. The
// largest size gives rung 6 (7168 4-byte or 3584 8-byte values a plain tile) more than 4,096
// tiles, where its plain float scans take the long look-back waits (the tiles that close a group
// of the fixed tree sleeping shorter).
TYPED_TEST(CudaScanDeterminism, SameCallTwiceIsBitwiseIdentical) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using Case = TypeParam;
  using T = typename Case::in_t;
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  constexpr std::size_t rung6_plain_tile_bytes = 7168 * 4;
  const std::size_t long_waits = 4096 * (rung6_plain_tile_bytes / sizeof(T)) + 12345;
  const std::size_t big = std::min<std::size_t>(long_waits, scan_max_n());
  pt::rng_t r = pt::make_rng(seed, big);
  const std::vector<T> in = pt::make_input<Case>(r, big);
  const std::vector<std::uint8_t> flags = pt::make_flags(r, big, density::thousandth);
  const T init = Case::init(r);
  guarded_device_buffer<T> d_in(big), d_out(big), d_other(big);
  guarded_device_buffer<std::uint8_t> d_flags(big);
  d_in.fill(in);
  d_flags.fill(flags);
  for (std::size_t n : {(std::size_t(1) << 20) + 3, std::size_t(10'000'000), big}) {
    if (n > big) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto src = d_in.body().first(n);
    const auto fl = d_flags.body().first(n);
    for (const variant v :
         {variant{false, false, density::none}, variant{false, true, density::none},
          variant{true, false, density::thousandth}, variant{true, true, density::thousandth}}) {
      SCOPED_TRACE(describe(v, init));
      for_each_scan_rung([&](const auto& rung, std::size_t) {
        const auto p = rung.on(test_stream());
        d_out.poison(n);
        call_public(p, v, src, fl, d_out.body(), init, typename Case::op_t{});
        const std::vector<T> a = d_out.read_body();
        d_other.poison(n / 3);
        call_public(p, v, src.first(n / 3), fl.first(n / 3), d_other.body(), init,
                    typename Case::op_t{});
        d_out.poison(n);
        call_public(p, v, src, fl, d_out.body(), init, typename Case::op_t{});
        const std::vector<T> b = d_out.read_body();
        std::size_t first_diff = n;
        for (std::size_t i = 0; i < n && first_diff == n; ++i)
          if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) first_diff = i;
        EXPECT_EQ(first_diff, n) << scan_rung_name(rung) << ": element " << first_diff
                                 << " differs between two identical calls: "
                                 << pt::show(a[first_diff]) << " then " << pt::show(b[first_diff]);
      });
    }
  }
}

// --- the default policy ------------------------------------------------------------------------

TEST(CudaScanDefault, IsTmaStagedLookBackAndRunsFromPlainCxx) {
  static_assert(decltype(parprim::cuda)::scan_rung ==
                parprim::cuda_scan_rung::tma_staged_look_back);
  static_assert(decltype(parprim::cuda.scan_kernel(parprim::cuda_scan::default_))::scan_rung ==
                parprim::cuda_scan_rung::tma_staged_look_back);
  static_assert(decltype(parprim::cuda.scan_kernel(parprim::cuda_scan::k2_brent_kung)
                             .on(nullptr))::scan_rung == parprim::cuda_scan_rung::brent_kung);
  EXPECT_STREQ(parprim::cuda_scan_name(parprim::cuda_scan_rung::kogge_stone), "k1_kogge_stone");
  EXPECT_STREQ(parprim::cuda_scan_name(parprim::cuda_scan_rung::decoupled_look_back),
               "k5_decoupled_look_back");
  EXPECT_STREQ(parprim::cuda_scan_name(parprim::cuda_scan_rung::tma_staged_look_back),
               "k6_tma_staged_look_back");
  PARPRIM_SKIP_WITHOUT_GPU();
  // The default policy, default stream, a parprim::device_buffer converted implicitly.
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 7);
  const parprim::device_buffer<float> in(host);
  parprim::device_buffer<float> out(host.size());
  parprim::inclusive_scan(parprim::cuda, in.span(), out.span(), parprim::plus{});
  std::vector<float> want(host.size());
  parprim::inclusive_scan(parprim::seq, host, want, parprim::plus{});
  EXPECT_EQ(out.to_host(), want);  // integers: exact
  parprim::exclusive_scan(parprim::cuda, in.span(), out.span(), 0.5f, parprim::maximum{});
  parprim::exclusive_scan(parprim::seq, host, want, 0.5f, parprim::maximum{});
  EXPECT_EQ(out.to_host(), want);
  // The default operator is plus.
  parprim::device_buffer<std::int64_t> d(std::vector<std::int64_t>{1, 2, 3, 4});
  parprim::inclusive_scan(parprim::cuda, d.span(), d.span());
  EXPECT_EQ(d.to_host(), (std::vector<std::int64_t>{1, 3, 6, 10}));
  const parprim::device_buffer<std::uint8_t> f(std::vector<std::uint8_t>{0, 0, 1, 0});
  parprim::segmented_exclusive_scan(parprim::cuda.device(0), d.span(), f.span(), d.span(),
                                    std::int64_t(5));
  EXPECT_EQ(d.to_host(), (std::vector<std::int64_t>{5, 6, 5, 11}));
}

// --- empty inputs --------------------------------------------------------------------------

TEST(CudaScanEdge, EmptyInputsWriteNothing) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const parprim::device_span<const int> none_in(nullptr, 0);
  const parprim::device_span<int> none_out(nullptr, 0);
  const parprim::device_span<const std::uint8_t> none_flags(nullptr, 0);
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    EXPECT_NO_THROW(parprim::inclusive_scan(rung, none_in, none_out, parprim::plus{}))
        << scan_rung_name(rung);
    EXPECT_NO_THROW(parprim::exclusive_scan(rung, none_in, none_out, 3, parprim::minimum{}))
        << scan_rung_name(rung);
    EXPECT_NO_THROW(
        parprim::segmented_inclusive_scan(rung, none_in, none_flags, none_out, parprim::plus{}))
        << scan_rung_name(rung);
    EXPECT_NO_THROW(parprim::segmented_exclusive_scan(rung, none_in, none_flags, none_out, 3,
                                                      parprim::maximum{}))
        << scan_rung_name(rung);
  });
  // Non-null, empty: still nothing written (the guards of an empty guarded buffer).
  guarded_device_buffer<int> d(0);
  d.poison(0);
  guarded_device_buffer<std::uint8_t> f(0);
  f.poison(0);
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    parprim::inclusive_scan(rung.on(test_stream()), d.body(), d.body(), parprim::plus{});
    parprim::segmented_exclusive_scan(rung.on(test_stream()), d.body(), f.body(), d.body(), 1,
                                      parprim::plus{});
  });
  const std::vector<int> all = d.read_all();
  EXPECT_TRUE(pt::unchanged(std::span<const int>(all), std::span<const int>()));
}

// --- bad inputs ------------------------------------------------------------------------------

/// Expects parprim::invalid_argument from `call`, and a message naming the function.
template <class Call>
void expect_invalid(Call call, const std::string& fn, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << what << ": no exception";
  } catch (const parprim::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fn), std::string::npos)
        << what << ": the message does not name " << fn << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not parprim::invalid_argument but: " << e.what();
  }
}

TEST(CudaScanBadInput, RaisesBeforeAnyWrite) {
  PARPRIM_SKIP_WITHOUT_GPU();
  constexpr std::size_t n = 1000;
  std::vector<int> host_in(n);
  for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<int>(i % 13) - 6;
  std::vector<std::uint8_t> host_flags(n, 0);
  for (std::size_t i = 0; i < n; i += 37) host_flags[i] = 1;
  guarded_device_buffer<int> in(n), out(2 * n), shared(2 * n);
  guarded_device_buffer<std::uint8_t> flags(n);
  in.fill(host_in);
  flags.fill(host_flags);
  std::vector<int> shared_host(2 * n);
  for (std::size_t i = 0; i < 2 * n; ++i) shared_host[i] = static_cast<int>(i);

  for_each_scan_rung([&](const auto& rung, std::size_t) {
    const auto p = rung.on(test_stream());
    SCOPED_TRACE(scan_rung_name(rung));
    const auto d_in = in.body();
    const auto d_flags = flags.body();
    // Each bad call must leave the poisoned output (and its guards) as they were.
    const auto untouched = [&](std::size_t m) {
      const std::vector<int> all = out.read_all();
      const std::vector<int> body(m, pt::byte_pattern<int>(pt::poison_byte));
      return pt::unchanged(std::span<const int>(all), std::span<const int>(body));
    };
    for (const variant v :
         {variant{false, false, density::none}, variant{false, true, density::none},
          variant{true, false, density::third}, variant{true, true, density::third}}) {
      SCOPED_TRACE(describe(v, 7));
      const std::string fn = std::string(v.segmented ? "segmented_" : "") +
                             (v.exclusive ? "exclusive_scan" : "inclusive_scan");
      // Output one element short, and one too long.
      for (std::size_t m : {n - 1, n + 1}) {
        out.poison(m);
        expect_invalid([&] { call_public(p, v, d_in, d_flags, out.body(), 7, parprim::plus{}); },
                       fn, "output of " + std::to_string(m) + " elements");
        EXPECT_TRUE(untouched(m));
      }
      out.poison(n);
      if (v.segmented) {
        expect_invalid(
            [&] { call_public(p, v, d_in, d_flags.first(n - 1), out.body(), 7, parprim::plus{}); },
            fn, "head flags one element short");
        expect_invalid(
            [&] {
              call_public(p, v, d_in, parprim::device_span<const std::uint8_t>(nullptr, n),
                          out.body(), 7, parprim::plus{});
            },
            fn, "null head flags");
        // Flags inside the output.
        const parprim::device_span<const std::uint8_t> inside(
            reinterpret_cast<const std::uint8_t*>(out.body().data()) + 8, n);
        expect_invalid([&] { call_public(p, v, d_in, inside, out.body(), 7, parprim::plus{}); }, fn,
                       "head flags overlapping the output");
        // Host flags.
        expect_invalid(
            [&] {
              call_public(p, v, d_in,
                          parprim::device_span<const std::uint8_t>(host_flags.data(), n),
                          out.body(), 7, parprim::plus{});
            },
            fn, "head flags in host memory");
      }
      expect_invalid(
          [&] {
            call_public(p, v, parprim::device_span<const int>(nullptr, n), d_flags, out.body(), 7,
                        parprim::plus{});
          },
          fn, "null input");
      expect_invalid(
          [&] {
            call_public(p, v, d_in, d_flags, parprim::device_span<int>(nullptr, n), 7,
                        parprim::plus{});
          },
          fn, "null output");
      expect_invalid(
          [&] {
            call_public(p, v, parprim::device_span<const int>(host_in.data(), n), d_flags,
                        out.body(), 7, parprim::plus{});
          },
          fn, "input in host memory");
      EXPECT_TRUE(untouched(n));
      // Output in host memory: the host vector stays as it was.
      std::vector<int> host_out(n, -12345);
      expect_invalid(
          [&] {
            call_public(p, v, d_in, d_flags, parprim::device_span<int>(host_out.data(), n), 7,
                        parprim::plus{});
          },
          fn, "output in host memory");
      EXPECT_TRUE(std::all_of(host_out.begin(), host_out.end(), [](int x) { return x == -12345; }))
          << "the host output was written";
      // Partial overlap of input and output, either way round: the buffer stays as it was.
      shared.fill(shared_host);
      const auto s = shared.body();
      for (const auto& [a, b] : {std::pair<std::size_t, std::size_t>{0, 1},
                                 {1, 0},
                                 {0, n / 2},
                                 {n / 2, 0},
                                 {0, n - 1}}) {
        expect_invalid(
            [&] {
              call_public(p, v, parprim::device_span<const int>(s.subspan(a, n)), d_flags,
                          s.subspan(b, n), 7, parprim::plus{});
            },
            fn, "input at " + std::to_string(a) + " and output at " + std::to_string(b));
      }
      EXPECT_TRUE(device_unchanged(shared, shared_host)) << "a partially overlapping call wrote";
    }
  });

  // The detail entry refuses an exclusive scan without init (the public API always has one).
  out.poison(n);
  expect_invalid(
      [&] {
        parprim::detail::cuda::scan<parprim::cuda_scan_rung::decoupled_look_back, int, int,
                                    parprim::plus>(
            parprim::detail::cuda::launch_options{test_stream(), -1}, in.body().data(),
            out.body().data(), n, parprim::detail::cuda::scan_kind::exclusive, nullptr, nullptr,
            parprim::plus{});
      },
      "", "detail::cuda::scan, exclusive without init");
  {
    const std::vector<int> all = out.read_all();
    const std::vector<int> body(n, pt::byte_pattern<int>(pt::poison_byte));
    EXPECT_TRUE(pt::unchanged(std::span<const int>(all), std::span<const int>(body)));
  }

  // A device the machine does not have: parprim::cuda_error naming the CUDA error.
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  try {
    parprim::inclusive_scan(parprim::cuda.device(count), in.body(), out.body());
    ADD_FAILURE() << "no exception for device " << count;
  } catch (const parprim::cuda_error& e) {
    EXPECT_NE(e.code(), 0);
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidDevice"), std::string::npos) << e.what();
  }

  // Nothing is left behind: every rung works afterwards.
  std::vector<int> want(n);
  parprim::inclusive_scan(parprim::seq, host_in, want, parprim::plus{});
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    out.poison(n);
    parprim::inclusive_scan(rung.on(test_stream()), in.body(), out.body(), parprim::plus{});
    EXPECT_EQ(out.read_body(), want) << scan_rung_name(rung);
  });
}

// --- streams, threads, memory kinds ------------------------------------------------------------

// Several host threads on two streams and the default stream at once (the scratch is cached
// per device and stream): every result is right.
TEST(CudaScanStreams, ThreadsOnSeveralStreams) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = std::min<std::size_t>(1'000'003, scan_max_n());
  std::vector<std::int64_t> host(n);
  std::vector<std::uint8_t> host_flags(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    host[i] = static_cast<std::int64_t>(i % 1000) - 300;
    host_flags[i] = (i % 777) == 5 ? 1 : 0;
  }
  std::vector<std::int64_t> want_plain(n), want_segmented(n);
  parprim::inclusive_scan(parprim::seq, host, want_plain);
  parprim::segmented_exclusive_scan(parprim::seq, host, host_flags, want_segmented,
                                    std::int64_t(-4));
  const parprim::device_buffer<std::int64_t> in(host);
  const parprim::device_buffer<std::uint8_t> flags(host_flags);
  constexpr int threads = 6;
  std::vector<parprim::device_buffer<std::int64_t>> outs;
  for (int t = 0; t < threads; ++t) outs.emplace_back(n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // uploads done before other streams read
  cudaStream_t streams[2] = {};
  ASSERT_EQ(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&streams[1]), cudaSuccess);
  std::vector<int> errors(threads, 0);
  std::vector<std::string> messages(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        const cudaStream_t s = t < 4 ? streams[t % 2] : nullptr;  // two threads per stream
        const auto out = outs[static_cast<std::size_t>(t)].span();
        for (int k = 0; k < 8; ++k) {
          const auto p = parprim::cuda.on(s).device(0);
          std::vector<std::int64_t> got(n);
          if (k % 2 == 0) {
            parprim::inclusive_scan(p.scan_kernel(parprim::cuda_scan::k2_brent_kung), in.span(),
                                    out);
            outs[static_cast<std::size_t>(t)].copy_to_host(got);
            if (got != want_plain) ++errors[static_cast<std::size_t>(t)];
          } else {
            parprim::segmented_exclusive_scan(p, in.span(), flags.span(), out, std::int64_t(-4));
            outs[static_cast<std::size_t>(t)].copy_to_host(got);
            if (got != want_segmented) ++errors[static_cast<std::size_t>(t)];
          }
        }
      } catch (const std::exception& e) {
        messages[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(errors[static_cast<std::size_t>(t)], 0) << "thread " << t;
    EXPECT_EQ(messages[static_cast<std::size_t>(t)], "") << "thread " << t;
  }
  for (cudaStream_t s : streams) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// device_span may view managed memory and pinned host memory (the GPU reads and writes both).
TEST(CudaScanMemory, ManagedAndPinnedMemory) {
  PARPRIM_SKIP_WITHOUT_GPU();
  constexpr std::size_t n = 10007;
  int* managed = nullptr;
  int* pinned = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), n * sizeof(int)), cudaSuccess);
  std::vector<int> host(n), want(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<int>(i % 11) - 5;
  parprim::inclusive_scan(parprim::seq, host, want);
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    std::copy(host.begin(), host.end(), managed);
    std::fill(pinned, pinned + n, -1);
    parprim::inclusive_scan(rung, parprim::device_span<const int>(managed, n),
                            parprim::device_span<int>(pinned, n));
    EXPECT_TRUE(std::equal(want.begin(), want.end(), pinned))
        << scan_rung_name(rung) << ": managed -> pinned";
    parprim::inclusive_scan(rung, parprim::device_span<const int>(managed, n),
                            parprim::device_span<int>(managed, n));
    EXPECT_TRUE(std::equal(want.begin(), want.end(), managed))
        << scan_rung_name(rung) << ": managed, in place";
  });
  EXPECT_EQ(cudaFree(managed), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

/// The scans by key from plain C++ (the library's precompiled instantiations): the default rung
/// reads the keys in its tiles, rung 5 scans the runs' head flags; keys of every precompiled
/// index type, values of `T` with `Op`, sizes around rung 6's tile of 7168 elements, random runs
/// (keys drawn from three values, so runs often repeat a key two runs back), out of place and in
/// place, and from the second element (nothing 16-byte aligned); reduce_by_key over the same
/// keys and values, from the first and the second element; against parprim::seq (integers and
/// min/max: exactly).
template <class T, class Op, class I>
void scans_by_key_from_plain_cpp() {
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (std::size_t n :
       {std::size_t{1}, std::size_t{2}, std::size_t{7167}, std::size_t{7169}, std::size_t{50021}}) {
    if (n > scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n) + ", keys of " + std::to_string(sizeof(I)) +
                 " bytes, values of " + std::to_string(sizeof(T)));
    pt::rng_t r = pt::make_rng(seed, n);
    std::vector<T> in(n);
    for (auto& x : in) x = static_cast<T>(pt::uniform_int<int>(r, -1000, 1000));
    const std::vector<std::uint8_t> flags = pt::make_flags(r, n, pt::density::third);
    const std::vector<I> keys = pt::make_keys<I>(r, flags, 3);
    const parprim::device_buffer<T> d_in(in);
    const parprim::device_buffer<I> d_keys(keys);
    parprim::device_buffer<T> out(n);
    std::vector<T> want(n);
    const T init = static_cast<T>(7);
    const auto both = [&](const auto& policy, const char* rung) {
      SCOPED_TRACE(rung);
      parprim::inclusive_scan_by_key(parprim::seq, keys, in, want, Op{});
      parprim::inclusive_scan_by_key(policy, d_keys.span(), d_in.span(), out.span(), Op{});
      EXPECT_EQ(out.to_host(), want) << "inclusive_scan_by_key";
      parprim::exclusive_scan_by_key(parprim::seq, keys, in, want, init, Op{});
      parprim::exclusive_scan_by_key(policy, d_keys.span(), d_in.span(), out.span(), init, Op{});
      EXPECT_EQ(out.to_host(), want) << "exclusive_scan_by_key";
      parprim::device_buffer<T> inout(in);
      parprim::inclusive_scan_by_key(parprim::seq, keys, in, want, Op{});
      parprim::inclusive_scan_by_key(policy, d_keys.span(), inout.span(), inout.span(), Op{});
      EXPECT_EQ(inout.to_host(), want) << "inclusive_scan_by_key in place";
      if (n < 2) return;
      // keys and values from their second element (not 16-byte aligned): the threads' own reads
      const std::vector<I> keys1(keys.begin() + 1, keys.end());
      const std::vector<T> in1(in.begin() + 1, in.end());
      std::vector<T> want1(n - 1);
      parprim::inclusive_scan_by_key(parprim::seq, keys1, in1, want1, Op{});
      parprim::inclusive_scan_by_key(policy, d_keys.span().subspan(1), d_in.span().subspan(1),
                                     out.span().subspan(1), Op{});
      const std::vector<T> got = out.to_host();
      EXPECT_TRUE(std::equal(want1.begin(), want1.end(), got.begin() + 1))
          << "inclusive_scan_by_key from the second element";
    };
    // reduce_by_key (the staged tile for these values), from element `from` of keys and values
    // into outputs from the same element (from 1: nothing 16-byte aligned)
    const auto reduce = [&](std::size_t from) {
      SCOPED_TRACE("reduce_by_key from element " + std::to_string(from));
      const std::vector<I> keys_f(keys.begin() + from, keys.end());
      const std::vector<T> in_f(in.begin() + from, in.end());
      std::vector<I> want_keys(n - from);
      std::vector<T> want_sums(n - from);
      const std::size_t k =
          parprim::reduce_by_key(parprim::seq, keys_f, in_f, want_keys, want_sums, Op{});
      parprim::device_buffer<I> keys_out(n);
      ASSERT_EQ(parprim::reduce_by_key(parprim::cuda, d_keys.span().subspan(from),
                                       d_in.span().subspan(from), keys_out.span().subspan(from),
                                       out.span().subspan(from), Op{}),
                k);
      const std::vector<T> got = out.to_host();
      const std::vector<I> got_keys = keys_out.to_host();
      EXPECT_TRUE(std::equal(want_sums.begin(), want_sums.begin() + k, got.begin() + from))
          << "reduce_by_key's results";
      EXPECT_TRUE(std::equal(want_keys.begin(), want_keys.begin() + k, got_keys.begin() + from))
          << "reduce_by_key's keys";
    };
    both(parprim::cuda, "default rung");
    both(parprim::cuda.scan_kernel(parprim::cuda_scan::k5_decoupled_look_back), "rung 5");
    reduce(0);
    if (n >= 2) reduce(1);
  }
}

TEST(CudaScanByKey, FromPlainCppEveryKeyType) {
  PARPRIM_SKIP_WITHOUT_GPU();
  scans_by_key_from_plain_cpp<std::int32_t, parprim::plus, std::int32_t>();
  scans_by_key_from_plain_cpp<std::int32_t, parprim::plus, std::int64_t>();
  scans_by_key_from_plain_cpp<std::uint64_t, parprim::maximum, std::uint64_t>();
  scans_by_key_from_plain_cpp<double, parprim::minimum, std::int32_t>();
  scans_by_key_from_plain_cpp<float, parprim::plus, std::int64_t>();  // small integers: exact
}

/// exact_plus per segment from plain C++ (the library's precompiled exact passes): float and
/// double, head flags, keys and offsets of every precompiled index type, bit for bit seq's.
template <class F, class I>
void exact_per_segment_from_plain_cpp() {
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  pt::rng_t r = pt::make_rng(seed, 0);
  const std::size_t n = std::min<std::size_t>(50021, scan_max_n());
  std::vector<F> in(n);
  for (auto& x : in)
    x = static_cast<F>(pt::uniform_real(r, -1.0, 1.0) * std::exp2(pt::uniform_int(r, -60, 60)));
  const std::vector<std::uint8_t> flags = pt::make_flags(r, n, pt::density::third);
  const std::vector<I> keys = pt::make_keys<I>(r, flags);
  const std::vector<I> begins = pt::with_empty_segments<I>(r, pt::segment_begins(flags), 2);
  const parprim::device_buffer<F> d_in(in);
  const parprim::device_buffer<std::uint8_t> d_flags(flags);
  const parprim::device_buffer<I> d_keys(keys), d_begins(begins);
  parprim::device_buffer<F> out(n);
  parprim::device_buffer<I> keys_out(n);
  std::vector<F> want(n);
  const auto same = [](const std::vector<F>& a, const std::vector<F>& b, std::size_t count) {
    return std::memcmp(a.data(), b.data(), count * sizeof(F)) == 0;
  };
  const F init = static_cast<F>(0.5);
  parprim::segmented_inclusive_scan(parprim::seq, in, flags, want, parprim::exact_plus{});
  parprim::segmented_inclusive_scan(parprim::cuda, d_in.span(), d_flags.span(), out.span(),
                                    parprim::exact_plus{});
  EXPECT_TRUE(same(out.to_host(), want, n)) << "segmented_inclusive_scan";
  parprim::inclusive_scan_by_key(parprim::cuda, d_keys.span(), d_in.span(), out.span(),
                                 parprim::exact_plus{});
  EXPECT_TRUE(same(out.to_host(), want, n)) << "inclusive_scan_by_key";
  parprim::segmented_exclusive_scan(parprim::seq, in, flags, want, init, parprim::exact_plus{});
  parprim::segmented_exclusive_scan(parprim::cuda, d_in.span(), d_flags.span(), out.span(), init,
                                    parprim::exact_plus{});
  EXPECT_TRUE(same(out.to_host(), want, n)) << "segmented_exclusive_scan";
  parprim::exclusive_scan_by_key(parprim::cuda, d_keys.span(), d_in.span(), out.span(), init,
                                 parprim::exact_plus{});
  EXPECT_TRUE(same(out.to_host(), want, n)) << "exclusive_scan_by_key";
  const std::size_t k =
      parprim::segmented_reduce(parprim::seq, in, flags, want, init, parprim::exact_plus{});
  EXPECT_EQ(parprim::segmented_reduce(parprim::cuda, d_in.span(), d_flags.span(), out.span(), init,
                                      parprim::exact_plus{}),
            k);
  EXPECT_TRUE(same(out.to_host(), want, k)) << "segmented_reduce (flags)";
  std::vector<I> host_keys_out(n);
  EXPECT_EQ(
      parprim::reduce_by_key(parprim::seq, keys, in, host_keys_out, want, parprim::exact_plus{}),
      k);
  EXPECT_EQ(parprim::reduce_by_key(parprim::cuda, d_keys.span(), d_in.span(), keys_out.span(),
                                   out.span(), parprim::exact_plus{}),
            k);
  EXPECT_TRUE(same(out.to_host(), want, k)) << "reduce_by_key";
  std::vector<I> got_keys = keys_out.to_host();
  got_keys.resize(k);
  host_keys_out.resize(k);
  EXPECT_EQ(got_keys, host_keys_out) << "reduce_by_key's keys";
  const std::size_t rows = begins.size() - 1;
  parprim::segmented_reduce(parprim::seq, in, parprim::offsets(begins), std::span(want).first(rows),
                            init, parprim::exact_plus{});
  parprim::device_buffer<F> per_row(rows);
  parprim::segmented_reduce(parprim::cuda, d_in.span(), parprim::offsets(d_begins.span()),
                            per_row.span(), init, parprim::exact_plus{});
  EXPECT_TRUE(same(per_row.to_host(), want, rows)) << "segmented_reduce (offsets)";
}

TEST(CudaScanExactPerSegment, FromPlainCpp) {
  PARPRIM_SKIP_WITHOUT_GPU();
  exact_per_segment_from_plain_cpp<float, std::int32_t>();
  exact_per_segment_from_plain_cpp<double, std::int64_t>();
  exact_per_segment_from_plain_cpp<float, std::uint64_t>();
}

}  // namespace
}  // namespace parprim_cuda_test::scans
