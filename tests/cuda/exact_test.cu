/// \file
/// \brief parprim::exact_plus on the GPU (tests CudaExact*): float and double reductions and
/// inclusive / exclusive scans (every output) must
/// equal, bit for bit, the exact sum of their operands rounded once (tests/support/
/// exact_reference.hpp, an independent big-integer reference) and so parprim::seq's result, on
/// the inputs of tests/support/exact_values.hpp (wide exponents, cancellation, subnormals,
/// signed zeros, NaN and infinities, overflow, halfway cases) at sizes around the warp tile (1024
/// floats, 512 doubles), the block's tiles and the grid; on every reduce rung of the policy;
/// from a misaligned start; into device memory (reduce_into, nosync on a stream); through
/// transform_reduce with one and two inputs. Per segment (segmented scans, segmented_reduce
/// with head flags and with offsets, reduce_by_key, the scans by key): every result the same,
/// for every density of heads of tests/support/harness.hpp.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"
#include "support/exact_reference.hpp"
#include "support/exact_values.hpp"

namespace parprim_cuda_test {
namespace {

namespace pt = ::parprim_test;

/// \brief Around the warp tiles (512, 1024), the block's (8 tiles), primes, 2^k +- 1, more
/// blocks than the grid holds at once; capped by PARPRIM_CUDA_TEST_MAX_N.
std::vector<std::size_t> exact_sizes() {
  std::vector<std::size_t> v;
  for (std::size_t n : {0,    1,    2,    3,    31,   32,   33,    511,   512,    513,     1023,
                        1024, 1025, 4095, 4097, 8191, 8193, 10007, 65537, 262145, 1000003, 4194305})
    if (n <= scans::scan_max_n()) v.push_back(n);
  return v;
}

template <class F>
std::string bits_of(F x) {
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g (0x%llx)", static_cast<double>(x),
                static_cast<unsigned long long>(__builtin_bit_cast(U, x)));
  return buf;
}

template <class F>
void reduce_matches_reference() {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  parprim::device_buffer<F> d;
  for (const pt::exact_mix mix : pt::all_exact_mixes) {
    for (const std::size_t n : exact_sizes()) {
      SCOPED_TRACE(std::string(pt::exact_mix_name(mix)) + ", n = " + std::to_string(n));
      std::mt19937_64 rng(seed ^ (n * 0x9e3779b97f4a7c15ull) ^ static_cast<std::uint64_t>(mix));
      const std::vector<F> in = pt::exact_input<F>(mix, rng, n);
      const F init = n % 3 == 0 ? -F(0) : static_cast<F>(0.25);
      d = parprim::device_buffer<F>(in);
      const F want = pt::exact_expected<F>::reduce(in, init);
      const F got =
          parprim::reduce(parprim::cuda, std::as_const(d).span(), init, parprim::exact_plus{});
      EXPECT_TRUE(bitwise_equal(got, want)) << "got " << bits_of(got) << ", want " << bits_of(want);
      const F host = parprim::reduce(parprim::seq, in, init, parprim::exact_plus{});
      EXPECT_TRUE(bitwise_equal(got, host)) << "seq gives " << bits_of(host);
      if (n > 1) {  // from a start that is not 16-byte aligned
        const parprim::device_span<const F> tail(std::as_const(d).span().data() + 1, n - 1);
        const std::vector<F> host_tail(in.begin() + 1, in.end());
        const F t = parprim::reduce(parprim::cuda, tail, init, parprim::exact_plus{});
        EXPECT_TRUE(bitwise_equal(t, pt::exact_expected<F>::reduce(host_tail, init)))
            << "misaligned start: got " << bits_of(t);
      }
    }
  }
}

TEST(CudaExact, FloatReduceIsTheRoundedExactSum) {
  reduce_matches_reference<float>();
}
TEST(CudaExact, DoubleReduceIsTheRoundedExactSum) {
  reduce_matches_reference<double>();
}

/// Every reduce rung of the policy gives the same bits (the exact sum ignores the rung).
TEST(CudaExact, EveryRungGivesTheSameBits) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  const std::vector<float> in = pt::exact_input<float>(pt::exact_mix::cancellation, rng, 70001);
  const parprim::device_buffer<float> d(in);
  const float want = pt::exact_expected<float>::reduce(in, 1.0f);
  for_each_policy(all_rungs, [&](const auto& policy) {
    const float got = parprim::reduce(policy, std::as_const(d).span(), 1.0f, parprim::exact_plus{});
    EXPECT_TRUE(bitwise_equal(got, want)) << rung_name(policy) << ": got " << bits_of(got);
  });
}

