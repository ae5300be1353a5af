#pragma once
/// \file
/// \brief The operator checker: with `PARPRIM_CHECK_OPERATORS` defined (CMake option of the
/// same name; on in the `dev` and `asan` presets), every call first checks the operator's
/// declared laws on a sample of its input, and raises `parprim::invalid_argument` naming the
/// operator type, the law and the operands when one fails:
/// - associativity, `op(op(a, b), c) == op(a, op(b, c))`, on 64 triples of elements (converted to
///   `T`) and of partial results, always;
/// - commutativity, `op(a, b) == op(b, a)`, when the operator declares it (`is_commutative_v`);
/// - the identity, `op(e, a) == a == op(a, e)`, when one is declared (`has_identity_v`).
///
/// Equality is `parprim::operator_check_equal<T>`: for `float`/`double`/`long double` within
/// `8 eps (|a| + |b| + |c| + |result|)` (rounding of one regrouping), both NaN counting as equal;
/// otherwise `==`. A user type whose operator rounds (a struct of doubles) specialises
/// `operator_check_equal` with its own tolerance; a type without `==` is compared byte for byte
/// when it has no padding (`std::has_unique_object_representations_v`), else not checked.
///
/// Host inputs only: device ranges (`parprim::cuda`) are not sampled. Off by default; the cost
/// is about 600 operator calls per call.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#if defined(__GNUG__)
#include <cxxabi.h>

#include <cstdlib>
#endif

#include <parprim/detail/transform_view.hpp>
#include <parprim/error.hpp>
#include <parprim/operators.hpp>

namespace parprim {

/// \brief How the checker compares two results of `T` (see the file comment). Specialise for a
/// user type whose operator rounds; `equal(x, y, scale)` gets the sum of the magnitudes involved
/// only for arithmetic types.
template <class T>
struct operator_check_equal {
  /// \return whether `x` and `y` count as the same result (`==`, or equal bytes for a type
  /// without `==`)
  static bool equal(const T& x, const T& y) {
    if constexpr (std::equality_comparable<T>) {
      return x == y;
    } else {
      static_assert(std::has_unique_object_representations_v<T>);
      return std::memcmp(&x, &y, sizeof(T)) == 0;
    }
  }
};

namespace detail {

template <class T>
inline constexpr bool checkable_v = std::is_floating_point_v<T> || std::equality_comparable<T> ||
                                    std::has_unique_object_representations_v<T>;

template <class T>
bool check_equal(const T& x, const T& y, const T& a, const T& b, const T& c) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (x == y) return true;
    const long double scale =
        std::fabs(static_cast<long double>(a)) + std::fabs(static_cast<long double>(b)) +
        std::fabs(static_cast<long double>(c)) + std::fabs(static_cast<long double>(x));
    if (!std::isfinite(scale)) return false;
    return std::fabs(static_cast<long double>(x) - static_cast<long double>(y)) <=
           8.0L * static_cast<long double>(std::numeric_limits<T>::epsilon()) * scale;
  } else {
    return operator_check_equal<T>::equal(x, y);
  }
}

template <class T>
std::string show_operand(const T& v) {
  std::ostringstream os;
  if constexpr (requires { os << v; }) {
    if constexpr (std::is_floating_point_v<T>) os.precision(std::numeric_limits<T>::max_digits10);
    if constexpr (sizeof(T) == 1 && std::is_integral_v<T>)
      os << static_cast<int>(v);
    else
      os << v;
  } else {
    os << "bytes";
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      static const char hex[] = "0123456789abcdef";
      os << (i == 0 ? " " : "") << hex[p[i] >> 4] << hex[p[i] & 15];
    }
  }
  return os.str();
}

template <class Op>
std::string operator_name() {
  const char* raw = typeid(Op).name();
#if defined(__GNUG__)
  int status = 0;
  char* d = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
  if (status == 0 && d != nullptr) {
    std::string s(d);
    std::free(d);
    return s;
  }
#endif
  return raw;
}

template <class Op>
[[noreturn]] void law_broken(const char* fn, const char* law, const std::string& detail) {
  throw invalid_argument(std::string("parprim::") + fn + ": the operator " + operator_name<Op>() +
                         " breaks " + law + ": " + detail);
}

