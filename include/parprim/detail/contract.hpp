#pragma once
/// \file
/// \brief The operator contract, checked where a call is made: `op` is callable as
/// `T op(T, T)` on the accumulator type `T` (associativity cannot be checked at compile time),
/// and elements convert to `T` before they meet it.

#include <type_traits>

namespace parprim::detail {

/// \brief `op` is callable as `T op(T, T)` and its result converts back to `T`.
template <class Op, class T>
concept binary_operator_on = std::is_invocable_v<const Op&, const T&, const T&> &&
    std::is_constructible_v<T, std::invoke_result_t<const Op&, const T&, const T&>>;

/// \brief The operator contract on accumulator `T` with elements of type `E`.
template <class E, class T, class Op>
constexpr bool check_operator() {
  if constexpr (!std::is_constructible_v<T, const E&>) {
    static_assert(std::is_constructible_v<T, const E&>,
                  "parprim: elements must convert to the accumulator type T (static_cast<T>(x)); "
                  "every backend converts each element to T before it meets the operator");
    return false;
  } else if constexpr (!binary_operator_on<Op, T>) {
    static_assert(binary_operator_on<Op, T>,
                  "parprim: the operator must be callable as T op(T, T) on the accumulator type "
                  "T and associative (see operators.hpp); per-element work such as squaring "
                  "belongs in transform_reduce / transform_inclusive_scan / "
                  "transform_exclusive_scan");
    return false;
  } else {
    return true;
  }
}

/// \brief Readable compile errors for a call whose operator or types break the contract.
template <class In, class T, class Op>
constexpr void require_operator() {
  (void)check_operator<In, T, Op>();
}

}  // namespace parprim::detail