template <class F>
void reduce_into_matches_reference() {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  const cudaStream_t stream = scans::test_stream();
  parprim::device_buffer<F> result(1);
  for (const pt::exact_mix mix : {pt::exact_mix::uniform, pt::exact_mix::wide,
                                  pt::exact_mix::special, pt::exact_mix::overflow}) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{1025}, std::size_t{65537}}) {
      SCOPED_TRACE(std::string(pt::exact_mix_name(mix)) + ", n = " + std::to_string(n));
      std::mt19937_64 rng(seed + n);
      const std::vector<F> in = pt::exact_input<F>(mix, rng, n);
      const parprim::device_buffer<F> d(in);
      const F init = static_cast<F>(-3);
      parprim::reduce_into(parprim::cuda.on(stream).nosync(), std::as_const(d).span(),
                           result.span(), init, parprim::exact_plus{});
      scans::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const F got = result.to_host()[0];
      const F want = pt::exact_expected<F>::reduce(in, init);
      EXPECT_TRUE(bitwise_equal(got, want)) << "got " << bits_of(got) << ", want " << bits_of(want);
    }
  }
  // An empty range gives init rounded: a NaN init becomes the default NaN, as on the host.
  parprim::device_buffer<F> empty(0);
  const F nan_init = std::numeric_limits<F>::signaling_NaN();
  parprim::reduce_into(parprim::cuda, std::as_const(empty).span(), result.span(), nan_init,
                       parprim::exact_plus{});
  const F host = parprim::reduce(parprim::seq, std::vector<F>{}, nan_init, parprim::exact_plus{});
  EXPECT_TRUE(bitwise_equal(result.to_host()[0], host));
}

TEST(CudaExact, FloatReduceIntoDeviceMemory) {
  reduce_into_matches_reference<float>();
}
TEST(CudaExact, DoubleReduceIntoDeviceMemory) {
  reduce_into_matches_reference<double>();
}

struct triple {
  __host__ __device__ float operator()(float x) const { return 3.0f * x; }
};
struct product {
  __host__ __device__ double operator()(float a, float b) const {
    return static_cast<double>(a) * static_cast<double>(b);  // exact: 48 bits
  }
};

/// transform_reduce (one and two inputs, and into device memory) gives parprim::seq's bits.
TEST(CudaExact, TransformReduceGivesTheHostBits) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  parprim::device_buffer<double> result(1);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{513}, std::size_t{100003},
                              std::size_t{1} << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937_64 rng(seed + n);
    const std::vector<float> a = pt::exact_input<float>(pt::exact_mix::mixed_scale, rng, n);
    const std::vector<float> b = pt::exact_input<float>(pt::exact_mix::uniform, rng, n);
    const parprim::device_buffer<float> da(a), db(b);
    const float t =
        parprim::transform_reduce(parprim::cuda, da.span(), 0.5f, parprim::exact_plus{}, triple{});
    const float th =
        parprim::transform_reduce(parprim::seq, a, 0.5f, parprim::exact_plus{}, triple{});
    EXPECT_TRUE(bitwise_equal(t, th)) << "got " << bits_of(t) << ", seq " << bits_of(th);
    const double dot = parprim::transform_reduce(parprim::cuda, da.span(), db.span(), -0.0,
                                                 parprim::exact_plus{}, product{});
    const double doth =
        parprim::transform_reduce(parprim::seq, a, b, -0.0, parprim::exact_plus{}, product{});
    EXPECT_TRUE(bitwise_equal(dot, doth)) << "got " << bits_of(dot) << ", seq " << bits_of(doth);
    parprim::transform_reduce_into(parprim::cuda, da.span(), db.span(), result.span(), -0.0,
                                   parprim::exact_plus{}, product{});
    EXPECT_TRUE(bitwise_equal(result.to_host()[0], doth)) << "transform_reduce_into";
  }
}

