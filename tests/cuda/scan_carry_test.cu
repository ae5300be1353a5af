/// \file
/// \brief The `carry` operand of the detail entries parprim::detail::cuda::scan and
/// segmented_scan (backends/cuda/detail/scan_entry.hpp), which the MPI backend uses for the
/// prefix of the ranks on the left: a scan of `in` with carry c must equal the scan of
/// [c] ++ in without its first element, for every rung, plain and segmented, inclusive and
/// exclusive (exclusive: `init op c op in[0] ...`), in place and out of place. Segmented: the
/// carry continues the first segment, which starts at in[0] only if flags[0] != 0; so the
/// reference scans [c] ++ in with flags [1] ++ flags, and both flags[0] = 0 and flags[0] != 0
/// are run. The non-commutative cases (affine composition, 2x2 matrix product) show the carry
/// is applied on the left; int8 into int32 shows it has the accumulator's type; int32 plus goes
/// through the precompiled instantiations, float plus is compared within the bound.

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/backends/cuda/detail/scan_dispatch.cuh>
#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test::scans {
namespace {

using namespace cases;  // NOLINT: the case names read as the test matrix
namespace pdc = parprim::detail::cuda;

template <class Case>
class CudaScanCarry : public ::testing::Test {};
using carry_cases = ::testing::Types<Int32Plus, Int8PlusInt32, FloatPlus, AffineCompose,
                                     Mat2Product, FloatMinSpecial, DoubleMaxSpecial>;
TYPED_TEST_SUITE(CudaScanCarry, carry_cases);

/// The detail call for `v` with rung `Policy::scan_rung`, carry `c` and (exclusive) `init`.
template <class Policy, class In, class Acc, class Op>
void call_detail(const Policy&, const variant& v, const In* in, const std::uint8_t* flags, Acc* out,
                 std::size_t n, const Acc& init, const Acc* carry, Op op) {
  const pdc::launch_options options{test_stream(), -1};
  const pdc::scan_kind kind = v.exclusive ? pdc::scan_kind::exclusive : pdc::scan_kind::inclusive;
  const Acc* init_ptr = v.exclusive ? &init : nullptr;
  if (v.segmented)
    pdc::segmented_scan<Policy::scan_rung, In, Acc, Op>(options, in, flags, out, n, kind, init_ptr,
                                                        carry, op);
  else
    pdc::scan<Policy::scan_rung, In, Acc, Op>(options, in, out, n, kind, init_ptr, carry, op);
}

TYPED_TEST(CudaScanCarry, EqualsTheScanOfCarryThenInput) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using Case = TypeParam;
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  using Op = typename Case::op_t;
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  std::vector<std::size_t> sizes;
  for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 1023, 1025, 2049, 4097, 65537, 1000003})
    if (n <= scan_max_n()) sizes.push_back(n);
  const std::size_t capacity = sizes.back();
  guarded_device_buffer<In> d_in(capacity);
  guarded_device_buffer<std::uint8_t> d_flags(capacity);
  guarded_device_buffer<Acc> d_out(capacity);
  constexpr bool can_in_place = std::is_same_v<In, Acc>;
  for (std::size_t n : sizes) {
    SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n);
    const std::vector<In> in = pt::make_input<Case>(r, n);
    const Acc init = Case::init(r);
    // The carry is an accumulator value (a fold of elements before in[0]); for int8 -> int32
    // one outside int8's range shows it is not narrowed.
    Acc carry = Case::init(r);
    if constexpr (std::is_same_v<Case, Int8PlusInt32>) carry = 100000 + pt::uniform_int(r, 0, 999);
    std::vector<Acc> ext(n + 1);  // [carry] ++ in, in the accumulator type
    ext[0] = carry;
    for (std::size_t i = 0; i < n; ++i) ext[i + 1] = static_cast<Acc>(in[i]);
    d_in.fill(in);
    std::vector<variant> variants = {variant{false, false, density::none},
                                     variant{false, true, density::none}};
    for (bool exclusive : {false, true})
      for (density d : pt::all_densities) variants.push_back(variant{true, exclusive, d});
    for (const variant& v : variants) {
      for (int first_flag : {0, 1}) {
        if (!v.segmented && first_flag) continue;
        SCOPED_TRACE(describe(v, init) + ", carry " + pt::show(carry) +
                     (v.segmented ? (first_flag ? ", flags[0] set" : ", flags[0] clear") : ""));
        std::vector<std::uint8_t> flags, ext_flags;
        if (v.segmented) {
          pt::rng_t fr = pt::make_rng(seed, n, 1 + static_cast<std::uint64_t>(v.flags));
          flags = pt::make_flags(fr, n, v.flags);
          if (n > 0) flags[0] = static_cast<std::uint8_t>(first_flag ? 0x80 : 0);
          ext_flags.assign(1, 1);
          ext_flags.insert(ext_flags.end(), flags.begin(), flags.end());
          d_flags.fill(flags);
        }
        // The reference: [carry] ++ in scanned in the accumulator type (the carry case of the
        // reference reads elements as Acc; int8 -> int32 plus gives the same sums).
        struct ext_case : Case {
          using in_t = Acc;
        };
        const auto full = pt::reference<ext_case>::scan(
            std::span<const Acc>(ext), v.segmented ? ext_flags.data() : nullptr, v.exclusive, init);
        const auto want = drop_first(full);
        for_each_scan_rung([&](const auto& rung, std::size_t) {
          if (::testing::Test::HasFatalFailure()) return;
          for (bool in_place : {false, true}) {
            if (in_place && !can_in_place) continue;
            const In* src = d_in.body().data();
            if constexpr (can_in_place) {
              if (in_place) {
                d_out.fill(in);
                src = d_out.body().data();
              }
            }
            if (!in_place) d_out.poison(n);
            call_detail(rung, v, src, d_flags.body().data(), d_out.body().data(), n, init, &carry,
                        Op{});
            const std::vector<Acc> got = d_out.read_all();
            ASSERT_TRUE(pt::matches(want, std::span<const Acc>(got)))
                << scan_rung_name(rung) << (in_place ? ", in place" : ", out of place");
          }
        });
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Without a carry the detail entries give what the public calls give (the carry is optional).
TEST(CudaScanCarryEdge, NullCarryIsNoCarry) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = pt::test_seed();
  SCOPED_TRACE(pt::seed_trace(seed));
  constexpr std::size_t n = 70001;
  pt::rng_t r = pt::make_rng(seed, n);
  const std::vector<affine> in = pt::make_input<AffineCompose>(r, n);
  const affine init = AffineCompose::init(r);
  const std::vector<std::uint8_t> flags = pt::make_flags(r, n, density::thousandth);
  guarded_device_buffer<affine> d_in(n), d_out(n);
  guarded_device_buffer<std::uint8_t> d_flags(n);
  d_in.fill(in);
  d_flags.fill(flags);
  for (const variant v :
       {variant{false, false, density::none}, variant{false, true, density::none},
        variant{true, false, density::thousandth}, variant{true, true, density::thousandth}}) {
    SCOPED_TRACE(describe(v, init));
    const auto want = pt::reference<AffineCompose>::scan(
        std::span<const affine>(in), v.segmented ? flags.data() : nullptr, v.exclusive, init);
    for_each_scan_rung([&](const auto& rung, std::size_t) {
      d_out.poison(n);
      call_detail(rung, v, d_in.body().data(), d_flags.body().data(), d_out.body().data(), n, init,
                  static_cast<const affine*>(nullptr), affine_compose{});
      const std::vector<affine> got = d_out.read_all();
      EXPECT_TRUE(pt::matches(want, std::span<const affine>(got))) << scan_rung_name(rung);
    });
  }
}

}  // namespace
}  // namespace parprim_cuda_test::scans
