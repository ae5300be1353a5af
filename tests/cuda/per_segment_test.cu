/// \file
/// \brief The per-segment calls through parprim::cuda: segmented_reduce with head flags and
/// with CSR offsets (int32 and uint64, empty segments added before the first element, after
/// the last and between, and runs of thousands of them), reduce_by_key (int32 and int64 keys) and
/// inclusive_scan_by_key / exclusive_scan_by_key (out of place and in place).
///
/// Cases: int32 plus, int64 plus, uint32 maximum, float plus (within the bound of
/// tests/support/harness.hpp, which holds for any grouping), double minimum, int8 into int32
/// plus, and a user type with a NON-commutative operator (affine maps on int64, exact), so the
/// sequence order within each segment is checked. Sizes: the edges, the warp and block
/// boundaries +-1, the tiles' (4096 elements; reduce_by_key's staged tiles of 1792, 3584 and
/// 7168 for 16-, 8- and 4-byte values) +-1, primes, 2^16 + 1 and 2^20 (and 2^24 + 3 for int32
/// plus); sizes above PARPRIM_CUDA_TEST_MAX_N are left out. Segments: every length 1, fixed
/// lengths 32, 1024 and 65536, one segment (flags[0] 0 or set), random heads at densities 1/3 and
/// 1/1000, one head on the last element, one-element segments at both ends, and power-law lengths
/// floor(2^(17 U)). Keys are runs over the same segments: fresh values at each head, three
/// values (a run often takes the key of the run two before) and two alternating int64 keys that
/// differ only in their high 32 bits.
///
/// Outputs have room for exactly the segments, for a few more, and for n (the call that counts
/// while it reduces, in one pass); they are poisoned with guard elements around them and
/// compared whole with the
/// sequential reference folds of harness.hpp (outputs larger than the count must keep their
/// poison); the inputs, flags, offsets and keys must be unchanged. Errors (too small an output,
/// bad offsets, out.size() != k) raise parprim::invalid_argument with the outputs untouched. A
/// failure prints the random seed; PARPRIM_TEST_SEED=<seed> reproduces it.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test::scans {
namespace {

using namespace cases;  // NOLINT: the case names read as the test matrix

// --- the user type ----------------------------------------------------------------------------

/// \brief The map x -> a x + b on int64 (mod 2^64).
struct affine64 {
  std::int64_t a, b;
  friend bool operator==(const affine64&, const affine64&) = default;
  friend std::ostream& operator<<(std::ostream& os, const affine64& f) {
    return os << "x -> " << f.a << "x + " << f.b;
  }
};
/// \brief compose(f, g) = "f, then g": x -> g.a (f.a x + f.b) + g.b. Associative, NOT
/// commutative. Computed in uint64, so it wraps without undefined behaviour.
struct affine64_compose {
  PARPRIM_HOST_DEVICE affine64 operator()(const affine64& f, const affine64& g) const {
    const auto fa = static_cast<std::uint64_t>(f.a), fb = static_cast<std::uint64_t>(f.b);
    const auto ga = static_cast<std::uint64_t>(g.a), gb = static_cast<std::uint64_t>(g.b);
    return {static_cast<std::int64_t>(ga * fa), static_cast<std::int64_t>(ga * fb + gb)};
  }
};
/// Odd slopes: the composed slope never becomes 0, so every element of a segment matters.
struct Affine64Compose : case_base<affine64, affine64, affine64_compose> {
  static constexpr const char* name = "affine maps on int64 (user type, non-commutative)";
  static affine64 gen(pt::rng_t& r, std::size_t) {
    return {full_range<std::int64_t>(r) | 1, full_range<std::int64_t>(r)};
  }
  static affine64 init(pt::rng_t& r) { return gen(r, 0); }
};

// --- sizes and segments -----------------------------------------------------------------------

/// \brief The sizes of the sweeps, up to PARPRIM_CUDA_TEST_MAX_N.
std::vector<std::size_t> per_segment_sizes() {
  std::vector<std::size_t> v;
  for (std::size_t n : {0,    1,    2,    31,   32,   33,    255,   256,    257,    1009,
                        1023, 1024, 1025, 1791, 1792, 1793,  3583,  3584,   3585,   4095,
                        4096, 4097, 7167, 7168, 7169, 14337, 65537, 100003, 1 << 20})
    if (n <= scan_max_n()) v.push_back(n);
  return v;
}

/// \brief One way of cutting the input into segments.
struct segmentation {
  std::string name;
  std::vector<std::uint8_t> flags;  ///< head flags: random non-zero bytes at the heads
};

/// \brief Head flags of consecutive segments of lengths `next_length()` (>= 1; the last one cut
/// at n); flags[0] is 0 or set at random (element 0 starts a segment whatever it holds).
template <class NextLength>
std::vector<std::uint8_t> flags_of_lengths(pt::rng_t& r, std::size_t n, NextLength next_length) {
  std::vector<std::uint8_t> f(n, 0);
  for (std::size_t at = 0; at < n; at += next_length())
    f[at] = pt::uniform_int<std::uint8_t>(r, 1, 255);
  if (n > 0 && pt::uniform_int<int>(r, 0, 1) == 0) f[0] = 0;
  return f;
}

/// \brief Every segmentation of n elements the sweeps run: the densities of harness.hpp (no
/// flags at all, every element, random 1/3 and 1/1000, the last element only, one-element
/// segments at both ends), one segment with flags[0] set, fixed lengths (where n is longer; those
/// of 8192 and 65536 put every head on the grid of the offsets' tiles) and power-law lengths.
std::vector<segmentation> segmentations(std::uint64_t seed, std::size_t n) {
  std::vector<segmentation> v;
  std::uint64_t salt = 1;
  for (pt::density d : pt::segment_densities) {
    pt::rng_t r = pt::make_rng(seed, n, salt++);
    v.push_back({pt::density_name(d), pt::make_flags(r, n, d)});
  }
  std::vector<std::uint8_t> one(n, 0);
  if (n > 0) one[0] = 1;
  v.push_back({"one segment, flags[0] set", std::move(one)});
  for (std::size_t length : {32, 1024, 8192, 65536}) {
    if (n <= length) continue;
    pt::rng_t r = pt::make_rng(seed, n, salt++);
    std::string name = "segments of length ";
    name += std::to_string(length);
    v.push_back({std::move(name), flags_of_lengths(r, n, [=] { return length; })});
  }
  pt::rng_t r = pt::make_rng(seed, n, salt++);
  v.push_back({"power-law lengths floor(2^(17 U))", flags_of_lengths(r, n, [&] {
                 return static_cast<std::size_t>(std::exp2(17.0 * pt::uniform_real(r, 0.0, 1.0)));
               })});
  return v;
}

/// \brief Keys whose runs are the segments of `flags`, as int64 values that differ only in
/// their high 32 bits (a key compared on its low half would merge the runs).
std::vector<std::int64_t> high_bit_keys(pt::rng_t& r, std::span<const std::uint8_t> flags) {
  std::vector<std::int64_t> keys = pt::make_keys<std::int64_t>(r, flags, 2);
  for (auto& k : keys) k = k * (std::int64_t{1} << 40) - 1;
  return keys;
}

// --- one checker per call shape ---------------------------------------------------------------

/// \brief The policy of the sweeps: the default kernels on the tests' stream.
auto policy() {
  return parprim::cuda.on(test_stream());
}

/// \brief What every call of one (size, segmentation) shares.
template <class Case>
struct segment_data {
  const std::vector<typename Case::in_t>& in;
  const guarded_device_buffer<typename Case::in_t>& d_in;
  typename Case::acc_t init;
  const std::vector<std::uint8_t>& flags;
  const guarded_device_buffer<std::uint8_t>& d_flags;
  std::vector<std::size_t> begins;  ///< pt::segment_begins(flags): k + 1 offsets