/// The first output that differs from `want` bitwise, as a message ("" if none).
template <class F>
std::string first_difference(const std::vector<F>& got, const std::vector<F>& want) {
  if (got.size() != want.size()) return "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!bitwise_equal(got[i], want[i]))
      return "out[" + std::to_string(i) + "] = " + bits_of(got[i]) + ", want " + bits_of(want[i]);
  return "";
}

/// Inclusive and exclusive scans: every output the exact prefix rounded once (the independent
/// reference) and parprim::seq's bits, on every input family and size, on every scan rung of the
/// policy (the exact scan ignores the rung), in place, and from a misaligned start.
template <class F>
void scans_match_reference() {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  parprim::device_buffer<F> d, o;
  for (const pt::exact_mix mix : pt::all_exact_mixes) {
    for (const std::size_t n : exact_sizes()) {
      // (the largest size on the families the tiles take fast; element by element it is slow)
      if (n > 1000003 && mix != pt::exact_mix::uniform && mix != pt::exact_mix::integers) continue;
      SCOPED_TRACE(std::string(pt::exact_mix_name(mix)) + ", n = " + std::to_string(n));
      std::mt19937_64 rng(seed ^ (n * 0x9e3779b97f4a7c15ull) ^ static_cast<std::uint64_t>(mix));
      const std::vector<F> in = pt::exact_input<F>(mix, rng, n);
      const F init = n % 3 == 0 ? -F(0) : static_cast<F>(0.25);
      d = parprim::device_buffer<F>(in);
      o = parprim::device_buffer<F>(n);
      const std::vector<F> want_inc = pt::exact_expected<F>::scan(in, nullptr, false, F(0));
      const std::vector<F> want_exc = pt::exact_expected<F>::scan(in, nullptr, true, init);
      parprim::inclusive_scan(parprim::cuda, std::as_const(d).span(), o.span(),
                              parprim::exact_plus{});
      const std::vector<F> inc = o.to_host();
      EXPECT_EQ(first_difference(inc, want_inc), "") << "inclusive";
      std::vector<F> host(n);
      parprim::inclusive_scan(parprim::seq, in, host, parprim::exact_plus{});
      EXPECT_EQ(first_difference(inc, host), "") << "inclusive vs seq";
      parprim::exclusive_scan(parprim::cuda, std::as_const(d).span(), o.span(), init,
                              parprim::exact_plus{});
      EXPECT_EQ(first_difference(o.to_host(), want_exc), "") << "exclusive";
      if (n > 1) {  // from a start that is not 16-byte aligned, into a misaligned output
        const parprim::device_span<const F> tail(std::as_const(d).span().data() + 1, n - 1);
        const parprim::device_span<F> out_tail(o.span().data() + 1, n - 1);
        const std::vector<F> host_tail(in.begin() + 1, in.end());
        parprim::inclusive_scan(parprim::cuda, tail, out_tail, parprim::exact_plus{});
        const std::vector<F> got = o.to_host();
        EXPECT_EQ(first_difference(std::vector<F>(got.begin() + 1, got.end()),
                                   pt::exact_expected<F>::scan(host_tail, nullptr, false, F(0))),
                  "")
            << "misaligned";
      }
      // in place
      parprim::exclusive_scan(parprim::cuda, std::as_const(d).span(), d.span(), init,
                              parprim::exact_plus{});
      EXPECT_EQ(first_difference(d.to_host(), want_exc), "") << "exclusive in place";
    }
  }
}

TEST(CudaExact, FloatScansAreTheRoundedExactPrefixes) {
  scans_match_reference<float>();
}
TEST(CudaExact, DoubleScansAreTheRoundedExactPrefixes) {
  scans_match_reference<double>();
}

/// `body(in)` for inputs of n = 2^24 + 5 elements in each of the real-valued, mixed-scale,
/// spread and cancelling mixes (about 8 float or 16 double warp tiles per warp on a GPU of 132
/// multiprocessors, where the sizes above give at most 4); skipped above
/// PARPRIM_CUDA_TEST_MAX_N.
template <class F, class Body>
void for_each_long_run(Body body) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 24) + 5;
  if (n > scans::scan_max_n())
    GTEST_SKIP() << "n = " << n << " is above PARPRIM_CUDA_TEST_MAX_N (" << scans::scan_max_n()
                 << "); the unrestricted CUDA test run covers it";
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  for (const pt::exact_mix mix : {pt::exact_mix::uniform, pt::exact_mix::mixed_scale,
                                  pt::exact_mix::spread, pt::exact_mix::cancellation}) {
    SCOPED_TRACE(pt::exact_mix_name(mix));
    std::mt19937_64 rng(seed ^ static_cast<std::uint64_t>(mix));
    body(pt::exact_input<F>(mix, rng, n));
  }
}

