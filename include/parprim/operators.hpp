#pragma once
/// \file
/// \brief Built-in binary operators and the operator traits (commutativity, identity).
///
/// Any associative callable `Op` with `T op(T, Input)` works with every primitive. The traits
/// say what a backend may do beyond that:
/// - `is_commutative_v<Op>`: operands may be reordered (backends then use wider, reordering
///   combination trees, e.g. several accumulators per thread). Non-commutative operators are
///   always applied in sequence order, so results equal the sequential left fold.
/// - `has_identity_v<Op, T>` / `identity_v<Op, T>()`: an identity element, when one exists.
///
/// A user operator declares itself commutative with a member
/// `static constexpr bool is_commutative = true;` or by specialising
/// `parprim::operator_traits`.

#include <limits>
#include <type_traits>

#include <parprim/detail/macros.hpp>

namespace parprim {

/// \brief a + b
struct plus {
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
/// \brief a * b
struct multiplies {
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a * b;
  }
};
/// \brief b < a ? b : a (the first of equal operands wins, so it is a stable minimum).
struct minimum {
  template <class A>
  PARPRIM_HOST_DEVICE constexpr A operator()(const A& a, const A& b) const {
    return b < a ? b : a;
  }
};
/// \brief a < b ? b : a (the first of equal operands wins).
struct maximum {
  template <class A>
  PARPRIM_HOST_DEVICE constexpr A operator()(const A& a, const A& b) const {
    return a < b ? b : a;
  }
};
/// \brief a & b
struct bit_and {
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a & b;
  }
};
/// \brief a | b
struct bit_or {
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a | b;
  }
};
/// \brief a ^ b
struct bit_xor {
  template <class A, class B>
  PARPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const {
    return a ^ b;
  }
};

namespace detail {
template <class Op>
concept declares_commutative = requires {
  { Op::is_commutative } -> std::convertible_to<bool>;
};
}  // namespace detail

/// \brief Traits of an operator. Specialise for a user operator that cannot carry a member.
template <class Op>
struct operator_traits {
  static constexpr bool is_commutative = [] {
    if constexpr (detail::declares_commutative<Op>) {
      return static_cast<bool>(Op::is_commutative);
    } else {
      return false;
    }
  }();
};
template <>
struct operator_traits<plus> {
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

/// \brief True when `Op` may have its operands reordered.
template <class Op>
inline constexpr bool is_commutative_v = operator_traits<std::remove_cvref_t<Op>>::is_commutative;

/// \brief The identity of `Op` on `T`, where one is known. Specialise for user operators.
/// The primary template has no `value()`; `has_identity_v` tells whether one exists.
template <class Op, class T>
struct identity {};

template <class T>
requires std::is_arithmetic_v<T>
struct identity<plus, T> {
  static constexpr T value() { return T(0); }
};
template <class T>
requires std::is_arithmetic_v<T>
struct identity<multiplies, T> {
  static constexpr T value() { return T(1); }
};
template <class T>
requires std::is_arithmetic_v<T>
struct identity<minimum, T> {
  static constexpr T value() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
};
template <class T>
requires std::is_arithmetic_v<T>
struct identity<maximum, T> {
  static constexpr T value() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
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