  std::size_t segments() const { return begins.size() - 1; }
};

/// segmented_reduce with head flags, into an output of `room` >= k elements.
template <class Case>
void check_flags(const segment_data<Case>& s, std::size_t room) {
  using Acc = typename Case::acc_t;
  SCOPED_TRACE("segmented_reduce, head flags, out of " + std::to_string(room) + " elements");
  const auto want = pt::reference<Case>::segments(s.in, s.begins, &s.init, room);
  guarded_device_buffer<Acc> out;
  out.poison(room);
  const std::size_t k = parprim::segmented_reduce(policy(), s.d_in.body(), s.d_flags.body(),
                                                  out.body(), s.init, typename Case::op_t{});
  ASSERT_EQ(k, s.segments()) << "number of segments";
  ASSERT_TRUE(pt::matches(want, std::span<const Acc>(out.read_all())));
}

/// segmented_reduce with the CSR offsets `offsets` (of type I) over the elements of `s`: a
/// synchronous call, or an enqueue-only one (the stream synchronised after it).
template <class Case, class I>
void check_given_offsets(const segment_data<Case>& s, const std::vector<I>& offsets,
                         bool enqueue_only = false) {
  using Acc = typename Case::acc_t;
  const std::vector<std::size_t> begins(offsets.begin(), offsets.end());
  const std::size_t k = begins.size() - 1;
  std::size_t empties = 0;
  for (std::size_t j = 0; j < k; ++j) empties += begins[j] == begins[j + 1] ? 1 : 0;
  SCOPED_TRACE("segmented_reduce, " + std::to_string(sizeof(I) * 8) + "-bit offsets of " +
               std::to_string(k) + " segments, " + std::to_string(empties) + " of them empty" +
               (enqueue_only ? ", nosync" : ""));
  const auto want = pt::reference<Case>::segments(s.in, begins, &s.init, k);
  guarded_device_buffer<I> d_offsets;
  d_offsets.fill(offsets);
  guarded_device_buffer<Acc> out;
  out.poison(k);
  if (enqueue_only) {
    parprim::segmented_reduce(policy().nosync(), s.d_in.body(), parprim::offsets(d_offsets.body()),
                              out.body(), s.init, typename Case::op_t{});
    cuda_ok(cudaStreamSynchronize(test_stream()), "cudaStreamSynchronize");
  } else {
    parprim::segmented_reduce(policy(), s.d_in.body(), parprim::offsets(d_offsets.body()),
                              out.body(), s.init, typename Case::op_t{});
  }
  ASSERT_TRUE(pt::matches(want, std::span<const Acc>(out.read_all())));
  ASSERT_TRUE(device_unchanged(d_offsets, offsets)) << "the offsets changed";
}

/// segmented_reduce with offsets of type I: the segments of `s` with `empties` empty ones added.
template <class Case, class I>
void check_offsets(const segment_data<Case>& s, pt::rng_t& r, std::size_t empties) {
  ASSERT_NO_FATAL_FAILURE(
      (check_given_offsets<Case, I>(s, pt::with_empty_segments<I>(r, s.begins, empties))));
}

/// \brief `begins` as offsets of type I with runs of `run` empty segments each: before the first
/// element, at the first segment that starts at or past element 4096 (a tile's first element in
/// segments of one element), at a random segment's start and after the last element.
template <class I>
std::vector<I> with_empty_runs(pt::rng_t& r, const std::vector<std::size_t>& begins,
                               std::size_t run) {
  const std::size_t k = begins.size() - 1;
  std::size_t at_tile = k;
  for (std::size_t j = 0; j < k; ++j)
    if (begins[j] >= 4096) {
      at_tile = j;
      break;
    }
  const std::size_t random = pt::uniform_int<std::size_t>(r, 0, k);
  std::vector<I> out;
  for (std::size_t j = 0; j <= k; ++j) {
    const std::size_t copies =
        (j == 0 || j == k ? run : 0) + (j == at_tile ? run : 0) + (j == random ? run : 0);
    out.insert(out.end(), copies + 1, static_cast<I>(begins[j]));
  }
  return out;
}

/// reduce_by_key with outputs of `room` >= k elements.
template <class Case, class Key>
void check_reduce_by_key(const segment_data<Case>& s, const std::vector<Key>& keys,
                         std::size_t room) {
  using Acc = typename Case::acc_t;
  SCOPED_TRACE("reduce_by_key, " + std::to_string(sizeof(Key) * 8) + "-bit keys, outputs of " +
               std::to_string(room) + " elements");
  const auto want = pt::reference<Case>::segments(s.in, s.begins, nullptr, room);
  pt::expectation<Key> want_keys;
  want_keys.exact = pt::poisoned<Key>(room);
  for (std::size_t j = 0; j < s.segments(); ++j) want_keys.exact[pt::guard + j] = keys[s.begins[j]];
  guarded_device_buffer<Key> d_keys, keys_out;
  guarded_device_buffer<Acc> out;
  d_keys.fill(keys);
  keys_out.poison(room);
  out.poison(room);
  const std::size_t k =
      parprim::reduce_by_key(policy(), std::as_const(d_keys).body(), s.d_in.body(), keys_out.body(),
                             out.body(), typename Case::op_t{});
  ASSERT_EQ(k, s.segments()) << "number of runs";
  ASSERT_TRUE(pt::matches(want_keys, std::span<const Key>(keys_out.read_all()))) << "keys_out";
  ASSERT_TRUE(pt::matches(want, std::span<const Acc>(out.read_all()))) << "out";
  ASSERT_TRUE(device_unchanged(d_keys, keys)) << "the keys changed";
}

/// inclusive_scan_by_key or exclusive_scan_by_key, out of place or in place (when the input and
/// accumulator types agree; otherwise nothing is run).
template <class Case, class Key>
void check_scan_by_key(const segment_data<Case>& s, const std::vector<Key>& keys, bool exclusive,
                       bool in_place) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  if (in_place && !std::is_same_v<In, Acc>) return;
  std::string what = exclusive ? "exclusive_scan_by_key, " : "inclusive_scan_by_key, ";
  what += std::to_string(sizeof(Key) * 8);
  what += in_place ? "-bit keys, in place" : "-bit keys, out of place";
  SCOPED_TRACE(what);
  const auto want = pt::reference<Case>::scan(s.in, s.flags.data(), exclusive, s.init);
  guarded_device_buffer<Key> d_keys;
  d_keys.fill(keys);
  guarded_device_buffer<Acc> out;
  parprim::device_span<const In> src = s.d_in.body();
  if constexpr (std::is_same_v<In, Acc>) {
    if (in_place) {
      out.fill(s.in);
      src = out.body();
    }
  }
  if (!in_place) out.poison(s.in.size());
  const auto key_span = std::as_const(d_keys).body();
  const typename Case::op_t op{};
  if (exclusive)
    parprim::exclusive_scan_by_key(policy(), key_span, src, out.body(), s.init, op);
  else
    parprim::inclusive_scan_by_key(policy(), key_span, src, out.body(), op);
  ASSERT_TRUE(pt::matches(want, std::span<const Acc>(out.read_all())));
  ASSERT_TRUE(device_unchanged(d_keys, keys)) << "the keys changed";
}