/// The CUDA inclusive scan of `in` and its exclusive scan from `init`, exact_plus, each equal
/// to parprim::seq's bit for bit.
template <class F>
void scans_match_seq(const std::vector<F>& in, F init) {
  const std::size_t n = in.size();
  const parprim::device_buffer<F> d(in);
  parprim::device_buffer<F> o(n);
  std::vector<F> host(n);
  parprim::inclusive_scan(parprim::seq, in, host, parprim::exact_plus{});
  parprim::inclusive_scan(parprim::cuda, d.span(), o.span(), parprim::exact_plus{});
  EXPECT_EQ(first_difference(o.to_host(), host), "") << "inclusive vs seq";
  parprim::exclusive_scan(parprim::seq, in, host, init, parprim::exact_plus{});
  parprim::exclusive_scan(parprim::cuda, d.span(), o.span(), init, parprim::exact_plus{});
  EXPECT_EQ(first_difference(o.to_host(), host), "") << "exclusive vs seq";
}

/// Long runs of tiles per warp: the scan carries each warp's prefix from tile to tile (exactly
/// after a tile in an exact mode; after a checked tile approximately with an error bound, for
/// float results in doubles, for double results as a double-double, read again when the bound
/// grows or a proof fails), so every output must still be parprim::seq's, bit for bit, on
/// real-valued inputs whose prefixes take the checked mode (exponents over -20..20 for double
/// results), and on mixed scales and cancelling triples; float (about 8 tiles a warp) and
/// double (about 16).
template <class F>
void long_scans_match_seq() {
  for_each_long_run<F>([](const std::vector<F>& in) { scans_match_seq(in, static_cast<F>(0.5)); });
}

TEST(CudaExact, LongRunsOfTilesPerWarpMatchSeq) {
  long_scans_match_seq<float>();
}
TEST(CudaExact, DoubleLongRunsOfTilesPerWarpMatchSeq) {
  long_scans_match_seq<double>();
}

/// One tile the fast path cannot take (its exponents span more than its slices cover: +-big
/// side by side; or an infinity) in the middle of a call, late, or as its last element, on top
/// of uniform values: its warp goes element by element after fast tiles, and the warps after it
/// start from sums that hold it; every output must still be parprim::seq's, inclusive and
/// exclusive.
template <class F>
void one_wide_tile_scans_match_seq() {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<F> uniform(F(-1), F(1));
  const std::size_t n = std::min<std::size_t>(1000003, scans::scan_max_n());
  if (n < 4) GTEST_SKIP() << "PARPRIM_CUDA_TEST_MAX_N is below 4";
  const F big = sizeof(F) == 4 ? F(1e38) : F(1e300);
  for (const std::size_t at : {n / 2, n - n / 8, n - 1}) {
    for (const bool infinity : {false, true}) {
      SCOPED_TRACE("at " + std::to_string(at) + (infinity ? ", an infinity" : ", +-big"));
      std::vector<F> in(n);
      for (F& x : in) x = uniform(rng);
      if (infinity) {
        in[at] = std::numeric_limits<F>::infinity();
      } else {
        in[at - 1] = big;  // (the tile's exponents span more than its slices cover)
        in[at] = -big;
      }
      scans_match_seq(in, static_cast<F>(0.75));
    }
  }
}

TEST(CudaExact, FloatScansWithOneWideTileMatchSeq) {
  one_wide_tile_scans_match_seq<float>();
}
TEST(CudaExact, DoubleScansWithOneWideTileMatchSeq) {
  one_wide_tile_scans_match_seq<double>();
}

