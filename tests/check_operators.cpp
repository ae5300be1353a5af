/// \file
/// \brief The operator checker (check_operators.hpp), on in this translation unit: operators
/// that break their laws are reported by every primitive on every backend before anything is
/// written; lawful ones pass. Whether it is on by default is checked in semantics.cpp.

#ifndef PARPRIM_CHECK_OPERATORS
#define PARPRIM_CHECK_OPERATORS 1
#endif

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/backends.hpp"
#include "support/cases.hpp"
#include "support/harness.hpp"

namespace parprim_test {
namespace {

struct minus_op {
  int operator()(int a, int b) const { return a - b; }
};
struct average_op {
  double operator()(double a, double b) const { return (a + b) / 2; }
};
/// Associative, not commutative, but declares that it is.
struct mat2_declared_commutative {
  static constexpr bool is_commutative = true;
  mat2 operator()(const mat2& l, const mat2& r) const { return mat2_multiply{}(l, r); }
};
/// Associative and commutative, with a wrong identity (declared below).
struct max_with_bad_identity {
  static constexpr bool is_commutative = true;
  int operator()(int a, int b) const { return a < b ? b : a; }
};

}  // namespace
}  // namespace parprim_test

template <>
struct parprim::identity<parprim_test::max_with_bad_identity, int> {
  static constexpr int value() { return 0; }  // not below negative values
};

namespace parprim_test {
namespace {

template <class B>
class CheckOperators : public ::testing::Test {};
TYPED_TEST_SUITE(CheckOperators, backends);

/// Every primitive with `op` on `in` must raise invalid_argument naming `law`, writing nothing.
template <class Policy, class T, class Op>
void expect_caught(const Policy& policy, const std::vector<T>& in, Op op, const std::string& law) {
  const std::vector<std::uint8_t> heads(in.size(), 0);
  std::vector<T> out(in.size(), in.front());
  const std::vector<T> before = out;
  const auto check = [&](const char* fn, auto call) {
    SCOPED_TRACE(fn);
    try {
      call();
      ADD_FAILURE() << "no exception";
    } catch (const parprim::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(law), std::string::npos) << what;
      EXPECT_NE(what.find(fn), std::string::npos) << what;
    }
    EXPECT_TRUE(bitwise_equal(out, before)) << "written before the error";
  };
  check("reduce", [&] { (void)parprim::reduce(policy, in, in[0], op); });
  check("inclusive_scan", [&] { parprim::inclusive_scan(policy, in, out, op); });
  check("exclusive_scan", [&] { parprim::exclusive_scan(policy, in, out, in[1], op); });
  check("segmented_inclusive_scan",
        [&] { parprim::segmented_inclusive_scan(policy, in, heads, out, op); });
  check("segmented_exclusive_scan",
        [&] { parprim::segmented_exclusive_scan(policy, in, heads, out, in[1], op); });
  check("segmented_reduce",
        [&] { (void)parprim::segmented_reduce(policy, in, heads, out, in[1], op); });
  const std::vector<std::size_t> offsets = {0, in.size() / 2, in.size()};
  check("segmented_reduce", [&] {
    parprim::segmented_reduce(policy, in, parprim::offsets(offsets), std::span<T>(out).first(2),
                              in[1], op);
  });
  std::vector<std::uint8_t> keys_out(in.size());
  check("reduce_by_key",
        [&] { (void)parprim::reduce_by_key(policy, heads, in, keys_out, out, op); });
  check("inclusive_scan_by_key",
        [&] { parprim::inclusive_scan_by_key(policy, heads, in, out, op); });
  check("exclusive_scan_by_key",
        [&] { parprim::exclusive_scan_by_key(policy, heads, in, out, in[1], op); });
}

TYPED_TEST(CheckOperators, CatchesBrokenLaws) {
  rng_t r(test_seed());
  std::vector<int> ints(1000);
  for (auto& x : ints) x = uniform_int<int>(r, -1000, 1000);
  std::vector<double> reals(1000);
  for (auto& x : reals) x = uniform_real<double>(r, -1.0, 1.0);
  std::vector<mat2> mats(1000);
  for (auto& m : mats)
    m = {uniform_int<std::uint32_t>(r, 0, 9), uniform_int<std::uint32_t>(r, 0, 9),
         uniform_int<std::uint32_t>(r, 0, 9), uniform_int<std::uint32_t>(r, 0, 9)};
  for_each_policy<TypeParam>([&](const auto& p) {
    expect_caught(p.policy, ints, minus_op{}, "associativity");
    expect_caught(p.policy, reals, average_op{}, "associativity");
    expect_caught(p.policy, mats, mat2_declared_commutative{}, "commutativity");
    expect_caught(p.policy, ints, max_with_bad_identity{}, "identity");
  });
}

TYPED_TEST(CheckOperators, NamesTheOperatorAndTheOperands) {
  const std::vector<int> v = {5, 3, 1, 7};
  try {
    (void)parprim::reduce(parprim::seq, v, 0, minus_op{});
    ADD_FAILURE() << "no exception";
  } catch (const parprim::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("minus_op"), std::string::npos) << what;
    EXPECT_NE(what.find("for a = "), std::string::npos) << what;
  }
}

TYPED_TEST(CheckOperators, LawfulOperatorsPass) {
  rng_t r(test_seed());
  std::vector<double> reals(5000);
  for (auto& x : reals) x = uniform_real<double>(r, -1e6, 1e6);
  std::vector<float> specials(5000);
  for (auto& x : specials) x = special_value<float>(r);
  std::vector<mat2> mats(5000);
  for (auto& m : mats)
    m = {static_cast<std::uint32_t>(r()), static_cast<std::uint32_t>(r()),
         static_cast<std::uint32_t>(r()), static_cast<std::uint32_t>(r())};
  std::vector<std::int64_t> ints(5000);
  for (auto& x : ints) x = uniform_int<std::int64_t>(r, -(1LL << 40), 1LL << 40);
  for_each_policy<TypeParam>([&](const auto& p) {
    std::vector<double> out(reals.size());
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, reals, 0.0, parprim::plus{}));
    EXPECT_NO_THROW(parprim::inclusive_scan(p.policy, reals, out, parprim::plus{}));
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, specials, 0.0f, parprim::minimum{}));
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, specials, 0.0f, parprim::maximum{}));
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, mats, mats[0], mat2_multiply{}));
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, ints, std::int64_t{0}, parprim::plus{}));
    EXPECT_NO_THROW((void)parprim::reduce(p.policy, ints, std::int64_t{0}, parprim::bit_xor{}));
    std::vector<std::uint8_t> heads(mats.size(), 0);
    for (std::size_t i = 0; i < heads.size(); i += 7) heads[i] = 1;
    std::vector<mat2> mat_out(mats.size());
    std::vector<std::uint8_t> keys_out(mats.size());
    EXPECT_NO_THROW(
        (void)parprim::segmented_reduce(p.policy, mats, heads, mat_out, mats[0], mat2_multiply{}));
    EXPECT_NO_THROW(
        (void)parprim::reduce_by_key(p.policy, heads, mats, keys_out, mat_out, mat2_multiply{}));
    EXPECT_NO_THROW(parprim::inclusive_scan_by_key(p.policy, heads, reals, out, parprim::plus{}));
  });
}

}  // namespace
}  // namespace parprim_test