// --- the sweep --------------------------------------------------------------------------------

enum class call_shape { segmented_reduce, reduce_by_key, scans_by_key };

/// \brief Runs the calls of `shapes` for `Case` at every size of `sizes` and every
/// segmentation: head flags into outputs of k and k + 3 elements; offsets, int32 and uint64,
/// without and with empty segments; reduce_by_key with three key sets (outputs of k, k + 1 and
/// k + 3 elements); both scans by key, out of place and in place, each with both key types.
template <class Case>
void sweep(const std::vector<std::size_t>& sizes, const std::vector<call_shape>& shapes) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  for (std::size_t n : sizes) {
    SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n);
    const std::vector<In> in = pt::make_input<Case>(r, n);
    const Acc init = Case::init(r);
    guarded_device_buffer<In> d_in;
    d_in.fill(in);
    std::uint64_t salt = 1000;
    for (const segmentation& seg : segmentations(seed, n)) {
      SCOPED_TRACE("segments: " + seg.name);
      guarded_device_buffer<std::uint8_t> d_flags;
      d_flags.fill(seg.flags);
      const segment_data<Case> s{in, d_in, init, seg.flags, d_flags, pt::segment_begins(seg.flags)};
      const std::size_t k = s.segments();
      pt::rng_t kr = pt::make_rng(seed, n, salt++);
      const auto fresh_keys = pt::make_keys<std::int32_t>(kr, seg.flags, 1 << 30);
      const auto three_keys = pt::make_keys<std::int32_t>(kr, seg.flags, 3);
      const auto wide_keys = high_bit_keys(kr, seg.flags);
      for (call_shape shape : shapes) {
        switch (shape) {
          case call_shape::segmented_reduce:
            ASSERT_NO_FATAL_FAILURE(check_flags(s, k));
            ASSERT_NO_FATAL_FAILURE(check_flags(s, k + 3));
            ASSERT_NO_FATAL_FAILURE(check_flags(s, n));  // room for n: counted while reduced
            for (std::size_t empties : {std::size_t{0}, 3 + n % 4}) {
              ASSERT_NO_FATAL_FAILURE((check_offsets<Case, std::int32_t>(s, kr, empties)));
              ASSERT_NO_FATAL_FAILURE((check_offsets<Case, std::uint64_t>(s, kr, empties)));
            }
            break;
          case call_shape::reduce_by_key:
            ASSERT_NO_FATAL_FAILURE(check_reduce_by_key(s, fresh_keys, k));
            ASSERT_NO_FATAL_FAILURE(check_reduce_by_key(s, three_keys, k + 1));
            ASSERT_NO_FATAL_FAILURE(check_reduce_by_key(s, wide_keys, k + 3));
            ASSERT_NO_FATAL_FAILURE(check_reduce_by_key(s, fresh_keys, n));
            break;
          case call_shape::scans_by_key:
            for (bool exclusive : {false, true})
              for (bool in_place : {false, true}) {
                // each scan meets both key types; a case that cannot run in place still does
                if (exclusive != (in_place && std::is_same_v<In, Acc>))
                  ASSERT_NO_FATAL_FAILURE(check_scan_by_key(s, wide_keys, exclusive, in_place));
                else
                  ASSERT_NO_FATAL_FAILURE(check_scan_by_key(s, three_keys, exclusive, in_place));
              }
            break;
        }
      }
      ASSERT_TRUE(device_unchanged(d_flags, seg.flags)) << "the head flags changed";
    }
    ASSERT_TRUE(device_unchanged(d_in, in)) << "the input changed";
  }
}

