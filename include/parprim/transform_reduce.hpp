#pragma once
/// \file
/// \brief parprim::transform_reduce: the fold of `f(x)` (or `f(x, y)` over two inputs) in one
/// pass, with no temporary: sums of squares, norms, counts, dot products.

#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/detail/transform_view.hpp>

namespace parprim {

/// \brief `init op T(f(in[0])) op ... op T(f(in[n-1]))`, argument order as
/// `std::transform_reduce`. Example (examples/sum_of_squares.cpp):
/// \code
///   long long s = parprim::transform_reduce(parprim::omp, v, 0LL, parprim::plus{},
///                                           [](int x) { return 1LL * x * x; });
/// \endcode
/// \tparam T  the accumulator and result type; `f(element)` must convert to `T`
/// \tparam ReduceOp  associative, callable as `T op(T, T)` (the contract of operators.hpp)
/// \tparam UnaryOp  the per-element work; called exactly once per element, in no set order
///   and from several threads at once (it must not depend on order or on shared state); with
///   parprim::cuda it must be callable on the device
/// \pre as parprim::reduce. \par Complexity  n calls of `f`, n of `op`; one pass over `in`.
/// \par Errors  as parprim::reduce; an exception thrown by `f` or `op` reaches the caller
/// (docs/guide.md). \par Determinism  as parprim::reduce.
template <class Policy, class InputRange, class T, class ReduceOp, class UnaryOp>
T transform_reduce(const Policy& policy, const InputRange& in, T init, ReduceOp op, UnaryOp f) {
  using impl = detail::reduce_impl<Policy>;
  if constexpr (detail::transform_reduce_call_ok<Policy, impl, InputRange, T, ReduceOp,
                                                 UnaryOp>()) {
    const auto input = detail::as_input_span(in);
    const detail::unary_transform_view view(input, f);
    detail::check_data(input, "transform_reduce", "in");
    detail::maybe_check_operator<T>("transform_reduce", op, view, &init);
    return detail::routed_reduce<impl>(policy, view, std::move(init), op);
  } else {
    return init;  // not reached: transform_reduce_call_ok failed a static_assert
  }
}

/// \brief `init op T(f(in1[0], in2[0])) op ... op T(f(in1[n-1], in2[n-1]))`, e.g. a dot product
/// with `plus` and `multiplies`. Otherwise as the unary form.
/// \par Errors  also parprim::invalid_argument if `in1` and `in2` differ in size.
template <class Policy, class InputRange1, class InputRange2, class T, class ReduceOp,
          class BinaryOp>
T transform_reduce(const Policy& policy, const InputRange1& in1, const InputRange2& in2, T init,
                   ReduceOp op, BinaryOp f) {
  using impl = detail::reduce_impl<Policy>;
  if constexpr (detail::transform_reduce2_call_ok<Policy, impl, InputRange1, InputRange2, T,
                                                  ReduceOp, BinaryOp>()) {
    const auto input1 = detail::as_input_span(in1);
    const auto input2 = detail::as_input_span(in2);
    const detail::binary_transform_view view(input1, input2, f);
    detail::check_data(input1, "transform_reduce", "in1");
    detail::check_data(input2, "transform_reduce", "in2");
    detail::check_same_size(input1, input2, "transform_reduce", "in1", "in2");
    detail::maybe_check_operator<T>("transform_reduce", op, view, &init);
    return detail::routed_reduce<impl>(policy, view, std::move(init), op);
  } else {
    return init;  // not reached: transform_reduce2_call_ok failed a static_assert
  }
}

}  // namespace parprim
