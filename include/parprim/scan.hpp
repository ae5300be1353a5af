#pragma once
/// \file
/// \brief parprim::inclusive_scan and parprim::exclusive_scan, routed by the policy.

#include <type_traits>
#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/operators.hpp>

namespace parprim {

namespace detail {
/// \brief The contract (compile time), the arguments, then (PARPRIM_CHECK_OPERATORS) the
/// operator's laws on a sample of the input (of `*elements`, a transform view of it, when
/// given), with `init` when given.
template <class Op, class InputSpan, class OutputSpan, class Elements = InputSpan>
void check_scan_args(const InputSpan& in, const OutputSpan& out, const char* fn, const Op& op,
                     const typename OutputSpan::value_type* init = nullptr,
                     const Elements* elements = nullptr) {
  using acc_t = typename OutputSpan::value_type;
  require_operator<typename Elements::value_type, acc_t, Op>();
  check_data(in, fn, "in");
  check_data(out, fn, "out");
  check_same_size(in, out, fn, "in", "out");
  check_alias(in, out, fn);
  if constexpr (std::is_same_v<Elements, InputSpan>)
    maybe_check_operator<acc_t>(fn, op, in, init);
  else
    maybe_check_operator<acc_t>(fn, op, *elements, init);
}
}  // namespace detail

/// \brief Inclusive scan: `out[i] = in[0] op in[1] op ... op in[i]` (left fold, in order).
///
/// Example (examples/scan_basic.cpp):
/// \code
///   std::vector<int> v = {3, 1, 4, 1, 5};
///   parprim::inclusive_scan(parprim::omp, v, v, parprim::plus{});   // {3, 4, 8, 9, 14}
/// \endcode
///
/// \tparam InputRange, OutputRange  contiguous sized ranges (host) or `device_span` (CUDA);
///   the accumulator is the output's value type
/// \param in  n elements
/// \param out  n elements; may be the same range as `in` (in place), must not partially overlap
/// \param op  associative operator, applied in sequence order unless commutative
/// \pre `op` is callable as `T op(T, T)` on the output's value type `T` (else a compile error
/// at the call, as every misuse listed at parprim::reduce) and associative; elements are
/// converted to `T` before they meet it.
/// \par Complexity  O(n) applications of `op` (at most 2n on p > 1 workers).
/// \par Errors  parprim::invalid_argument, before anything is written, if the sizes differ,
///   data is null with n > 0, or `out` partially overlaps `in`.
/// \par Determinism  as parprim::reduce.
template <class Policy, class InputRange, class OutputRange, class BinaryOp = plus>
void inclusive_scan(const Policy& policy, const InputRange& in, OutputRange&& out,
                    BinaryOp op = {}) {
  using impl = detail::scan_impl<Policy>;
  if constexpr (detail::scan_call_ok<Policy, impl, InputRange, OutputRange, BinaryOp>()) {
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    detail::check_scan_args(input, output, "inclusive_scan", op);
    detail::routed_inclusive<impl>(policy, input, output, op);
  }
}

/// \brief Exclusive scan: `out[0] = init`, `out[i] = init op in[0] op ... op in[i-1]`.
///
/// \param init  the left-most operand of every output element
/// Other parameters, preconditions, complexity, errors and determinism as inclusive_scan.
template <class Policy, class InputRange, class OutputRange, class T, class BinaryOp = plus>
void exclusive_scan(const Policy& policy, const InputRange& in, OutputRange&& out, T init,
                    BinaryOp op = {}) {
  using impl = detail::scan_impl<Policy>;
  if constexpr (detail::scan_call_ok<Policy, impl, InputRange, OutputRange, BinaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename std::remove_cvref_t<decltype(output)>::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    detail::check_scan_args(input, output, "exclusive_scan", op, &start);
    detail::routed_exclusive<impl>(policy, input, output, start, op);
  }
}

}  // namespace parprim