template <class Case>
class CudaPerSegment : public ::testing::Test {};
using per_segment_cases = ::testing::Types<Int32Plus, Int64Plus, Uint32Max, FloatPlus, DoubleMin,
                                           Int8PlusInt32, Affine64Compose>;
TYPED_TEST_SUITE(CudaPerSegment, per_segment_cases);

TYPED_TEST(CudaPerSegment, SegmentedReduceFlagsAndOffsets) {
  PARPRIM_SKIP_WITHOUT_GPU();
  sweep<TypeParam>(per_segment_sizes(), {call_shape::segmented_reduce});
}
TYPED_TEST(CudaPerSegment, ReduceByKey) {
  PARPRIM_SKIP_WITHOUT_GPU();
  sweep<TypeParam>(per_segment_sizes(), {call_shape::reduce_by_key});
}
TYPED_TEST(CudaPerSegment, ScansByKey) {
  PARPRIM_SKIP_WITHOUT_GPU();
  sweep<TypeParam>(per_segment_sizes(), {call_shape::scans_by_key});
}

TEST(CudaPerSegmentLarge, Int32PlusEveryCall) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 24) + 3;
  if (n > scan_max_n()) GTEST_SKIP() << "n = " << n << " is above PARPRIM_CUDA_TEST_MAX_N";
  sweep<Int32Plus>(
      {n}, {call_shape::segmented_reduce, call_shape::reduce_by_key, call_shape::scans_by_key});
}

/// \brief segmented_reduce with int64 offsets (three of the segments empty) of `Case` at n
/// elements: random heads (density 1/3), segments of 1024, 8192 and 65536, one segment and
/// power-law lengths.
template <class Case>
void offsets_at(std::size_t n) {
  using In = typename Case::in_t;
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n));
  pt::rng_t r = pt::make_rng(seed, n);
  const std::vector<In> in = pt::make_input<Case>(r, n);
  const typename Case::acc_t init = Case::init(r);
  guarded_device_buffer<In> d_in;
  d_in.fill(in);
  for (const segmentation& seg : segmentations(seed, n)) {
    if (seg.name != pt::density_name(pt::density::third) && seg.name != "segments of length 1024" &&
        seg.name != "segments of length 8192" && seg.name != "segments of length 65536" &&
        seg.name != "one segment, flags[0] set" && seg.name.rfind("power-law", 0) != 0)
      continue;
    SCOPED_TRACE("segments: " + seg.name);
    const guarded_device_buffer<std::uint8_t> no_flags;
    const segment_data<Case> s{in, d_in, init, seg.flags, no_flags, pt::segment_begins(seg.flags)};
    pt::rng_t kr = pt::make_rng(seed, n, 77);
    ASSERT_NO_FATAL_FAILURE((check_offsets<Case, std::int64_t>(s, kr, 3)));
  }
}

