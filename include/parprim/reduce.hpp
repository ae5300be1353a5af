#pragma once
/// \file
/// \brief parprim::reduce, routed by the policy to a backend.

#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/operators.hpp>

namespace parprim {

/// \brief Left fold of `init` and the input: `op(...op(op(init, in[0]), in[1])..., in[n-1])`.
///
/// Example (examples/reduce_basic.cpp):
/// \code
///   std::vector<int> v = {1, 2, 3};
///   long s = parprim::reduce(parprim::omp, v, 0L, parprim::plus{});   // 6
/// \endcode
///
/// Misuse is a compile error at the call, with one message (detail/concepts.hpp): a type that
/// is not a parprim policy, a policy whose backend is not linked (the message names the CMake
/// target), a range that is not contiguous and sized, a host range with parprim::cuda, an
/// operator not callable as `T op(T, T)`.
///
/// \tparam Policy  parprim::seq, parprim::omp, ... (selects the backend at compile time)
/// \tparam InputRange  a contiguous sized range (host policies) or `device_span` (CUDA)
/// \tparam T  the accumulator and result type; each element is converted to `T` before it meets
///   `op` (`static_cast<T>(x)`), on every backend
/// \tparam BinaryOp  callable as `T op(T, T)` (else a compile error at the call) and associative;
///   commutativity (operator_traits) lets backends reorder. Per-element work goes in
///   parprim::transform_reduce.
/// \param policy  where and how to run
/// \param in  the input, `n` elements (n may be 0 and may exceed 2^32)
/// \param init  the left-most operand; returned unchanged when `n == 0`
/// \param op  the operator
/// \return the fold
/// \pre `op` is associative (checked on a sample with PARPRIM_CHECK_OPERATORS, see
/// check_operators.hpp). The input is not modified concurrently.
/// \par Complexity  O(n) applications of `op`; O(n / p + log p) time on p workers.
/// \par Errors  parprim::invalid_argument if `in` has null data and n > 0.
/// \par Determinism  Integer results equal the sequential left fold exactly. Floating-point
/// results are within the bound of docs/guide.md of the sequential fold and bitwise equal from
/// run to run for the same backend, configuration (e.g. thread count) and input.
template <class Policy, class InputRange, class T, class BinaryOp = plus>
T reduce(const Policy& policy, const InputRange& in, T init, BinaryOp op = {}) {
  using impl = detail::reduce_impl<Policy>;
  if constexpr (detail::reduce_call_ok<Policy, impl, InputRange, T, BinaryOp>()) {
    const auto input = detail::as_input_span(in);
    detail::check_data(input, "reduce", "in");
    detail::maybe_check_operator<T>("reduce", op, input, &init);
    return detail::routed_reduce<impl>(policy, input, std::move(init), op);
  } else {
    return init;  // not reached: reduce_call_ok failed a static_assert
  }
}

}  // namespace parprim
