#pragma once
/// \file
/// \brief parprim::segmented_reduce: one result per segment, the segments given by one-byte
/// head flags (as for the segmented scans) or by CSR begin offsets (`parprim::offsets`).
///
/// The accumulator type `T` is the output's value type: `init` and every element are converted
/// to it before they meet the operator, which is applied in sequence order within each
/// segment (`out[s] = init op x_first op ... op x_last`), as parprim::reduce does.

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/error.hpp>
#include <parprim/operators.hpp>

namespace parprim {

/// \brief CSR begin offsets of k segments: k + 1 non-decreasing integers, the first 0 and the
/// last n, segment s being elements [begins[s], begins[s + 1]). Made by parprim::offsets.
template <class OffsetSpan>
struct segment_offsets {
  OffsetSpan begins;  ///< `std::span<const I>` (host) or `device_span<const I>`, I integral
};

/// \brief Marks a range of k + 1 integers as the begin offsets of k segments, for
/// parprim::segmented_reduce (e.g. the row pointers of a CSR matrix).
template <class Range>
auto offsets(const Range& begin_offsets) {
  const auto s = detail::as_input_span(begin_offsets);
  static_assert(std::is_integral_v<typename decltype(s)::value_type>,
                "parprim::offsets: the begin offsets must be integers");
  return segment_offsets<std::remove_const_t<decltype(s)>>{s};
}

namespace detail {

template <class T>
inline constexpr bool is_segment_offsets_v = false;
template <class S>
inline constexpr bool is_segment_offsets_v<segment_offsets<S>> = true;

/// \brief The checks of segmented_reduce with head flags that need no pass over the data:
/// the contract (compile time), sizes, null data, overlaps, the operator checker.
template <class Op, class InputSpan, class FlagSpan, class OutputSpan>
void check_flag_reduce_args(const InputSpan& in, const FlagSpan& flags, const OutputSpan& out,
                            const char* fn, const Op& op,
                            const typename OutputSpan::value_type& init) {
  using acc_t = typename OutputSpan::value_type;
  static_assert(sizeof(typename FlagSpan::value_type) == 1,
                "parprim: head flags are one byte each (std::uint8_t)");
  require_operator<typename InputSpan::value_type, acc_t, Op>();
  check_data(in, fn, "in");
  check_data(flags, fn, "head_flags");
  check_data(out, fn, "out");
  check_same_size(in, flags, fn, "in", "head_flags");
  check_disjoint(in, out, fn, "in", "out");
  check_disjoint(flags, out, fn, "head_flags", "out");
  maybe_check_operator<acc_t>(fn, op, in, &init);
}

/// \brief The checks of segmented_reduce with offsets that need no pass over the offsets:
/// k + 1 >= 1 offsets, `out` of k elements, null data, overlaps, the operator checker.
template <class Op, class InputSpan, class OffsetSpan, class OutputSpan>
void check_offset_reduce_args(const InputSpan& in, const OffsetSpan& offsets, const OutputSpan& out,
                              const char* fn, const Op& op,
                              const typename OutputSpan::value_type& init) {
  using acc_t = typename OutputSpan::value_type;
  require_operator<typename InputSpan::value_type, acc_t, Op>();
  check_data(in, fn, "in");
  check_data(offsets, fn, "offsets");
  check_data(out, fn, "out");
  if (offsets.size() == 0)
    throw invalid_argument(std::string("parprim::") + fn +
                           ": offsets is empty; k segments need k + 1 offsets (0, ..., n)");
  if (out.size() != offsets.size() - 1)
    throw invalid_argument(std::string("parprim::") + fn + ": out has " +
                           std::to_string(out.size()) + " elements but offsets describe " +
                           std::to_string(offsets.size() - 1) + " segments");
  check_disjoint(in, out, fn, "in", "out");
  check_disjoint(offsets, out, fn, "offsets", "out");
  maybe_check_operator<acc_t>(fn, op, in, &init);
}

}  // namespace detail

/// \brief One result per segment, the segments given by head flags:
/// `out[s] = init op x_first op ... op x_last` over segment s's elements, in order.
///
/// Example (examples/per_segment.cpp):
/// \code
///   std::vector<int> v = {1, 2, 3, 4, 5};
///   std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
///   std::vector<long> sums(v.size());
///   std::size_t k = parprim::segmented_reduce(parprim::omp, v, f, sums, 0L, parprim::plus{});
///   // k == 2, sums[0..2) == {3, 12}
/// \endcode
///
/// \param in  n elements
/// \param head_flags  n bytes (`std::uint8_t`); a non-zero byte starts a segment, and element 0
///   always starts one (as for the segmented scans)
/// \param out  room for at least the number of segments; elements past it are not written. The
///   accumulator type `T` is its value type.
/// \param init  the left-most operand of every segment's fold
/// \return the number of segments (0 when n == 0)
/// \pre `op` is callable as `T op(T, T)` (else a compile error) and associative; elements are
///   converted to `T` before they meet it.
/// \par Complexity  O(n) applications of `op`; the flags are read twice (once to count the
///   segments, before anything is written), but once on parprim::cuda when `out` has n elements
///   or at most n / (2 sizeof(T)) (the results then pass through a temporary of `out`'s size and
///   are copied into `out` when they fit), and on parprim::omp where the heads are sparse (at
///   most one in 64 elements).
/// \par Errors  parprim::invalid_argument, before anything is written, if `head_flags` does not
///   have n elements, data is null with n > 0, `out` overlaps `in` or `head_flags`, or `out` has
///   fewer elements than there are segments.
/// \par Determinism  as parprim::reduce, per segment.
template <class Policy, class InputRange, class FlagRange, class OutputRange, class T,
          class BinaryOp = plus>
requires(!detail::is_segment_offsets_v<FlagRange>) std::size_t
    segmented_reduce(const Policy& policy, const InputRange& in, const FlagRange& head_flags,
                     OutputRange&& out, T init, BinaryOp op = {}) {
  using impl = detail::segmented_reduce_impl<Policy>;
  if constexpr (detail::segmented_reduce_call_ok<Policy, impl, InputRange, FlagRange, OutputRange,
                                                 BinaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    const auto flags = detail::as_input_span(head_flags);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    detail::check_flag_reduce_args(input, flags, output, "segmented_reduce", op, start);
    return detail::per_segment_call<impl, BinaryOp, acc_t>(
        output.size() >= input.size(),
        [&](auto backend) {  // one call, counting: nothing written when the segments do not fit
          const std::size_t segments = decltype(backend)::type::reduce_flags_counting(
              policy, input, flags, output, start, detail::backend_op<acc_t>(op));
          detail::check_room("segmented_reduce", "out", output.size(), segments, "segments");
          return segments;
        },
        [&](auto backend) {
          using backend_t = typename decltype(backend)::type;
          const auto plan = backend_t::plan_flags(policy, flags);
          detail::check_room("segmented_reduce", "out", output.size(), plan.segments(), "segments");
          detail::routed_per_segment(output, plan.segments(), op, [&](auto results, auto bop) {
            backend_t::reduce_flags(policy, plan, input, flags, results,
                                    detail::backend_init<BinaryOp>(start), bop);
          });
          return plan.segments();
        });
  } else {
    return 0;  // not reached: a static_assert of the check failed
  }
}

/// \brief One result per segment, the segments given by CSR begin offsets: `out[s]` is the
/// fold of `init` and elements [begins[s], begins[s + 1]), in order; `init` for an empty
/// segment.
///
/// Example (examples/per_segment.cpp): row sums of a CSR matrix
/// \code
///   std::vector<double> values = {1, 2, 3, 4, 5, 6};
///   std::vector<int> row_ptr = {0, 2, 2, 6};                       // rows of 2, 0 and 4
///   std::vector<double> row_sum(3);
///   parprim::segmented_reduce(parprim::omp, values, parprim::offsets(row_ptr), row_sum, 0.0,
///                             parprim::plus{});                    // {3, 0, 18}
/// \endcode
///
/// \param begin_offsets  `parprim::offsets(r)` of k + 1 integers: non-decreasing, the first 0,
///   the last n
/// \param out  k elements (the accumulator type `T` is its value type)
/// \par Complexity  O(n) applications of `op`, O(k) reads of the offsets to check them and
///   O(k) to reduce; the work is split over the elements, so one long segment and many short
///   ones parallelise alike.
/// \par Errors  parprim::invalid_argument, before anything is written, if the offsets are empty,
///   their first is not 0, their last is not n or one decreases; `out` does not have k elements;
///   data is null with a non-zero size; `out` overlaps `in` or the offsets.
/// Otherwise as the head-flag form.
template <class Policy, class InputRange, class OffsetSpan, class OutputRange, class T,
          class BinaryOp = plus>
void segmented_reduce(const Policy& policy, const InputRange& in,
                      const segment_offsets<OffsetSpan>& begin_offsets, OutputRange&& out, T init,
                      BinaryOp op = {}) {
  using impl = detail::segmented_reduce_impl<Policy>;
  if constexpr (detail::offsets_reduce_call_ok<Policy, impl, InputRange, OffsetSpan, OutputRange,
                                               BinaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    const OffsetSpan& begins = begin_offsets.begins;
    detail::check_offset_reduce_args(input, begins, output, "segmented_reduce", op, start);
    if constexpr (detail::checks_offsets_while_reducing_v<impl>) {
      detail::routed_per_segment(output, output.size(), op, [&](auto results, auto backend_op) {
        impl::reduce_offsets_checking(policy, input, begins, results,
                                      detail::backend_init<BinaryOp>(start), backend_op);
      });
    } else {
      impl::check_offsets(policy, begins, input.size(), "segmented_reduce");
      detail::routed_per_segment(output, output.size(), op, [&](auto results, auto backend_op) {
        impl::reduce_offsets(policy, input, begins, results, detail::backend_init<BinaryOp>(start),
                             backend_op);
      });
    }
  }
}

}  // namespace parprim