/// Offsets past one wave of blocks: the one pass's blocks walk spans of several tiles (the last
/// one short) at 2^22 + 5 elements, and the three steps take over at 2^26 + 3 (above 16 tiles a
/// block on every GPU of up to 256 SMs) where the segments are short; where they are long
/// (segments of 65536, one segment, power-law lengths) commutative operators take one pass over
/// one wave of spans, folding stretches of tiles (int32 sums, double minimum: 4 and 3 tiles per
/// SM), a non-commutative operator on 16-byte values the steps above.
TEST(CudaPerSegmentLarge, OffsetsOfManyTiles) {
  PARPRIM_SKIP_WITHOUT_GPU();
  for (std::size_t n : {(std::size_t{1} << 22) + 5, (std::size_t{1} << 26) + 3}) {
    if (n > scan_max_n()) GTEST_SKIP() << "n = " << n << " is above PARPRIM_CUDA_TEST_MAX_N";
    ASSERT_NO_FATAL_FAILURE(offsets_at<Int32Plus>(n));
    ASSERT_NO_FATAL_FAILURE(offsets_at<DoubleMin>(n));
    ASSERT_NO_FATAL_FAILURE(offsets_at<Affine64Compose>(n));
  }
}

/// Runs of thousands of empty segments (before the first element, at a tile's first element,
/// inside the input and after the last element) beside short segments: a tile of 4096 elements
/// then spans several times as many segments as elements, all of whose offsets it must read to
/// place its heads, and each empty segment's result is `init`.
TEST(CudaPerSegmentOffsets, RunsOfEmptySegments) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  for (std::size_t n :
       {std::size_t{4096 + 17}, std::size_t{3 * 4096 + 17}, (std::size_t{1} << 20) + 3}) {
    if (n > scan_max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n);
    const std::vector<std::int32_t> in = pt::make_input<Int32Plus>(r, n);
    const std::int32_t init = Int32Plus::init(r);
    guarded_device_buffer<std::int32_t> d_in;
    d_in.fill(in);
    for (const segmentation& seg : segmentations(seed, n)) {
      if (seg.name != pt::density_name(pt::density::every) &&
          seg.name != pt::density_name(pt::density::third) && seg.name != "segments of length 32")
        continue;
      SCOPED_TRACE("segments: " + seg.name);
      const guarded_device_buffer<std::uint8_t> no_flags;
      const segment_data<Int32Plus> s{in,        d_in,     init,
                                      seg.flags, no_flags, pt::segment_begins(seg.flags)};
      for (std::size_t run : {std::size_t{4100}, std::size_t{9001}}) {
        pt::rng_t kr = pt::make_rng(seed, n, run);
        ASSERT_NO_FATAL_FAILURE((check_given_offsets<Int32Plus, std::int32_t>(
            s, with_empty_runs<std::int32_t>(kr, s.begins, run))));
        ASSERT_NO_FATAL_FAILURE((check_given_offsets<Int32Plus, std::uint64_t>(
            s, with_empty_runs<std::uint64_t>(kr, s.begins, run))));
      }
    }
  }
}

/// \brief CSR offsets (as segment_begins makes them) of segments of 0 to 4 elements at random,
/// one of which, at a random place, has `longest` elements where that is more than 4.
std::vector<std::size_t> short_segment_begins(pt::rng_t& r, std::size_t n, std::size_t longest) {
  std::vector<std::size_t> begins{0};
  const std::size_t at = pt::uniform_int<std::size_t>(r, 0, n - longest - 8);
  bool placed = longest <= 4;
  for (std::size_t end = 0; end < n;) {
    std::size_t length = pt::uniform_int<std::size_t>(r, 0, 4);
    if (!placed && end >= at) {
      length = longest;
      placed = true;
    }
    end = std::min(n, end + length);
    begins.push_back(end);
  }
  return begins;
}

/// Segments of a few elements on average, from 2^18 elements on (at least a quarter as many
/// segments as elements): one thread a segment reduces them where none is longer than 4
/// elements; otherwise the tiles do. Segments of 0 to 4 elements at random (empty ones among
/// them: one thread a segment), the same with one of 5 elements and one of a quarter of the
/// input (the tiles), in synchronous and enqueue-only calls, with 32- and 64-bit offsets.
TYPED_TEST(CudaPerSegment, ShortSegments) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using Case = TypeParam;
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  for (std::size_t n : {(std::size_t{1} << 18) + 5, (std::size_t{1} << 20) + 3}) {
    if (n > scan_max_n()) continue;
    SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n);
    const std::vector<typename Case::in_t> in = pt::make_input<Case>(r, n);
    const typename Case::acc_t init = Case::init(r);
    guarded_device_buffer<typename Case::in_t> d_in;
    d_in.fill(in);
    const std::vector<std::uint8_t> no_flag_bytes;
    const guarded_device_buffer<std::uint8_t> no_flags;
    for (std::size_t longest : {std::size_t{4}, std::size_t{5}, n / 4}) {
      SCOPED_TRACE("segments of 0 to 4 elements, the longest of " + std::to_string(longest));
      pt::rng_t kr = pt::make_rng(seed, n, longest);
      const segment_data<Case> s{
          in, d_in, init, no_flag_bytes, no_flags, short_segment_begins(kr, n, longest)};
      const std::vector<std::int32_t> narrow(s.begins.begin(), s.begins.end());
      const std::vector<std::uint64_t> wide(s.begins.begin(), s.begins.end());
      for (bool enqueue_only : {false, true}) {
        ASSERT_NO_FATAL_FAILURE((check_given_offsets<Case, std::int32_t>(s, narrow, enqueue_only)));
        ASSERT_NO_FATAL_FAILURE((check_given_offsets<Case, std::uint64_t>(s, wide, enqueue_only)));
      }
    }
  }
}

