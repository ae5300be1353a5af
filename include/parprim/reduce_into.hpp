#pragma once
/// \file
/// \brief parprim::reduce_into and parprim::transform_reduce_into: the fold written to a result
/// range of one element instead of returned. With parprim::cuda the result is device memory
/// (`device_span<T>` of one element), written in stream order, so the value never has to cross
/// to the host; with `parprim::cuda.nosync()` the call returns once its work is enqueued (the
/// way to reduce inside a GPU pipeline or a CUDA graph, docs/guide.md "The GPU"). With the host
/// policies the result is a host range and the call is `result[0] = reduce(...)`.
///
/// \code
///   parprim::device_buffer<float> sum(1);
///   parprim::reduce_into(parprim::cuda.on(s).nosync(), x.span(), sum.span(), 0.0f);
///   next_kernel<<<g, b, 0, s>>>(sum.span().data());      // reads it in stream order
/// \endcode

#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/operators.hpp>
#include <parprim/reduce.hpp>
#include <parprim/transform_reduce.hpp>

namespace parprim {

namespace detail {
/// \brief Throws unless `result` is one element with data.
template <class Span>
void check_result_slot(const Span& result, const char* fn) {
  if (result.size() != 1)
    throw invalid_argument(std::string("parprim::") + fn +
                           ": the result range must have exactly one element, it has " +
                           std::to_string(result.size()));
  check_data(result, fn, "result");
}

/// \brief The result range of a reduce_into: its element type is the accumulator type, and a
/// device result needs a policy that writes device memory.
template <class Policy, class Output, class T>
constexpr void require_result_range() {
  static_assert(std::is_same_v<typename Output::value_type, T>,
                "parprim::reduce_into: the result range's element type must be the type of init "
                "(the accumulator type T)");
  static_assert(reduces_into_device_v<Policy> || is_std_span_v<Output>,
                "parprim::reduce_into: a parprim::device_span result needs a parprim::cuda "
                "policy; host policies write a host range of one element");
}
}  // namespace detail

/// \brief `result[0] = init op in[0] op ... op in[n-1]`, as parprim::reduce.
///
/// \param result  one element: a `device_span<T>` with parprim::cuda (device memory, written in
///   stream order: with `nosync()` read it only after synchronising with the stream, or from
///   work enqueued after the call on the same stream), a host range with the host policies
/// \pre as parprim::reduce; `result` does not overlap `in`.
/// \par Errors  parprim::invalid_argument, before anything is written, if `result` does not have
///   exactly one element, data is null, or (CUDA) the result overlaps an input or is host memory.
/// \par Determinism  as parprim::reduce.
template <class Policy, class InputRange, class ResultRange, class T, class BinaryOp = plus>
void reduce_into(const Policy& policy, const InputRange& in, ResultRange&& result, T init,
                 BinaryOp op = {}) {
  if constexpr (!detail::reduce_call_ok<Policy, detail::reduce_impl<Policy>, InputRange, T,
                                        BinaryOp>()) {
    return;  // not reached: a static_assert of the check failed
  } else if constexpr (detail::reduces_into_device_v<Policy>) {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    const auto input = detail::as_input_span(in);
    detail::check_data(input, "reduce_into", "in");
    detail::check_result_slot(output, "reduce_into");
    detail::reduce_impl<Policy>::into(policy, input, output, std::move(init), op);
  } else {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    detail::check_result_slot(output, "reduce_into");
    output[0] = reduce(policy, in, std::move(init), op);
  }
}

/// \brief `result[0] = transform_reduce(policy, in, init, op, f)`; as reduce_into.
template <class Policy, class InputRange, class ResultRange, class T, class ReduceOp, class UnaryOp>
void transform_reduce_into(const Policy& policy, const InputRange& in, ResultRange&& result, T init,
                           ReduceOp op, UnaryOp f) {
  if constexpr (!detail::transform_reduce_call_ok<Policy, detail::reduce_impl<Policy>, InputRange,
                                                  T, ReduceOp, UnaryOp>()) {
    return;  // not reached: a static_assert of the check failed
  } else if constexpr (detail::reduces_into_device_v<Policy>) {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    const auto input = detail::as_input_span(in);
    const detail::unary_transform_view view(input, f);
    detail::check_data(input, "transform_reduce_into", "in");
    detail::check_result_slot(output, "transform_reduce_into");
    detail::check_disjoint(input, output, "transform_reduce_into", "in", "result");
    detail::reduce_impl<Policy>::into(policy, view, output, std::move(init), op);
  } else {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    detail::check_result_slot(output, "transform_reduce_into");
    output[0] = transform_reduce(policy, in, std::move(init), op, f);
  }
}

/// \brief `result[0] = transform_reduce(policy, in1, in2, init, op, f)`; as reduce_into.
template <class Policy, class InputRange1, class InputRange2, class ResultRange, class T,
          class ReduceOp, class BinaryOp>
void transform_reduce_into(const Policy& policy, const InputRange1& in1, const InputRange2& in2,
                           ResultRange&& result, T init, ReduceOp op, BinaryOp f) {
  if constexpr (!detail::transform_reduce2_call_ok<Policy, detail::reduce_impl<Policy>, InputRange1,
                                                   InputRange2, T, ReduceOp, BinaryOp>()) {
    return;  // not reached: a static_assert of the check failed
  } else if constexpr (detail::reduces_into_device_v<Policy>) {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    const auto input1 = detail::as_input_span(in1);
    const auto input2 = detail::as_input_span(in2);
    const detail::binary_transform_view view(input1, input2, f);
    detail::check_data(input1, "transform_reduce_into", "in1");
    detail::check_data(input2, "transform_reduce_into", "in2");
    detail::check_same_size(input1, input2, "transform_reduce_into", "in1", "in2");
    detail::check_result_slot(output, "transform_reduce_into");
    detail::check_disjoint(input1, output, "transform_reduce_into", "in1", "result");
    detail::check_disjoint(input2, output, "transform_reduce_into", "in2", "result");
    detail::reduce_impl<Policy>::into(policy, view, output, std::move(init), op);
  } else {
    const auto output = detail::as_output_span(std::forward<ResultRange>(result));
    detail::require_result_range<Policy, std::remove_cv_t<decltype(output)>, T>();
    detail::check_result_slot(output, "transform_reduce_into");
    output[0] = transform_reduce(policy, in1, in2, std::move(init), op, f);
  }
}

}  // namespace parprim
