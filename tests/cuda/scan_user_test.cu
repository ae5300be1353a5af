/// \file
/// \brief inclusive_scan / exclusive_scan through parprim::cuda from a .cu translation unit
/// (nvcc instantiates the kernels): what the library does not precompile. int8 into int32
/// (the accumulator is the output's type), and user structs with device-callable operators:
/// the NON-commutative 2x2 matrix product and affine-map composition (every rung keeps
/// sequence order, so every rung must give the sequential left fold exactly) and a vec3
/// struct with plus, minimum and maximum. Every rung, the sizes of scan_sizes() (10^7 for
/// int8 -> int32 and affine composition), inclusive and exclusive with a random init, in place
/// and out of place (where the types agree), poisoned outputs with guards. Segmented scans of
/// the same cases are in scan_segmented_test.cu. Narrow inputs (int8, uint8, int16 into 4-byte
/// accumulators, int8 and int32 into int64) at aligned and misaligned offsets, every rung.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test::scans {
namespace {

using namespace cases;  // NOLINT: the case names read as the test matrix

template <class Case>
class CudaScanUser : public ::testing::Test {};
using user_cases =
    ::testing::Types<Int8PlusInt32, Mat2Product, AffineCompose, Vec3Plus, Vec3Min, Vec3Max>;
TYPED_TEST_SUITE(CudaScanUser, user_cases);

template <class Case>
constexpr bool at_ten_million =
    std::is_same_v<Case, Int8PlusInt32> || std::is_same_v<Case, AffineCompose>;

TYPED_TEST(CudaScanUser, InclusiveAndExclusiveEveryRungAndSize) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  sweep<TypeParam>(seed, scan_sizes(seed, at_ten_million<TypeParam>), sweep_options{});
}

// In place needs one element type: int8 input over the int32 output's own bytes is a partial
// overlap, refused before anything is written.
TEST(CudaScanUserEdge, InPlaceAcrossWidthsIsRefused) {
  PARPRIM_SKIP_WITHOUT_GPU();
  constexpr std::size_t n = 1000;
  guarded_device_buffer<std::int32_t> out(n);
  out.poison(n);
  const parprim::device_span<const std::int8_t> bytes(
      reinterpret_cast<const std::int8_t*>(out.body().data()), n);
  const std::vector<std::int32_t> poison(n, pt::byte_pattern<std::int32_t>(pt::poison_byte));
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    EXPECT_THROW(parprim::inclusive_scan(rung.on(test_stream()), bytes, out.body()),
                 parprim::invalid_argument)
        << scan_rung_name(rung);
    EXPECT_THROW(parprim::exclusive_scan(rung.on(test_stream()), bytes, out.body(), std::int32_t(1),
                                         parprim::plus{}),
                 parprim::invalid_argument)
        << scan_rung_name(rung);
    EXPECT_TRUE(device_unchanged(out, poison)) << scan_rung_name(rung);
  });
}

// A .cu translation unit uses the precompiled instantiations for the built-in combinations
// (extern templates) and instantiates the rest: both in one file, results as from g++.
TEST(CudaScanUserEdge, PrecompiledAndInstantiatedSideBySide) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  sweep_options o;
  o.segmented = true;
  o.densities = {density::third};
  std::vector<std::size_t> sizes;
  for (std::size_t n : {0, 1, 33, 4097, 100003})
    if (n <= scan_max_n()) sizes.push_back(n);
  sweep<Int32Plus>(seed, sizes, o);
  sweep<Uint64Max>(seed, sizes, o);
}