/// Long runs of tiles per warp in the exact sum: each warp adds many tiles' slices to its
/// digits before their carries are resolved, from 16-byte loads, or from single loads where the
/// start is misaligned; both must be the host's bits.
template <class F>
void long_reduces_match_seq() {
  for_each_long_run<F>([](const std::vector<F>& in) {
    const parprim::device_buffer<F> d(in);
    const F init = static_cast<F>(0.5);
    const F got = parprim::reduce(parprim::cuda, d.span(), init, parprim::exact_plus{});
    const F host = parprim::reduce(parprim::seq, in, init, parprim::exact_plus{});
    EXPECT_TRUE(bitwise_equal(got, host)) << "got " << bits_of(got) << ", seq " << bits_of(host);
    const parprim::device_span<const F> tail(d.span().data() + 1, in.size() - 1);
    const std::vector<F> host_tail(in.begin() + 1, in.end());
    const F t = parprim::reduce(parprim::cuda, tail, init, parprim::exact_plus{});
    const F th = parprim::reduce(parprim::seq, host_tail, init, parprim::exact_plus{});
    EXPECT_TRUE(bitwise_equal(t, th))
        << "misaligned start: got " << bits_of(t) << ", seq " << bits_of(th);
  });
}

TEST(CudaExact, FloatLongReducesPerWarpMatchSeq) {
  long_reduces_match_seq<float>();
}
TEST(CudaExact, DoubleLongReducesPerWarpMatchSeq) {
  long_reduces_match_seq<double>();
}

/// Every scan rung, the nosync form on a stream, and a transform scan give the same bits.
TEST(CudaExact, ScansOnEveryRungStreamAndTransform) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 300007;
  const std::vector<float> in = pt::exact_input<float>(pt::exact_mix::cancellation, rng, n);
  const parprim::device_buffer<float> d(in);
  parprim::device_buffer<float> o(n);
  const std::vector<float> want = pt::exact_expected<float>::scan(in, nullptr, false, 0.0f);
  for_each_policy(scans::all_scan_rungs, [&](const auto& policy) {
    parprim::inclusive_scan(policy, d.span(), o.span(), parprim::exact_plus{});
    EXPECT_EQ(first_difference(o.to_host(), want), "") << scans::scan_rung_name(policy);
  });
  const cudaStream_t stream = scans::test_stream();
  parprim::exclusive_scan(parprim::cuda.on(stream).nosync(), d.span(), o.span(), 2.0f,
                          parprim::exact_plus{});
  scans::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  EXPECT_EQ(first_difference(o.to_host(), pt::exact_expected<float>::scan(in, nullptr, true, 2.0f)),
            "")
      << "nosync on a stream";
  std::vector<float> tripled(n);
  for (std::size_t i = 0; i < n; ++i) tripled[i] = triple{}(in[i]);
  parprim::transform_inclusive_scan(parprim::cuda, d.span(), o.span(), parprim::exact_plus{},
                                    triple{});
  EXPECT_EQ(
      first_difference(o.to_host(), pt::exact_expected<float>::scan(tripled, nullptr, false, 0.0f)),
      "")
      << "transform_inclusive_scan";
  parprim::transform_exclusive_scan(parprim::cuda, d.span(), o.span(), -1.0f, parprim::exact_plus{},
                                    triple{});
  EXPECT_EQ(
      first_difference(o.to_host(), pt::exact_expected<float>::scan(tripled, nullptr, true, -1.0f)),
      "")
      << "transform_exclusive_scan";
}

/// \brief Around the chunks of the per-segment passes (16 elements a thread up to about 2^21
/// elements, blocks of 128 threads, more chunks than the 512 threads of the scan over chunks
/// from 8193 on), primes, 2^k +- 1; capped by PARPRIM_CUDA_TEST_MAX_N.
std::vector<std::size_t> exact_segment_sizes() {
  std::vector<std::size_t> v;
  for (std::size_t n : {0, 1, 2, 15, 16, 17, 33, 2047, 2048, 2049, 10007, 262145})
    if (n <= scans::scan_max_n()) v.push_back(n);
  return v;
}

/// \brief The CSR reference: `RN(init + elements [begins[s], begins[s + 1]))` for every s.
template <class F, class I>
std::vector<F> offset_sums(const std::vector<F>& in, const std::vector<I>& begins, F init) {
  std::vector<F> want;
  for (std::size_t s = 0; s + 1 < begins.size(); ++s)
    want.push_back(pt::exact_expected<F>::reduce(
        std::vector<F>(in.begin() + static_cast<std::ptrdiff_t>(begins[s]),
                       in.begin() + static_cast<std::ptrdiff_t>(begins[s + 1])),
        init));
  return want;
}

