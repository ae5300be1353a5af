#pragma once
/// \file
/// \brief The user types, user operators and the (type, operator) cases every primitive is
/// tested with.
///
/// The matrix (in -> accumulator, operator; value range and why it cannot overflow):
///
/// | case               | in -> acc          | op                 | values, overflow |
/// |--------------------|--------------------|--------------------|---------------------------------|
/// | Int8PlusInt32      | int8 -> int32      | plus               | full int8; |sum| <=
/// 2^7*(2^22+2)| | Int8PlusInt64      | int8 -> int64      | plus               | full int8 | |
/// Int8Min / Int8Max  | int8               | minimum / maximum  | full range                      |
/// | Int32Plus          | int32              | plus               | [-255,255], init [-1000,1000]:
/// | |                    |                    |                    | |sum| <= 255*(2^22+2)+1000
/// <2^31| | Int32Min / Max     | int32              | minimum / maximum  | full range | | Int64Plus
/// | int64              | plus               | [-2^40,2^40]: |sum| < 2^63      | | Int64Min / Max
/// | int64              | minimum / maximum  | full range                      | | Uint32Plus |
/// uint32             | plus               | full range, wraps (defined)     | | Uint32Min / Max |
/// uint32             | minimum / maximum  | full range                      | | Uint32Multiplies
/// | uint32             | multiplies         | odd values (product never 0)    | |
/// Uint32BitAnd/Or/Xor| uint32             | bit_and/or/xor     | sparse bits / random            |
/// | FloatPlus          | float              | plus               | [-1,1): bounded error (harness)
/// | | FloatPlusExact     | float              | plus               | integers in [-3,3]: every |
/// |                    |                    |                    | partial sum < 2^24, exact | |
/// FloatMin / Max     | float              | minimum / maximum  | [-1e3,1e3), exact               |
/// | DoublePlus         | double             | plus               | [-1e6,1e6): bounded error | |
/// DoublePlusExact    | double             | plus               | integers in [-2^28,2^28]: exact |
/// | DoubleMin / Max    | double             | minimum / maximum  | exact | | Vec3Plus           |
/// vec3 (user struct) | vec3_plus (user op,| int64 fields, |x|,|y| <= 8,    | | | | member trait)
/// | |z| <= 2^40                     | | Vec3Min / Max      | vec3               | minimum /
/// maximum  | lexicographic, many ties        | | Mat2Product        | mat2 (uint32)      |
/// mat2_multiply      | NON-commutative, wraps          | | AffineCompose      | affine (uint32) |
/// affine_compose     | NON-commutative, wraps          | | Argmin             | arg (float, index)
/// | argmin (trait      | values from 32 levels: ties     | |                    | |
/// specialisation)    | resolved by the lower index     |
///
/// Every type and every operator appears; both non-commutative operators run through reduce,
/// both scans and both segmented scans. No case draws only zeros or only ones.

#include <bit>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include <parprim/operators.hpp>

#include "harness.hpp"