/// \brief On every rung: the inclusive scan of `src` into `dst` equals `want_incl`, and the
/// exclusive one from `init` equals `want_excl` (fatal failures stop the sweep).
template <class In, class T, class Op>
void expect_scans_on_every_rung(parprim::device_span<const In> src, parprim::device_span<T> dst,
                                const T& init, Op op, const std::vector<T>& want_incl,
                                const std::vector<T>& want_excl) {
  const std::size_t n = src.size();
  for_each_scan_rung([&](const auto& rung, std::size_t) {
    if (::testing::Test::HasFatalFailure()) return;
    std::vector<T> got(n);
    parprim::inclusive_scan(rung.on(test_stream()), src, dst, op);
    ASSERT_EQ(cudaMemcpy(got.data(), dst.data(), n * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    ASSERT_TRUE(got == want_incl) << scan_rung_name(rung) << ", inclusive";
    parprim::exclusive_scan(rung.on(test_stream()), src, dst, init, op);
    ASSERT_EQ(cudaMemcpy(got.data(), dst.data(), n * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    ASSERT_TRUE(got == want_excl) << scan_rung_name(rung) << ", exclusive";
  });
}

/// \brief A struct of uint32 words (aligned to 4 bytes) at every 4-byte offset of input and
/// output: 16-byte aligned runs move as 16-byte words (and rung 6 stages them by bulk copies),
/// the others element by element; every rung must give the sequential fold either way.
template <class Case>
void check_struct_at_word_offsets(std::uint64_t seed, std::initializer_list<std::size_t> ns) {
  using T = typename Case::acc_t;
  using Op = typename Case::op_t;
  static_assert(sizeof(T) % 4 == 0 && alignof(T) == 4);
  constexpr std::size_t words = sizeof(T) / 4;
  SCOPED_TRACE(Case::name);
  std::vector<std::size_t> sizes;
  for (std::size_t n : ns)
    if (n <= scan_max_n()) sizes.push_back(n);
  for (const std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n, words);
    std::vector<T> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = Case::gen(r, i);
    const T init = Case::gen(r, n);
    std::vector<T> want_incl(n), want_excl(n);
    parprim::inclusive_scan(parprim::seq, host, want_incl, Op{});
    parprim::exclusive_scan(parprim::seq, host, want_excl, init, Op{});
    parprim::device_buffer<std::uint32_t> in_words(words * n + 4), out_words(words * n + 4);
    for (std::size_t in_off = 0; in_off < 4; ++in_off) {
      const std::size_t out_off = (in_off + 1) % 4;
      SCOPED_TRACE("input at byte " + std::to_string(4 * in_off) + ", output at byte " +
                   std::to_string(4 * out_off));
      auto* in = reinterpret_cast<T*>(in_words.data() + in_off);
      auto* out = reinterpret_cast<T*>(out_words.data() + out_off);
      ASSERT_EQ(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
      const parprim::device_span<const T> src(in, n);
      const parprim::device_span<T> dst(out, n);
      expect_scans_on_every_rung(src, dst, init, Op{}, want_incl, want_excl);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// 8-byte affine maps (two uint32) and 16-byte 2x2 matrices (four uint32), around their rung-6
// tiles (3584 and 1792 elements).
TEST(CudaScanUserEdge, WordStructsAtEveryFourByteAlignment) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  check_struct_at_word_offsets<AffineCompose>(seed, {1, 2, 33, 3583, 3585, 40000, 250001});
  check_struct_at_word_offsets<Mat2Product>(seed, {1, 2, 33, 1791, 1793, 3585, 40000, 250001});
}

/// \brief Inputs narrower than the accumulator (In into Acc with Op) at byte offsets of input
/// and output that are and are not 16-byte aligned: the default rung stages them in a region
/// of their own by bulk copies where the run is aligned, and element by element where it is
/// not; every rung must give the sequential fold.
template <class In, class Acc, class Op>
void check_narrow_at_offsets(std::uint64_t seed, const char* what) {
  SCOPED_TRACE(what);
  std::vector<std::size_t> sizes;
  for (std::size_t n : {1, 2, 31, 33, 3583, 3585, 7167, 7168, 7169, 14337, 100003, 250001})
    if (n <= scan_max_n()) sizes.push_back(n);
  for (const std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n, sizeof(In) * 16 + sizeof(Acc));
    std::vector<In> host(n);
    for (auto& x : host) x = full_range<In>(r);
    const Acc init = static_cast<Acc>(pt::uniform_int<int>(r, -1000, 1000));
    std::vector<Acc> want_incl(n), want_excl(n);
    parprim::inclusive_scan(parprim::seq, host, want_incl, Op{});
    parprim::exclusive_scan(parprim::seq, host, want_excl, init, Op{});
    parprim::device_buffer<In> in_buf(n + 16);
    parprim::device_buffer<Acc> out_buf(n + 4);
    for (const std::size_t in_off : {std::size_t{0}, std::size_t{1}, 16 / sizeof(In) - 1}) {
      const std::size_t out_off = in_off % 4;
      SCOPED_TRACE("input at element " + std::to_string(in_off) + ", output at element " +
                   std::to_string(out_off));
      In* in = in_buf.data() + in_off;
      Acc* out = out_buf.data() + out_off;
      ASSERT_EQ(cudaMemcpy(in, host.data(), n * sizeof(In), cudaMemcpyHostToDevice), cudaSuccess);
      const parprim::device_span<const In> src(in, n);
      const parprim::device_span<Acc> dst(out, n);
      expect_scans_on_every_rung(src, dst, init, Op{}, want_incl, want_excl);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(CudaScanUserEdge, NarrowInputsAtAlignedAndMisalignedOffsets) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  check_narrow_at_offsets<std::int8_t, std::int32_t, parprim::plus>(seed, "int8 -> int32 plus");
  check_narrow_at_offsets<std::uint8_t, std::uint32_t, parprim::maximum>(seed,
                                                                         "uint8 -> uint32 maximum");
  check_narrow_at_offsets<std::int16_t, std::int32_t, parprim::minimum>(seed,
                                                                        "int16 -> int32 minimum");
  check_narrow_at_offsets<std::int8_t, std::int64_t, parprim::plus>(seed, "int8 -> int64 plus");
  check_narrow_at_offsets<std::int32_t, std::int64_t, parprim::plus>(seed, "int32 -> int64 plus");
}

}  // namespace
}  // namespace parprim_cuda_test::scans
