#pragma once
/// \file
/// \brief Built-in binary operators and the operator traits (commutativity, identity).
///
/// The contract every primitive relies on: `op` is associative over the accumulator type `T`
/// and callable as `T op(T, T)`; elements are converted to `T` before they meet `op` (as
/// `std::reduce` requires). Per-element work that is not a conversion belongs in a transform.
/// The traits say what a backend may do beyond that:
/// - `is_commutative_v<Op>`: operands may be reordered (backends then use wider, reordering
///   combination trees, e.g. several accumulators per thread). Non-commutative operators are
///   always applied in sequence order, so results equal the sequential left fold.
/// - `has_identity_v<Op, T>` / `identity_v<Op, T>()`: an identity element, when one exists.
///
/// A user operator declares itself commutative with a member
/// `static constexpr bool is_commutative = true;` or by specialising
/// `parprim::operator_traits`.
///
/// Numeric semantics of the built-in operators (the same on every backend):
/// - `plus` and `multiplies` are `a + b` and `a * b`. Where a backend regroups a signed
///   integer fold (several accumulators per thread), it folds in the unsigned type of the same
///   width, so regrouping never overflows where the sequential left fold would not.
/// - `minimum` and `maximum` on `float` and `double` are the minimum and maximum of one total
///   order, so every combination order gives the same bits: -0 < +0, and NaN loses to every
///   number (a NaN is returned only when every operand is a NaN; between two NaNs the one
///   whose bit pattern, read as an unsigned integer, is smaller wins). Their identity is the
///   NaN whose bits are all ones. `long double`: the same order, without an identity, and
///   between two NaNs the first operand wins.
/// - `minimum` and `maximum` on other types use `<`; the first of equal operands wins.
/// - `exact_plus` on `float` and `double` accumulators: every result of a primitive is the
///   exact sum of its operands rounded once, to nearest even, so it is bitwise the same on
///   every backend, thread count, rank count and block split, and as accurate as possible
///   (docs/reproducible.md). Special values are what IEEE arithmetic gives on the exact sum: a
///   NaN operand, or +inf and -inf together, give NaN (always the default quiet NaN, whatever
///   the operands' payloads); otherwise an infinity operand gives that infinity; an exact sum
///   beyond the largest finite value rounds to the infinity of its sign; an exact sum of zero is
///   -0 if every operand is -0 and +0 otherwise. On integer accumulators `exact_plus` is `plus`.
///   Other accumulator types do not compile. Called directly on two values it is `a + b`.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <parprim/detail/macros.hpp>

namespace parprim {

namespace detail {
/// \brief The bits of a float or double as an unsigned integer.
template <class F>
PARPRIM_HOST_DEVICE constexpr auto float_bits(F x) {
  if constexpr (sizeof(F) == 4)
    return __builtin_bit_cast(std::uint32_t, x);
  else
    return __builtin_bit_cast(std::uint64_t, x);
}

/// \brief float and double: the types whose NaNs and zeros the min/max order ranks by bits.
template <class F>
inline constexpr bool ieee_bits_v =
    std::is_floating_point_v<F> &&
    (sizeof(F) == 4 || sizeof(F) == 8) && std::numeric_limits<F>::is_iec559;

/// \brief minimum (`Max` false) or maximum (`Max` true) of two floating-point values in the
/// order of the file comment. float and double: one select on a condition without branches, so
/// that loops of it vectorize: b wins when it is ordered before (after) a, when a is a NaN and b
/// is not, when both are NaNs and b's bits are smaller, and for equal zeros when b is -0 (+0).
/// long double: the same order, the first of two NaNs winning.
template <bool Max, class F>
PARPRIM_HOST_DEVICE constexpr F ordered_extreme(F a, F b) {
  const bool a_nan = a != a;
  const bool b_nan = b != b;
  const bool b_beyond = Max ? (a < b) : (b < a);
  if constexpr (ieee_bits_v<F>) {
    const auto ua = float_bits(a);
    const auto ub = float_bits(b);
    const bool b_zero_wins = (a == b) & (Max ? (ub < ua) : (ua < ub));
    return (b_beyond | (a_nan & (!b_nan | (ub < ua))) | b_zero_wins) ? b : a;
  } else {
    const bool b_zero_wins = a == b && (Max ? std::signbit(a) : std::signbit(b));
    return b_beyond || (a_nan && !b_nan) || b_zero_wins ? b : a;
  }
}
}  // namespace detail

/// \brief a + b
struct plus {
  /// \return `a + b`
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
/// \brief The exact sum rounded once (float, double), `plus` on integers: see the file comment.
/// Called directly on two operands it is `a + b`, which already is their exact sum rounded once.
struct exact_plus {
  /// \return `a + b` (the primitives route exact_plus to the exact sum instead)
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
/// \brief a * b
struct multiplies {
  /// \return `a * b`
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a * b;
  }
};
/// \brief The smaller operand: floating point in the total order -0 < +0 < NaN (see the file
/// comment), other types `b < a ? b : a` (the first of equal operands wins).
struct minimum {
  /// \return the smaller of `a` and `b` in the order above
  template <class A>
  PARPRIM_HOST_DEVICE constexpr A operator()(const A& a, const A& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      return detail::ordered_extreme<false>(a, b);
    } else {
      return b < a ? b : a;
    }
  }
};
/// \brief The larger operand: floating point in the total order NaN < -0 < +0 (see the file
/// comment), other types `a < b ? b : a` (the first of equal operands wins).
struct maximum {
  /// \return the larger of `a` and `b` in the order above
  template <class A>
  PARPRIM_HOST_DEVICE constexpr A operator()(const A& a, const A& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      return detail::ordered_extreme<true>(a, b);
    } else {
      return a < b ? b : a;
    }
  }
};
/// \brief a & b
struct bit_and {
  /// \return `a & b`
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a & b;
  }
};
/// \brief a | b
struct bit_or {
  /// \return `a | b`
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a | b;
  }
};
/// \brief a ^ b
struct bit_xor {
  /// \return `a ^ b`
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a ^ b;
  }
};