namespace parprim_test {

// --- user types and operators ---------------------------------------------------------------

/// \brief A user struct with its own + and a defaulted ordering (lexicographic).
struct vec3 {
  std::int64_t x, y, z;
  friend vec3 operator+(const vec3& a, const vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend bool operator==(const vec3&, const vec3&) = default;
  friend auto operator<=>(const vec3&, const vec3&) = default;
  friend std::ostream& operator<<(std::ostream& os, const vec3& v) {
    return os << "{" << v.x << ", " << v.y << ", " << v.z << "}";
  }
};

/// \brief A user operator declaring itself commutative with a member.
struct vec3_plus {
  static constexpr bool is_commutative = true;
  vec3 operator()(const vec3& a, const vec3& b) const { return a + b; }
};

/// \brief 2x2 matrix [a b; c d] of uint32 (arithmetic mod 2^32).
struct mat2 {
  std::uint32_t a, b, c, d;
  friend bool operator==(const mat2&, const mat2&) = default;
  friend std::ostream& operator<<(std::ostream& os, const mat2& m) {
    return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
  }
};

/// \brief Matrix product l * r: associative, not commutative (no trait).
struct mat2_multiply {
  mat2 operator()(const mat2& l, const mat2& r) const {
    return {l.a * r.a + l.b * r.c, l.a * r.b + l.b * r.d, l.c * r.a + l.d * r.c,
            l.c * r.b + l.d * r.d};
  }
};

/// \brief The map x -> a * x + b (mod 2^32).
struct affine {
  std::uint32_t a, b;
  friend bool operator==(const affine&, const affine&) = default;
  friend std::ostream& operator<<(std::ostream& os, const affine& f) {
    return os << "x -> " << f.a << "x + " << f.b;
  }
};

/// \brief compose(f, g) = "f, then g": x -> g.a * (f.a * x + f.b) + g.b. Not commutative.
struct affine_compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

/// \brief A value and where it was.
struct arg {
  float value;
  std::uint32_t index;
  friend bool operator==(const arg&, const arg&) = default;
  friend std::ostream& operator<<(std::ostream& os, const arg& v) {
    return os << "{" << v.value << " @ " << v.index << "}";
  }
};

/// \brief Argmin, ties to the lower index: associative and commutative, which it declares by
/// specialising parprim::operator_traits (below) rather than with a member.
struct argmin {
  arg operator()(const arg& l, const arg& r) const {
    if (r.value < l.value) return r;
    if (l.value < r.value) return l;
    return r.index < l.index ? r : l;
  }
};

}  // namespace parprim_test

template <>
struct parprim::operator_traits<parprim_test::argmin> {
  static constexpr bool is_commutative = true;
};

namespace parprim_test {

static_assert(parprim::is_commutative_v<vec3_plus>, "member trait");
static_assert(parprim::is_commutative_v<argmin>, "specialised trait");
static_assert(!parprim::is_commutative_v<mat2_multiply>, "no trait: not commutative");
static_assert(!parprim::is_commutative_v<affine_compose>, "no trait: not commutative");

// --- cases -----------------------------------------------------------------------------------
// A case: in_t, acc_t, op_t, approximate (float plus: compare within the harness's bound),
// gen(rng, index) -> in_t, init(rng) -> acc_t (for reduce and exclusive scans).

template <class In, class Acc, class Op, bool Approx = false>
struct case_base {
  using in_t = In;
  using acc_t = Acc;
  using op_t = Op;
  static constexpr bool approximate = Approx;
};

template <class I>
I full_range(rng_t& r) {
  return uniform_int<I>(r, std::numeric_limits<I>::min(), std::numeric_limits<I>::max());
}

namespace cases {
using std::int32_t, std::int64_t, std::int8_t, std::uint32_t;

struct Int8PlusInt32 : case_base<int8_t, int32_t, parprim::plus> {
  static int8_t gen(rng_t& r, std::size_t) { return full_range<int8_t>(r); }
  static int32_t init(rng_t& r) { return uniform_int<int32_t>(r, -1000, 1000); }
};
struct Int8PlusInt64 : case_base<int8_t, int64_t, parprim::plus> {
  static int8_t gen(rng_t& r, std::size_t) { return full_range<int8_t>(r); }
  static int64_t init(rng_t& r) {
    return uniform_int<int64_t>(r, -(int64_t{1} << 40), int64_t{1} << 40);
  }
};
template <class T, class Op>
struct full_range_case : case_base<T, T, Op> {
  static T gen(rng_t& r, std::size_t) { return full_range<T>(r); }
  static T init(rng_t& r) { return full_range<T>(r); }
};
struct Int8Min : full_range_case<int8_t, parprim::minimum> {};
struct Int8Max : full_range_case<int8_t, parprim::maximum> {};
struct Int32Plus : case_base<int32_t, int32_t, parprim::plus> {
  static int32_t gen(rng_t& r, std::size_t) { return uniform_int<int32_t>(r, -255, 255); }
  static int32_t init(rng_t& r) { return uniform_int<int32_t>(r, -1000, 1000); }
};
struct Int32Min : full_range_case<int32_t, parprim::minimum> {};
struct Int32Max : full_range_case<int32_t, parprim::maximum> {};
struct Int64Plus : case_base<int64_t, int64_t, parprim::plus> {
  static int64_t gen(rng_t& r, std::size_t) {
    return uniform_int<int64_t>(r, -(int64_t{1} << 40), int64_t{1} << 40);
  }
  static int64_t init(rng_t& r) { return gen(r, 0); }
};
struct Int64Min : full_range_case<int64_t, parprim::minimum> {};
struct Int64Max : full_range_case<int64_t, parprim::maximum> {};
struct Uint32Plus : full_range_case<uint32_t, parprim::plus> {};
struct Uint32Min : full_range_case<uint32_t, parprim::minimum> {};
struct Uint32Max : full_range_case<uint32_t, parprim::maximum> {};
struct Uint32Multiplies : case_base<uint32_t, uint32_t, parprim::multiplies> {
  static uint32_t gen(rng_t& r, std::size_t) { return full_range<uint32_t>(r) | 1u; }
  static uint32_t init(rng_t& r) { return gen(r, 0); }
};
struct Uint32BitAnd : case_base<uint32_t, uint32_t, parprim::bit_and> {
  // mostly all-ones with one bit cleared, sometimes two: the running AND loses bits slowly
  static uint32_t gen(rng_t& r, std::size_t) {
    return ~((1u << uniform_int<uint32_t>(r, 0, 31)) | (1u << uniform_int<uint32_t>(r, 0, 31)));
  }
  static uint32_t init(rng_t& r) { return gen(r, 0); }
};
struct Uint32BitOr : case_base<uint32_t, uint32_t, parprim::bit_or> {
  static uint32_t gen(rng_t& r, std::size_t) { return 1u << uniform_int<uint32_t>(r, 0, 31); }
  static uint32_t init(rng_t& r) { return gen(r, 0); }
};
struct Uint32BitXor : full_range_case<uint32_t, parprim::bit_xor> {};
struct FloatPlus : case_base<float, float, parprim::plus, true> {
  static float gen(rng_t& r, std::size_t) { return uniform_real<float>(r, -1.0f, 1.0f); }
  static float init(rng_t& r) { return gen(r, 0); }
};
struct FloatPlusExact : case_base<float, float, parprim::plus> {
  static float gen(rng_t& r, std::size_t) { return static_cast<float>(uniform_int<int>(r, -3, 3)); }
  static float init(rng_t& r) { return gen(r, 0); }
};
struct FloatMin : case_base<float, float, parprim::minimum> {
  static float gen(rng_t& r, std::size_t) { return uniform_real<float>(r, -1e3f, 1e3f); }
  static float init(rng_t& r) { return gen(r, 0); }
};
struct FloatMax : FloatMin {
  using op_t = parprim::maximum;
};
struct DoublePlus : case_base<double, double, parprim::plus, true> {
  static double gen(rng_t& r, std::size_t) { return uniform_real<double>(r, -1e6, 1e6); }
  static double init(rng_t& r) { return gen(r, 0); }
};
struct DoublePlusExact : case_base<double, double, parprim::plus> {
  static double gen(rng_t& r, std::size_t) {
    return static_cast<double>(uniform_int<int64_t>(r, -(int64_t{1} << 28), int64_t{1} << 28));
  }
  static double init(rng_t& r) { return gen(r, 0); }
};
struct DoubleMin : case_base<double, double, parprim::minimum> {
  static double gen(rng_t& r, std::size_t) { return uniform_real<double>(r, -1e300, 1e300); }
  static double init(rng_t& r) { return gen(r, 0); }
};
struct DoubleMax : DoubleMin {
  using op_t = parprim::maximum;
};
struct FloatMinSpecial : case_base<float, float, parprim::minimum> {
  static float gen(rng_t& r, std::size_t) { return special_value<float>(r); }
  static float init(rng_t& r) { return gen(r, 0); }
};
struct FloatMaxSpecial : FloatMinSpecial {
  using op_t = parprim::maximum;
};
struct DoubleMinSpecial : case_base<double, double, parprim::minimum> {
  static double gen(rng_t& r, std::size_t) { return special_value<double>(r); }
  static double init(rng_t& r) { return gen(r, 0); }
};
struct DoubleMaxSpecial : DoubleMinSpecial {
  using op_t = parprim::maximum;
};
/// Elements are converted to the accumulator type before they meet the operator (truncation
/// toward zero here), on every backend; |sum| <= 100 (2^22 + 2) + 1000 < 2^31.
struct DoubleIntoInt32Plus : case_base<double, int32_t, parprim::plus> {
  static double gen(rng_t& r, std::size_t) { return uniform_real<double>(r, -100.9, 100.9); }
  static int32_t init(rng_t& r) { return uniform_int<int32_t>(r, -1000, 1000); }
};
template <class Op>
struct vec3_case : case_base<vec3, vec3, Op> {
  static vec3 gen(rng_t& r, std::size_t) {
    return {uniform_int<int64_t>(r, -8, 8), uniform_int<int64_t>(r, -8, 8),
            uniform_int<int64_t>(r, -(int64_t{1} << 40), int64_t{1} << 40)};
  }
  static vec3 init(rng_t& r) { return gen(r, 0); }
};
struct Vec3Plus : vec3_case<vec3_plus> {};
struct Vec3Min : vec3_case<parprim::minimum> {};
struct Vec3Max : vec3_case<parprim::maximum> {};
struct Mat2Product : case_base<mat2, mat2, mat2_multiply> {
  static mat2 gen(rng_t& r, std::size_t) {
    return {full_range<uint32_t>(r), full_range<uint32_t>(r), full_range<uint32_t>(r),
            full_range<uint32_t>(r)};
  }
  static mat2 init(rng_t& r) { return gen(r, 0); }
};
struct AffineCompose : case_base<affine, affine, affine_compose> {
  static affine gen(rng_t& r, std::size_t) {
    return {full_range<uint32_t>(r), full_range<uint32_t>(r)};
  }
  static affine init(rng_t& r) { return gen(r, 0); }
};
struct Argmin : case_base<arg, arg, argmin> {
  static arg gen(rng_t& r, std::size_t i) {
    return {static_cast<float>(uniform_int<int>(r, 0, 31)) * 0.25f, static_cast<uint32_t>(i)};
  }
  static arg init(rng_t& r) {
    return {static_cast<float>(uniform_int<int>(r, 0, 31)) * 0.25f,
            std::numeric_limits<uint32_t>::max()};
  }
};
}  // namespace cases

}  // namespace parprim_test

// --- the lists test bodies expand (X-macro: X(CaseName)) --------------------------------------

#define PARPRIM_TEST_CASES_INTEGER(X) \
  X(Int8PlusInt32)                    \
  X(Int8PlusInt64)                    \
  X(Int8Min)                          \
  X(Int8Max)                          \
  X(Int32Plus)                        \
  X(Int32Min)                         \
  X(Int32Max)                         \
  X(Int64Plus)                        \
  X(Int64Min)                         \
  X(Int64Max)                         \
  X(Uint32Plus)                       \
  X(Uint32Min)                        \
  X(Uint32Max)                        \
  X(Uint32Multiplies)                 \
  X(Uint32BitAnd)                     \
  X(Uint32BitOr)                      \
  X(Uint32BitXor)

#define PARPRIM_TEST_CASES_FLOAT(X) \
  X(FloatPlus)                      \
  X(FloatPlusExact)                 \
  X(FloatMin)                       \
  X(FloatMax)                       \
  X(DoublePlus)                     \
  X(DoublePlusExact)                \
  X(DoubleMin)                      \
  X(DoubleMax)                      \
  X(FloatMinSpecial)                \
  X(FloatMaxSpecial)                \
  X(DoubleMinSpecial)               \
  X(DoubleMaxSpecial)               \
  X(DoubleIntoInt32Plus)

#define PARPRIM_TEST_CASES_STRUCT(X) \
  X(Vec3Plus)                        \
  X(Vec3Min)                         \
  X(Vec3Max)                         \
  X(Mat2Product)                     \
  X(AffineCompose)                   \
  X(Argmin)

/// Every case.
#define PARPRIM_TEST_CASES(X) \
  PARPRIM_TEST_CASES_INTEGER(X) PARPRIM_TEST_CASES_FLOAT(X) PARPRIM_TEST_CASES_STRUCT(X)

/// The cases that also run at the `large` sizes: mixed widths, wrap-around, exact float and
/// double sums (whose partial sums are all exact, so any combination error shows), both
/// non-commutative operators and the commutative user operator on a user struct. (Float sums
/// with rounding are covered at large sizes by determinism.cpp; there the bound of harness.hpp
/// is too loose to add anything.)
#define PARPRIM_TEST_CASES_LARGE(X) \
  X(Int8PlusInt32)                  \
  X(Uint32Plus)                     \
  X(FloatPlusExact)                 \
  X(DoublePlusExact)                \
  X(Mat2Product)                    \
  X(AffineCompose)                  \
  X(Argmin)

/// The cases of the per-segment results (segmented_reduce, reduce_by_key, the scans by key):
/// mixed widths, int32 plus / min / max, int64, wrapping products, float sums with rounding
/// (within the harness's bound) and exact, float min with NaNs and signed zeros, a commutative
/// user operator on a user struct, both non-commutative operators, argmin.
#define PARPRIM_TEST_CASES_SEGMENTS(X) \
  X(Int8PlusInt32)                     \
  X(Int32Plus)                         \
  X(Int32Min)                          \
  X(Int32Max)                          \
  X(Int64Plus)                         \
  X(Uint32Multiplies)                  \
  X(FloatPlus)                         \
  X(DoublePlusExact)                   \
  X(FloatMinSpecial)                   \
  X(Vec3Plus)                          \
  X(Mat2Product)                       \
  X(AffineCompose)                     \
  X(Argmin)

/// The per-segment cases that also run at about 10^6 elements.
#define PARPRIM_TEST_CASES_SEGMENTS_LARGE(X) \
  X(Int8PlusInt32)                           \
  X(FloatPlusExact)                          \
  X(Mat2Product)                             \
  X(AffineCompose)
