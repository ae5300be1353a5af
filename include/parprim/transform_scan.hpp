#pragma once
/// \file
/// \brief parprim::transform_inclusive_scan and transform_exclusive_scan: the scans of `f(x)` in
/// one pass, with no temporary.

#include <type_traits>
#include <utility>

#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/scan.hpp>

namespace parprim {

/// \brief `out[i] = T(f(in[0])) op ... op T(f(in[i]))`, `T` the output's value type; argument
/// order as `std::transform_inclusive_scan`. `out` may be `in` (each `f(in[i])` is read before
/// `out[i]` is written). `f` is called once per element, in no set order, from several threads
/// at once. Errors, complexity and determinism as parprim::inclusive_scan.
template <class Policy, class InputRange, class OutputRange, class BinaryOp, class UnaryOp>
void transform_inclusive_scan(const Policy& policy, const InputRange& in, OutputRange&& out,
                              BinaryOp op, UnaryOp f) {
  using impl = detail::scan_impl<Policy>;
  if constexpr (detail::transform_scan_call_ok<Policy, impl, InputRange, OutputRange, BinaryOp,
                                               UnaryOp>()) {
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    const detail::unary_transform_view view(input, f);
    detail::check_scan_args(input, output, "transform_inclusive_scan", op, nullptr, &view);
    detail::routed_inclusive<impl>(policy, view, output, op);
  }
}

/// \brief `out[i] = init op T(f(in[0])) op ... op T(f(in[i-1]))`; otherwise as
/// transform_inclusive_scan.
template <class Policy, class InputRange, class OutputRange, class T, class BinaryOp, class UnaryOp>
void transform_exclusive_scan(const Policy& policy, const InputRange& in, OutputRange&& out, T init,
                              BinaryOp op, UnaryOp f) {
  using impl = detail::scan_impl<Policy>;
  if constexpr (detail::transform_scan_call_ok<Policy, impl, InputRange, OutputRange, BinaryOp,
                                               UnaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename std::remove_cvref_t<decltype(output)>::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    const detail::unary_transform_view view(input, f);
    detail::check_scan_args(input, output, "transform_exclusive_scan", op, &start, &view);
    detail::routed_exclusive<impl>(policy, view, output, start, op);
  }
}

}  // namespace parprim