// --- errors -----------------------------------------------------------------------------------

/// \brief `n` elements of poison in a guarded buffer (a fresh output).
template <class T>
guarded_device_buffer<T> poisoned_output(std::size_t n) {
  guarded_device_buffer<T> d;
  d.poison(n);
  return d;
}

/// \brief Expects `d` (made by poisoned_output) to be as it was, guards included.
template <class T>
void expect_untouched(const guarded_device_buffer<T>& d) {
  EXPECT_TRUE(device_unchanged(d, std::vector<T>(d.size(), pt::byte_pattern<T>(pt::poison_byte))))
      << "an output was written before the error";
}

/// \brief Expects `call` to raise parprim::invalid_argument and leave `outputs` untouched.
template <class Call, class... T>
void expect_refused(const std::string& what, Call call,
                    const guarded_device_buffer<T>&... outputs) {
  SCOPED_TRACE(what);
  EXPECT_THROW(call(), parprim::invalid_argument);
  (expect_untouched(outputs), ...);
}

/// One input of int32 with random heads (density 1/3), or a head every `every` elements, flags
/// and keys on the device.
struct error_inputs {
  explicit error_inputs(std::uint64_t seed, std::size_t every = 0) {
    pt::rng_t r = pt::make_rng(seed, n);
    in = pt::make_input<Int32Plus>(r, n);
    flags = pt::make_flags(r, n, pt::density::third);
    if (every > 0)
      for (std::size_t i = 0; i < n; ++i) flags[i] = i % every == 0 ? 1 : 0;
    begins = pt::segment_begins(flags);
    d_in.fill(in);
    d_flags.fill(flags);
    d_keys.fill(pt::make_keys<std::int32_t>(r, flags));
  }
  std::size_t segments() const { return begins.size() - 1; }
  static constexpr std::size_t n = 5000;
  std::vector<std::int32_t> in;
  std::vector<std::uint8_t> flags;
  std::vector<std::size_t> begins;
  guarded_device_buffer<std::int32_t> d_in, d_keys;
  guarded_device_buffer<std::uint8_t> d_flags;
};

void outputs_too_small(const error_inputs& e) {
  const std::size_t k = e.segments();
  ASSERT_GT(k, 1u);
  const auto p = parprim::cuda;
  for (std::size_t room : {std::size_t{0}, k - 1}) {
    auto out = poisoned_output<std::int32_t>(room);
    expect_refused(
        "segmented_reduce, head flags, out of " + std::to_string(room) + " elements",
        [&] {
          (void)parprim::segmented_reduce(p, e.d_in.body(), e.d_flags.body(), out.body(), 0,
                                          parprim::plus{});
        },
        out);
  }
  for (bool short_keys : {true, false}) {
    auto keys_out = poisoned_output<std::int32_t>(short_keys ? k - 1 : k);
    auto out = poisoned_output<std::int64_t>(short_keys ? k : k - 1);
    expect_refused(
        short_keys ? "reduce_by_key, keys_out of k - 1 elements"
                   : "reduce_by_key, out of k - 1 elements",
        [&] {
          (void)parprim::reduce_by_key(p, e.d_keys.body(), e.d_in.body(), keys_out.body(),
                                       out.body(), parprim::plus{});
        },
        keys_out, out);
  }
}

/// Outputs one short of the segments: with heads at a third of the elements the call counts
/// them first; with a head every 64 (k - 1 results take fewer bytes than the heads) its results
/// go through a temporary, which must not reach the outputs.
TEST(CudaPerSegmentErrors, OutputsTooSmall) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  for (std::size_t every : {std::size_t{0}, std::size_t{64}}) {
    SCOPED_TRACE(every == 0 ? "heads at random, 1/3" : "a head every 64 elements");
    outputs_too_small(error_inputs(seed, every));
  }
}

/// \brief int64 sums from 0 of `in` over CSR `offsets` into `out`: a synchronous call, or an
/// enqueue-only one (parprim::cuda.nosync()).
template <class In, class Offsets, class Out>
void offsets_sum(bool enqueue_only, In in, Offsets offsets, Out out) {
  if (enqueue_only)
    parprim::segmented_reduce(parprim::cuda.nosync(), in, parprim::offsets(offsets), out,
                              std::int64_t{0}, parprim::plus{});
  else
    parprim::segmented_reduce(parprim::cuda, in, parprim::offsets(offsets), out, std::int64_t{0},
                              parprim::plus{});
}