/// \brief Checks the laws of `op` on `sample` (values of `T`; see the file comment).
template <class T, class Op>
void check_operator_laws(const char* fn, const Op& op, const std::vector<T>& sample) {
  if constexpr (checkable_v<T>) {
    const std::size_t m = sample.size();
    if (m == 0) return;
    // (signed integer sums and products wrap: the samples' overflow must not be undefined)
    const auto apply = [&](const T& x, const T& y) { return apply_wrapping<T>(op, x, y); };
    // Operands: the sampled elements and partial results built from them.
    std::vector<T> values = sample;
    for (std::size_t i = 0; i + 1 < m && values.size() < 2 * m; ++i)
      values.push_back(apply(sample[i], sample[i + 1]));
    const std::size_t v = values.size();
    for (std::size_t t = 0; t < 64; ++t) {
      const T& a = values[(t * 7) % v];
      const T& b = values[(t * 13 + 1) % v];
      const T& c = values[(t * 29 + 2) % v];
      const T left = apply(apply(a, b), c);
      const T right = apply(a, apply(b, c));
      if (!check_equal(left, right, a, b, c))
        law_broken<Op>(fn, "associativity",
                       "op(op(a, b), c) = " + show_operand(left) + " but op(a, op(b, c)) = " +
                           show_operand(right) + " for a = " + show_operand(a) +
                           ", b = " + show_operand(b) + ", c = " + show_operand(c));
      if constexpr (is_commutative_v<Op>) {
        const T ab = apply(a, b);
        const T ba = apply(b, a);
        if (!check_equal(ab, ba, a, b, b))
          law_broken<Op>(fn, "the commutativity it declares",
                         "op(a, b) = " + show_operand(ab) + " but op(b, a) = " + show_operand(ba) +
                             " for a = " + show_operand(a) + ", b = " + show_operand(b));
      }
      if constexpr (has_identity_v<std::remove_cvref_t<Op>, T>) {
        const T e = identity_v<std::remove_cvref_t<Op>, T>();
        const T ea = apply(e, a);
        const T ae = apply(a, e);
        if (!check_equal(ea, a, a, a, a) || !check_equal(ae, a, a, a, a))
          law_broken<Op>(fn, "its identity",
                         "op(e, a) = " + show_operand(ea) + ", op(a, e) = " + show_operand(ae) +
                             " for e = " + show_operand(e) + ", a = " + show_operand(a));
      }
    }
  }
}

/// \brief Up to 48 elements of `in`, spread over it, converted to `T`, and `extra` (the init).
template <class T, class Span>
std::vector<T> operator_sample(const Span& in, const T* extra) {
  std::vector<T> s;
  const std::size_t n = in.size();
  const std::size_t count = n < 48 ? n : 48;
  for (std::size_t k = 0; k < count; ++k) s.push_back(static_cast<T>(in[k * n / count]));
  if (extra != nullptr) s.push_back(*extra);
  return s;
}

template <class S>
inline constexpr bool is_std_span_v = false;
template <class T, std::size_t E>
inline constexpr bool is_std_span_v<std::span<T, E>> = true;

/// \brief Inputs the checker can read: host spans and transform views of them.
template <class S>
constexpr bool host_input() {
  if constexpr (is_transform_view_v<S>)
    return is_std_span_v<typename S::base_type>;
  else
    return is_std_span_v<S>;
}

/// \brief The checker's entry point in every front end: a no-op unless PARPRIM_CHECK_OPERATORS
/// is defined, for device ranges, and for parprim::exact_plus (exactly associative and
/// commutative by construction; its two-operand `a + b` on floats is not what the primitives
/// compute, so sampling it would report rounding, or overflow, as a broken law).
template <class T, class Op, class Span>
void maybe_check_operator(const char* fn, const Op& op, const Span& in, const T* extra) {
#if defined(PARPRIM_CHECK_OPERATORS)
  if constexpr (host_input<Span>() && !std::is_same_v<std::remove_cvref_t<Op>, exact_plus>)
    check_operator_laws<T>(fn, op, operator_sample<T>(in, extra));
#else
  (void)fn;
  (void)op;
  (void)in;
  (void)extra;
#endif
}

}  // namespace detail
}  // namespace parprim