namespace detail {
/// \brief `op(a, b)` as a `T`, where `op` is the library's `plus` or `multiplies` on a signed
/// integer type at least as wide as `int` computed in its unsigned twin: the same bits wherever
/// the signed result exists, and defined where it overflows. For code that combines operands
/// the sequence may never combine (the operator checker's samples, the OpenMP per-segment
/// chains), whose overflow must not be undefined.
template <class T, class Op>
PARPRIM_HOST_DEVICE constexpr T apply_wrapping(const Op& op, const T& a, const T& b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= sizeof(int) &&
                (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies>)) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return static_cast<T>(op(a, b));
  }
}
template <class Op>
concept declares_commutative = requires {
  { Op::is_commutative } -> std::convertible_to<bool>;
};
}  // namespace detail

/// \brief Traits of an operator. Specialise for a user operator that cannot carry a member.
/// The built-in operators (plus, multiplies, minimum, maximum, bit_and, bit_or, bit_xor) are
/// commutative.
template <class Op>
struct operator_traits {
  /// \brief Whether operands may be reordered: `Op::is_commutative` when `Op` declares it,
  /// otherwise false.
  static constexpr bool is_commutative = [] {
    if constexpr (detail::declares_commutative<Op>) {
      return static_cast<bool>(Op::is_commutative);
    } else {
      return false;
    }
  }();
};
/// \cond PARPRIM_BUILTIN_SPECIALISATIONS
template <>
struct operator_traits<plus> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<exact_plus> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<multiplies> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<minimum> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<maximum> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<bit_and> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<bit_or> {
  static constexpr bool is_commutative = true;
};
template <>
struct operator_traits<bit_xor> {
  static constexpr bool is_commutative = true;
};
/// \endcond

/// \brief True when `Op` may have its operands reordered.
template <class Op>
inline constexpr bool is_commutative_v = operator_traits<std::remove_cvref_t<Op>>::is_commutative;

/// \brief The identity of `Op` on `T`, where one is known. Specialise for user operators.
/// The primary template has no `value()`; `has_identity_v` tells whether one exists.
/// Built in: plus 0 and multiplies 1 on arithmetic types; minimum and maximum the largest and
/// the lowest value of an integer type, and on float and double the NaN with every bit set
/// (it loses to every number and every other NaN); bit_and all ones, bit_or and bit_xor 0 on
/// integer types.
template <class Op, class T>
struct identity {};

/// \cond PARPRIM_BUILTIN_SPECIALISATIONS

template <class T>
requires std::is_arithmetic_v<T>
struct identity<plus, T> {
  static constexpr T value() { return T(0); }
};
/// `exact_plus`: 0 on integers, -0 on float and double (the sign of an exact zero sum is
/// +0 as soon as one operand is not -0, so -0 is the identity, also for -0).
template <class T>
requires std::is_integral_v<T> || detail::ieee_bits_v<T>
struct identity<exact_plus, T> {
  static constexpr T value() {
    if constexpr (std::is_integral_v<T>)
      return T(0);
    else
      return -T(0);
  }
};
template <class T>
requires std::is_arithmetic_v<T>
struct identity<multiplies, T> {
  static constexpr T value() { return T(1); }
};
template <class T>
requires std::is_integral_v<T> || detail::ieee_bits_v<T>
struct identity<minimum, T> {
  static constexpr T value() {
    if constexpr (std::is_integral_v<T>)
      return std::numeric_limits<T>::max();
    else
      return __builtin_bit_cast(T, ~decltype(detail::float_bits(T{})){0});
  }
};
template <class T>
requires std::is_integral_v<T> || detail::ieee_bits_v<T>
struct identity<maximum, T> {
  static constexpr T value() {
    if constexpr (std::is_integral_v<T>)
      return std::numeric_limits<T>::lowest();
    else
      return identity<minimum, T>::value();
  }
};
template <class T>
requires std::is_integral_v<T>
struct identity<bit_and, T> {
  static constexpr T value() { return static_cast<T>(~T(0)); }
};
template <class T>
requires std::is_integral_v<T>
struct identity<bit_or, T> {
  static constexpr T value() { return T(0); }
};
template <class T>
requires std::is_integral_v<T>
struct identity<bit_xor, T> {
  static constexpr T value() { return T(0); }
};

/// \endcond

/// \brief True when `identity<Op, T>::value()` exists.
template <class Op, class T>
inline constexpr bool has_identity_v = requires {
  identity<Op, T>::value();
};

/// \brief The identity of `Op` on `T` (only when `has_identity_v<Op, T>`).
template <class Op, class T>
requires has_identity_v<Op, T>
constexpr T identity_v() {
  return identity<Op, T>::value();
}

}  // namespace parprim