/// Bad offsets of type I, and an output that does not have k elements.
template <class I>
void check_bad_offsets(const error_inputs& e) {
  SCOPED_TRACE(std::to_string(sizeof(I) * 8) + "-bit offsets");
  const std::size_t k = e.segments();
  const std::vector<I> good(e.begins.begin(), e.begins.end());
  std::vector<float> as_float(e.in.begin(), e.in.end());
  guarded_device_buffer<float> d_float_in;
  d_float_in.fill(as_float);
  // Each refusal three ways: a synchronous call (the check in the reduction's own pass, raised
  // after the wait), an enqueue-only one (the check before anything is enqueued), exact_plus on
  // floats (its own passes); the first two in the same words.
  const auto call = [&](const std::vector<I>& offsets, std::size_t room, const std::string& what) {
    guarded_device_buffer<I> d_offsets;
    d_offsets.fill(offsets);
    std::string words[2];
    for (int enqueue_only = 0; enqueue_only < 2; ++enqueue_only) {
      auto out = poisoned_output<std::int64_t>(room);
      expect_refused(
          what + (enqueue_only ? ", nosync" : ""),
          [&] {
            try {
              offsets_sum(enqueue_only != 0, e.d_in.body(), d_offsets.body(), out.body());
            } catch (const parprim::invalid_argument& x) {
              words[enqueue_only] = x.what();
              throw;
            }
          },
          out);
    }
    EXPECT_EQ(words[0], words[1]) << what;
    auto float_out = poisoned_output<float>(room);
    expect_refused(
        what + ", exact_plus",
        [&] {
          parprim::segmented_reduce(parprim::cuda, d_float_in.body(),
                                    parprim::offsets(d_offsets.body()), float_out.body(), 0.0f,
                                    parprim::exact_plus{});
        },
        float_out);
  };
  call({}, 0, "no offsets");
  call(good, k - 1, "out of k - 1 elements");
  call(good, k + 1, "out of k + 1 elements");
  std::vector<I> bad = good;
  bad.front() = 1;
  call(bad, k, "first offset 1");
  bad = good;
  bad.back() = static_cast<I>(e.n - 1);
  call(bad, k, "last offset n - 1");
  bad.back() = static_cast<I>(e.n + 1);
  call(bad, k, "last offset n + 1");
  for (std::size_t j : {std::size_t{1}, k / 2, k - 2}) {
    bad = good;
    std::swap(bad[j], bad[j + 1]);  // the begins strictly increase: offsets j, j + 1 decrease
    call(bad, k, "offsets " + std::to_string(j) + " and " + std::to_string(j + 1) + " decrease");
  }
}

TEST(CudaPerSegmentErrors, BadOffsets) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  const error_inputs e(seed);
  ASSERT_GT(e.segments(), 3u);
  check_bad_offsets<std::int32_t>(e);
  check_bad_offsets<std::uint64_t>(e);
}

/// \brief Offsets of type I over n random int32 elements, each segment `shortest` to
/// `shortest + spread - 1` elements long, made bad by swapping offsets 1, k / 2 and k - 2 with
/// the next one and (with `wrong_end`) by a last offset of n - 1: each refused, nothing written,
/// in a synchronous and an enqueue-only call.
template <class I>
void refuse_bad_offsets(std::size_t n, std::size_t shortest, std::size_t spread, bool wrong_end) {
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  pt::rng_t r = pt::make_rng(seed, n);
  guarded_device_buffer<std::int32_t> d_in;
  d_in.fill(pt::make_input<Int32Plus>(r, n));
  std::vector<I> offsets;
  for (std::size_t at = 0; at < n; at += shortest + r() % spread)
    offsets.push_back(static_cast<I>(at));
  offsets.push_back(static_cast<I>(n));
  const std::size_t k = offsets.size() - 1;
  const auto refused = [&](const std::vector<I>& bad, const std::string& what) {
    guarded_device_buffer<I> d_offsets;
    d_offsets.fill(bad);
    for (bool enqueue_only : {false, true}) {
      auto out = poisoned_output<std::int64_t>(k);
      expect_refused(
          what + (enqueue_only ? ", nosync" : ""),
          [&] { offsets_sum(enqueue_only, d_in.body(), d_offsets.body(), out.body()); }, out);
    }
  };
  for (std::size_t j : {std::size_t{1}, k / 2, k - 2}) {
    std::vector<I> bad = offsets;
    std::swap(bad[j], bad[j + 1]);
    refused(bad, "offsets " + std::to_string(j) + " and " + std::to_string(j + 1) + " decrease");
  }
  if (wrong_end) {
    std::vector<I> bad = offsets;
    bad.back() = static_cast<I>(n - 1);
    refused(bad, "last offset n - 1");
  }
}

/// Bad offsets where the three steps reduce (2^26 + 3 elements): refused, nothing written, in
/// the words of a small call.
TEST(CudaPerSegmentErrorsLarge, BadOffsetsOfManyTiles) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 26) + 3;
  if (n > scan_max_n()) GTEST_SKIP() << "n = " << n << " is above PARPRIM_CUDA_TEST_MAX_N";
  refuse_bad_offsets<std::int64_t>(n, 1000, 100, false);
}

/// Bad offsets of short segments (2^18 + 5 elements, segments of 1 to 3): the check that
/// finds every segment short refuses them first, nothing written, synchronous or enqueue-only.
TEST(CudaPerSegmentErrors, BadOffsetsOfShortSegments) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 18) + 5;
  if (n > scan_max_n()) GTEST_SKIP() << "n = " << n << " is above PARPRIM_CUDA_TEST_MAX_N";
  refuse_bad_offsets<std::int32_t>(n, 1, 3, true);
}

