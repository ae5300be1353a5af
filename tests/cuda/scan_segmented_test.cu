/// \file
/// \brief segmented_inclusive_scan / segmented_exclusive_scan through parprim::cuda from a .cu
/// translation unit: int8 into int32, the NON-commutative 2x2 matrix product and affine
/// composition, and the vec3 user struct with plus, minimum and maximum. Every rung, one-byte
/// head flags at every density (none, every element, random 1/3, random 1/1000, one flag on the
/// last element; set flags are random non-zero bytes, flags[0] random), inclusive and exclusive
/// (random init at every head), in place and out of place, poisoned outputs with guards;
/// compared with the sequential segmented fold exactly. Built-in types and operators are
/// covered from plain C++ in scan_builtin_test.cpp.
///
/// Segment lengths: the densities give segments of length 1 (every), short random ones (1/3),
/// long random ones (1/1000), one whole-array segment (none), and a whole-array segment
/// followed by a one-element one (last); the explicit lengths below add 2, 31, 32, 33, tile
/// sizes and mixtures of all of them.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test::scans {
namespace {

using namespace cases;  // NOLINT: the case names read as the test matrix

template <class Case>
class CudaScanSegmentedUser : public ::testing::Test {};
using user_cases =
    ::testing::Types<Int8PlusInt32, Mat2Product, AffineCompose, Vec3Plus, Vec3Min, Vec3Max>;
TYPED_TEST_SUITE(CudaScanSegmentedUser, user_cases);

TYPED_TEST(CudaScanSegmentedUser, EveryRungDensityAndSize) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  sweep_options o;
  o.plain = false;
  o.segmented = true;
  sweep<TypeParam>(seed, scan_sizes(seed, std::is_same_v<TypeParam, AffineCompose>), o);
}

/// Head flags that cut the array into segments of the given lengths, cycled.
std::vector<std::uint8_t> flags_of_lengths(std::size_t n, const std::vector<std::size_t>& lengths,
                                           pt::rng_t& r) {
  std::vector<std::uint8_t> f(n, 0);
  std::size_t at = 0;
  for (std::size_t k = 0; at < n; ++k) {
    f[at] = pt::uniform_int<std::uint8_t>(r, 1, 255);
    at += lengths[k % lengths.size()];
  }
  if (n > 0) f[0] = 0;  // element 0 starts a segment whatever its flag holds
  return f;
}

template <class Case>
void check_lengths(std::uint64_t seed, std::size_t n, const std::vector<std::size_t>& lengths) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  std::string what = "segment lengths";
  for (std::size_t l : lengths) {
    what += ' ';  // (two appends: GCC 12 -Wrestrict misfires on " " + to_string)
    what += std::to_string(l);
  }
  SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n) + ", " + what);
  pt::rng_t r = pt::make_rng(seed, n, lengths.front() * 31 + lengths.size());
  const std::vector<In> in = pt::make_input<Case>(r, n);
  const Acc init = Case::init(r);
  const std::vector<std::uint8_t> flags = flags_of_lengths(n, lengths, r);
  guarded_device_buffer<In> d_in(n);
  guarded_device_buffer<std::uint8_t> d_flags(n);
  guarded_device_buffer<Acc> d_out(n);
  d_in.fill(in);
  d_flags.fill(flags);
  for (bool exclusive : {false, true}) {
    const variant v{true, exclusive, density::none};
    const auto want =
        pt::reference<Case>::scan(std::span<const In>(in), flags.data(), exclusive, init);
    for_each_scan_rung([&](const auto& rung, std::size_t) {
      if (::testing::Test::HasFatalFailure()) return;
      run_one<Case>(rung, v, false, in, d_in, d_flags, d_out, init, want);
      if constexpr (std::is_same_v<In, Acc>)
        run_one<Case>(rung, v, true, in, d_in, d_flags, d_out, init, want);
    });
  }
}

// Segments of exact lengths: 1, 2, 31, 32, 33, around the block and tile sizes, a huge one,
// and mixtures, so segment heads fall on every position of a warp, a block and a tile.
TEST(CudaScanSegmentedLengths, ExactLengthsEveryRung) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  const std::size_t n = std::min<std::size_t>(300007, scan_max_n());
  std::vector<std::vector<std::size_t>> patterns;
  for (std::size_t l :
       {1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 2047, 2049, 4095, 4097, 8193, 100000})
    patterns.push_back({l});
  patterns.push_back({std::max<std::size_t>(n, 2) - 1});  // one long segment, one of length 1
  patterns.push_back({1, 2, 31, 32, 33});
  patterns.push_back({1, 1000, 3, 4096, 17});
  patterns.push_back({5000, 1, 1, 1, 70000});
  patterns.push_back({33, 2049, 1});
  for (const auto& lengths : patterns) {
    check_lengths<AffineCompose>(seed, n, lengths);
    check_lengths<Int8PlusInt32>(seed, n, lengths);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace parprim_cuda_test::scans