/// \brief The first `count` elements of a device buffer.
template <class T>
std::vector<T> first_of(const parprim::device_buffer<T>& d, std::size_t count) {
  std::vector<T> all = d.to_host();
  all.resize(count);
  return all;
}

/// Every per-segment call with exact_plus: each result the exact sum of its operands rounded
/// once (the independent reference), for every input family, size and density of heads; the
/// head-flag reduce and the segmented inclusive scan also against parprim::seq's bits.
template <class F>
void per_segment_matches_reference() {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  const auto policy = parprim::cuda.on(scans::test_stream());
  std::uint64_t salt = 0;
  for (const pt::exact_mix mix : pt::all_exact_mixes) {
    for (const std::size_t n : exact_segment_sizes()) {
      // (the largest size on two families: the host reference is slow)
      if (n > 10007 && mix != pt::exact_mix::uniform && mix != pt::exact_mix::cancellation)
        continue;
      for (const pt::density density : pt::segment_densities) {
        SCOPED_TRACE(std::string(pt::exact_mix_name(mix)) + ", n = " + std::to_string(n) + ", " +
                     pt::density_name(density));
        pt::rng_t r = pt::make_rng(seed, n, ++salt);
        const std::vector<F> in = pt::exact_input<F>(mix, r, n);
        const std::vector<std::uint8_t> flags = pt::make_flags(r, n, density);
        const F init = n % 2 == 0 ? -F(0) : static_cast<F>(0.25);
        const parprim::device_buffer<F> d_in(in);
        const parprim::device_buffer<std::uint8_t> d_flags(flags);
        parprim::device_buffer<F> out(n);

        parprim::segmented_inclusive_scan(policy, d_in.span(), d_flags.span(), out.span(),
                                          parprim::exact_plus{});
        const std::vector<F> inclusive = out.to_host();
        EXPECT_EQ(
            first_difference(inclusive, pt::exact_expected<F>::scan(in, flags.data(), false, F(0))),
            "")
            << "segmented_inclusive_scan";
        std::vector<F> host(n);
        parprim::segmented_inclusive_scan(parprim::seq, in, flags, host, parprim::exact_plus{});
        EXPECT_EQ(first_difference(inclusive, host), "") << "segmented_inclusive_scan vs seq";
        parprim::segmented_exclusive_scan(policy, d_in.span(), d_flags.span(), out.span(), init,
                                          parprim::exact_plus{});
        EXPECT_EQ(first_difference(out.to_host(),
                                   pt::exact_expected<F>::scan(in, flags.data(), true, init)),
                  "")
            << "segmented_exclusive_scan";

        const std::vector<F> sums = pt::exact_expected<F>::segments(in, flags, &init);
        const std::size_t k = parprim::segmented_reduce(policy, d_in.span(), d_flags.span(),
                                                        out.span(), init, parprim::exact_plus{});
        ASSERT_EQ(k, sums.size());
        EXPECT_EQ(first_difference(first_of(out, k), sums), "") << "segmented_reduce (flags)";
        std::vector<F> host_sums(k);
        parprim::segmented_reduce(parprim::seq, in, flags, host_sums, init, parprim::exact_plus{});
        EXPECT_EQ(first_difference(first_of(out, k), host_sums), "") << "segmented_reduce vs seq";

        const std::vector<std::int64_t> begins =
            pt::with_empty_segments<std::int64_t>(r, pt::segment_begins(flags), salt % 4);
        const parprim::device_buffer<std::int64_t> d_begins(begins);
        parprim::device_buffer<F> per_row(begins.size() - 1);
        parprim::segmented_reduce(policy, d_in.span(), parprim::offsets(d_begins.span()),
                                  per_row.span(), init, parprim::exact_plus{});
        EXPECT_EQ(first_difference(per_row.to_host(), offset_sums(in, begins, init)), "")
            << "segmented_reduce (offsets, " << salt % 4 << " empty segments)";

        const std::vector<std::int32_t> keys = pt::make_keys<std::int32_t>(r, flags);
        const parprim::device_buffer<std::int32_t> d_keys(keys);
        parprim::device_buffer<std::int32_t> keys_out(n);
        const std::size_t runs = parprim::reduce_by_key(
            policy, d_keys.span(), d_in.span(), keys_out.span(), out.span(), parprim::exact_plus{});
        const std::vector<F> run_sums = pt::exact_expected<F>::segments(in, flags, nullptr);
        ASSERT_EQ(runs, run_sums.size());
        EXPECT_EQ(first_difference(first_of(out, runs), run_sums), "") << "reduce_by_key";
        std::vector<std::int32_t> want_keys;
        for (const std::size_t b : pt::segment_begins(flags))
          if (b < n) want_keys.push_back(keys[b]);
        EXPECT_EQ(first_of(keys_out, runs), want_keys) << "reduce_by_key's keys";

        parprim::inclusive_scan_by_key(policy, d_keys.span(), d_in.span(), out.span(),
                                       parprim::exact_plus{});
        EXPECT_EQ(first_difference(out.to_host(), inclusive), "") << "inclusive_scan_by_key";
        parprim::exclusive_scan_by_key(policy, d_keys.span(), d_in.span(), out.span(), init,
                                       parprim::exact_plus{});
        EXPECT_EQ(first_difference(out.to_host(),
                                   pt::exact_expected<F>::scan(in, flags.data(), true, init)),
                  "")
            << "exclusive_scan_by_key";
      }
    }
  }
}