/// Offsets of no elements: they must be all 0, with one segment or none.
TEST(CudaPerSegmentErrors, BadOffsetsOfNoElements) {
  PARPRIM_SKIP_WITHOUT_GPU();
  guarded_device_buffer<std::int32_t> none;
  none.fill(std::vector<std::int32_t>{});
  for (const auto& [offsets, what] :
       {std::pair{std::vector<std::int64_t>{1}, "offsets {1}"},
        std::pair{std::vector<std::int64_t>{0, 0, 1}, "offsets {0, 0, 1}"},
        std::pair{std::vector<std::int64_t>{0, 2, 0}, "offsets {0, 2, 0}"}}) {
    guarded_device_buffer<std::int64_t> d_offsets;
    d_offsets.fill(offsets);
    auto out = poisoned_output<std::int32_t>(offsets.size() - 1);
    expect_refused(
        what,
        [&] {
          parprim::segmented_reduce(parprim::cuda, none.body(), parprim::offsets(d_offsets.body()),
                                    out.body(), 0, parprim::plus{});
        },
        out);
  }
  guarded_device_buffer<std::int64_t> d_offsets;  // and good ones: every segment gets init
  d_offsets.fill(std::vector<std::int64_t>(5, 0));
  guarded_device_buffer<std::int32_t> out;
  out.poison(4);
  parprim::segmented_reduce(parprim::cuda, none.body(), parprim::offsets(d_offsets.body()),
                            out.body(), 7, parprim::plus{});
  EXPECT_TRUE(device_unchanged(out, std::vector<std::int32_t>(4, 7)))
      << "segments of no elements, init 7";
}

// --- a stream of the caller's -----------------------------------------------------------------

/// Every call on a non-blocking stream the test creates: the results equal parprim::seq's on
/// the host (outputs beyond the count included), and the stream is idle when each call returns.
TEST(CudaPerSegmentStream, UserStreamGivesTheSequentialResults) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  struct owned_stream {
    owned_stream() { cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream"); }
    ~owned_stream() { (void)cudaStreamDestroy(s); }
    cudaStream_t s = nullptr;
  } stream;
  const auto p = parprim::cuda.on(stream.s);
  const std::size_t n = std::min<std::size_t>(100003, scan_max_n());
  pt::rng_t r = pt::make_rng(seed, n);
  const auto in = pt::make_input<Int64Plus>(r, n);
  const auto flags = pt::make_flags(r, n, pt::density::thousandth);
  const auto keys = pt::make_keys<std::int32_t>(r, flags, 3);
  const auto offsets = pt::with_empty_segments<std::size_t>(r, pt::segment_begins(flags), 4);
  const std::size_t k = offsets.size() - 1;
  const std::vector<std::int64_t> fill(n + 2, -7);
  const std::vector<std::int32_t> key_fill(n + 2, -9);
  const parprim::device_buffer<std::int64_t> d_in(in);
  const parprim::device_buffer<std::uint8_t> d_flags(flags);
  const parprim::device_buffer<std::int32_t> d_keys(keys);
  const parprim::device_buffer<std::size_t> d_offsets(offsets);
  parprim::device_buffer<std::int64_t> d_out(fill), d_k(k);
  parprim::device_buffer<std::int32_t> d_keys_out(key_fill);
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // the copies are done
  const auto idle = [&] { return cudaStreamQuery(stream.s) == cudaSuccess; };

  std::vector<std::int64_t> want = fill, want_k(k);
  std::vector<std::int32_t> want_keys = key_fill;
  EXPECT_EQ(
      parprim::segmented_reduce(p, d_in.span(), d_flags.span(), d_out.span(), 5, parprim::plus{}),
      parprim::segmented_reduce(parprim::seq, in, flags, want, 5, parprim::plus{}));
  EXPECT_TRUE(idle()) << "segmented_reduce (flags) returned before its work was done";
  EXPECT_EQ(d_out.to_host(), want) << "segmented_reduce (flags)";

  parprim::segmented_reduce(p, d_in.span(), parprim::offsets(d_offsets.span()), d_k.span(), -3,
                            parprim::plus{});
  parprim::segmented_reduce(parprim::seq, in, parprim::offsets(offsets), want_k, -3,
                            parprim::plus{});
  EXPECT_TRUE(idle()) << "segmented_reduce (offsets) returned before its work was done";
  EXPECT_EQ(d_k.to_host(), want_k) << "segmented_reduce (offsets)";

  want = fill;
  d_out.copy_from_host(fill);
  EXPECT_EQ(parprim::reduce_by_key(p, d_keys.span(), d_in.span(), d_keys_out.span(), d_out.span(),
                                   parprim::plus{}),
            parprim::reduce_by_key(parprim::seq, keys, in, want_keys, want, parprim::plus{}));
  EXPECT_TRUE(idle()) << "reduce_by_key returned before its work was done";
  EXPECT_EQ(d_keys_out.to_host(), want_keys) << "reduce_by_key keys_out";
  EXPECT_EQ(d_out.to_host(), want) << "reduce_by_key out";

  std::vector<std::int64_t> scanned(n);
  parprim::device_buffer<std::int64_t> d_scanned(n);
  parprim::inclusive_scan_by_key(p, d_keys.span(), d_in.span(), d_scanned.span(), parprim::plus{});
  parprim::inclusive_scan_by_key(parprim::seq, keys, in, scanned, parprim::plus{});
  EXPECT_TRUE(idle()) << "inclusive_scan_by_key returned before its work was done";
  EXPECT_EQ(d_scanned.to_host(), scanned) << "inclusive_scan_by_key";
  parprim::exclusive_scan_by_key(p, d_keys.span(), d_in.span(), d_scanned.span(), 11,
                                 parprim::plus{});
  parprim::exclusive_scan_by_key(parprim::seq, keys, in, scanned, 11, parprim::plus{});
  EXPECT_TRUE(idle()) << "exclusive_scan_by_key returned before its work was done";
  EXPECT_EQ(d_scanned.to_host(), scanned) << "exclusive_scan_by_key";
}

}  // namespace
}  // namespace parprim_cuda_test::scans
