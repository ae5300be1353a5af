#pragma once
/// \file
/// \brief parprim::segmented_inclusive_scan and parprim::segmented_exclusive_scan.
///
/// Segments are marked by one-byte head flags: `flags[i] != 0` starts a new segment at i;
/// element 0 always starts one, whatever `flags[0]` holds. Each segment is scanned on its own.

#include <cstdint>
#include <type_traits>
#include <utility>

#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/operators.hpp>
#include <parprim/scan.hpp>

namespace parprim {

namespace detail {
template <class Op, class InputSpan, class FlagSpan, class OutputSpan>
void check_segmented_args(const InputSpan& in, const FlagSpan& flags, const OutputSpan& out,
                          const char* fn, const Op& op,
                          const typename OutputSpan::value_type* init = nullptr) {
  check_scan_args(in, out, fn, op, init);
  check_data(flags, fn, "head_flags");
  check_same_size(in, flags, fn, "in", "head_flags");
  check_disjoint(flags, out, fn, "head_flags", "out");
}
}  // namespace detail

/// \brief Segmented inclusive scan: `out[i] = in[h] op ... op in[i]`, h the head of i's
/// segment.
///
/// Example (examples/segmented_scan_basic.cpp):
/// \code
///   std::vector<int> v = {1, 2, 3, 4, 5};
///   std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
///   parprim::segmented_inclusive_scan(parprim::omp, v, f, v, parprim::plus{});  // {1,3,3,7,12}
/// \endcode
///
/// \param in  n elements
/// \param head_flags  n bytes (`std::uint8_t`); non-zero starts a segment
/// \param out  n elements; may be the same range as `in`
/// \pre `op` is callable as `T op(T, T)` on the output's value type `T` (else a compile error)
/// and associative; elements are converted to `T` before they meet it.
/// \par Complexity  O(n) applications of `op`.
/// \par Errors  parprim::invalid_argument, before anything is written, if `head_flags` or
///   `out` do not have n elements, data is null with n > 0, or `out` partially overlaps `in` or
///   overlaps `head_flags`.
/// \par Determinism  as parprim::reduce.
template <class Policy, class InputRange, class FlagRange, class OutputRange, class BinaryOp = plus>
void segmented_inclusive_scan(const Policy& policy, const InputRange& in,
                              const FlagRange& head_flags, OutputRange&& out, BinaryOp op = {}) {
  using impl = detail::segmented_scan_impl<Policy>;
  if constexpr (detail::segmented_scan_call_ok<Policy, impl, InputRange, FlagRange, OutputRange,
                                               BinaryOp>()) {
    const auto input = detail::as_input_span(in);
    const auto flags = detail::as_input_span(head_flags);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    detail::check_segmented_args(input, flags, output, "segmented_inclusive_scan", op);
    detail::routed_segmented_inclusive<impl>(policy, input, flags, output, op);
  }
}

/// \brief Segmented exclusive scan: `init` at each segment head, then
/// `out[i] = init op in[h] op ... op in[i-1]` within the segment.
///
/// Parameters, complexity, errors and determinism as segmented_inclusive_scan.
template <class Policy, class InputRange, class FlagRange, class OutputRange, class T,
          class BinaryOp = plus>
void segmented_exclusive_scan(const Policy& policy, const InputRange& in,
                              const FlagRange& head_flags, OutputRange&& out, T init,
                              BinaryOp op = {}) {
  using impl = detail::segmented_scan_impl<Policy>;
  if constexpr (detail::segmented_scan_call_ok<Policy, impl, InputRange, FlagRange, OutputRange,
                                               BinaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    const auto flags = detail::as_input_span(head_flags);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename std::remove_cvref_t<decltype(output)>::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    detail::check_segmented_args(input, flags, output, "segmented_exclusive_scan", op, &start);
    detail::routed_segmented_exclusive<impl>(policy, input, flags, output, start, op);
  }
}

}  // namespace parprim