TEST(CudaExact, FloatPerSegmentIsTheRoundedExactSum) {
  per_segment_matches_reference<float>();
}
TEST(CudaExact, DoublePerSegmentIsTheRoundedExactSum) {
  per_segment_matches_reference<double>();
}

/// The segmented scans with exact_plus: the same bits on every scan rung of the policy, with
/// nosync on a stream, and in place.
TEST(CudaExact, SegmentedScansOnEveryRungStreamAndInPlace) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  pt::rng_t r = pt::make_rng(seed, 0);
  const std::size_t n = std::min<std::size_t>(300007, scans::scan_max_n());
  const std::vector<double> in = pt::exact_input<double>(pt::exact_mix::cancellation, r, n);
  const std::vector<std::uint8_t> flags = pt::make_flags(r, n, pt::density::thousandth);
  parprim::device_buffer<double> d(in);
  const parprim::device_buffer<std::uint8_t> f(flags);
  parprim::device_buffer<double> o(n);
  const std::vector<double> want = pt::exact_expected<double>::scan(in, flags.data(), false, 0.0);
  for_each_policy(scans::all_scan_rungs, [&](const auto& policy) {
    parprim::segmented_inclusive_scan(policy, d.span(), f.span(), o.span(), parprim::exact_plus{});
    EXPECT_EQ(first_difference(o.to_host(), want), "") << scans::scan_rung_name(policy);
  });
  const cudaStream_t stream = scans::test_stream();
  parprim::segmented_exclusive_scan(parprim::cuda.on(stream).nosync(), d.span(), f.span(), o.span(),
                                    2.0, parprim::exact_plus{});
  scans::cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  EXPECT_EQ(
      first_difference(o.to_host(), pt::exact_expected<double>::scan(in, flags.data(), true, 2.0)),
      "")
      << "nosync on a stream";
  parprim::segmented_inclusive_scan(parprim::cuda, d.span(), f.span(), d.span(),
                                    parprim::exact_plus{});
  EXPECT_EQ(first_difference(d.to_host(), want), "") << "in place";
}

/// Integers: exact_plus is plus, on the GPU too (reduce and reduce_into).
TEST(CudaExact, IntegersArePlus) {
  PARPRIM_SKIP_WITHOUT_GPU();
  std::vector<std::int64_t> in(100003);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int64_t>(i * i % 1000) - 500;
  const parprim::device_buffer<std::int64_t> d(in);
  parprim::device_buffer<std::int64_t> result(1);
  const std::int64_t want = parprim::reduce(parprim::seq, in, std::int64_t{7});
  EXPECT_EQ(parprim::reduce(parprim::cuda, std::as_const(d).span(), std::int64_t{7},
                            parprim::exact_plus{}),
            want);
  parprim::reduce_into(parprim::cuda, std::as_const(d).span(), result.span(), std::int64_t{7},
                       parprim::exact_plus{});
  EXPECT_EQ(result.to_host()[0], want);
}

}  // namespace
}  // namespace parprim_cuda_test
