#pragma once
/// \file
/// \brief The transforms on a communicator: parprim::transform_reduce (one and two inputs),
/// transform_inclusive_scan and transform_exclusive_scan over the concatenation of the ranks'
/// blocks, in rank order. Each rank transforms its own elements in its local pass (the same
/// distributed algorithms as reduce and the scans, reading a transform view of the block); only
/// O(1) values per rank cross the network. Collective, as the plain primitives: arguments are
/// agreed on (an invalid one raises on every rank), and an exception thrown by `f` or `op` in a
/// rank's local fold raises on every rank (detail/agree.hpp).

#include <type_traits>
#include <utility>

#include <parprim/backends/mpi/detail/agree.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/backends/mpi/reduce.hpp>
#include <parprim/backends/mpi/scan.hpp>
#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/transform_reduce.hpp>
#include <parprim/transform_scan.hpp>

namespace parprim {

namespace mpi_detail {
/// \brief The transforms on a communicator read host blocks (seq and omp local policies).
template <class InputSpan>
constexpr void require_host_blocks() {
  static_assert(detail::is_std_span_v<std::remove_cv_t<InputSpan>>,
                "parprim::transform_* on parprim::mpi(comm).local(parprim::cuda) is not "
                "available yet: use a host local policy (parprim::seq, parprim::omp), or "
                "parprim::transform_* with parprim::cuda on each rank's block and "
                "parprim::reduce / the scans on the communicator");
}
}  // namespace mpi_detail

/// \brief parprim::transform_reduce on a communicator; results as parprim::reduce there.
template <class Local, class InputRange, class T, class ReduceOp, class UnaryOp>
T transform_reduce(const mpi_policy<Local>& policy, const InputRange& in, T init, ReduceOp op,
                   UnaryOp f) {
  if constexpr (detail::transform_reduce_call_ok<mpi_policy<Local>,
                                                 detail::reduce_impl<mpi_policy<Local>>, InputRange,
                                                 T, ReduceOp, UnaryOp>()) {
    const auto input = detail::as_input_span(in);
    mpi_detail::require_host_blocks<decltype(input)>();
    const detail::unary_transform_view view(input, f);
    mpi_detail::agree_on_arguments(policy, "transform_reduce", [&] {
      detail::check_data(input, "transform_reduce", "in");
      mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                           "transform_reduce",
                                           {{"in", input.data(), input.size()}});
      detail::maybe_check_operator<T>("transform_reduce", op, view, &init);
    });
    return detail::routed_reduce<detail::reduce_impl<mpi_policy<Local>>>(policy, view, std::move(init), op);
  } else {
    return init;  // not reached: a static_assert failed
  }
}

/// \brief parprim::transform_reduce of two inputs on a communicator: each rank's two blocks
/// have the same size (checked on every rank).
template <class Local, class InputRange1, class InputRange2, class T, class ReduceOp,
          class BinaryOp>
T transform_reduce(const mpi_policy<Local>& policy, const InputRange1& in1, const InputRange2& in2,
                   T init, ReduceOp op, BinaryOp f) {
  if constexpr (detail::transform_reduce2_call_ok<
                    mpi_policy<Local>, detail::reduce_impl<mpi_policy<Local>>, InputRange1,
                    InputRange2, T, ReduceOp, BinaryOp>()) {
    const auto input1 = detail::as_input_span(in1);
    const auto input2 = detail::as_input_span(in2);
    mpi_detail::require_host_blocks<decltype(input1)>();
    const detail::binary_transform_view view(input1, input2, f);
    mpi_detail::agree_on_arguments(policy, "transform_reduce", [&] {
      detail::check_data(input1, "transform_reduce", "in1");
      detail::check_data(input2, "transform_reduce", "in2");
      detail::check_same_size(input1, input2, "transform_reduce", "in1", "in2");
      mpi_detail::local_checks<Local>::run(
          policy.communicator(), policy.local_policy(), "transform_reduce",
          {{"in1", input1.data(), input1.size()}, {"in2", input2.data(), input2.size()}});
      detail::maybe_check_operator<T>("transform_reduce", op, view, &init);
    });
    return detail::routed_reduce<detail::reduce_impl<mpi_policy<Local>>>(policy, view, std::move(init), op);
  } else {
    return init;  // not reached: a static_assert failed
  }
}

/// \brief parprim::transform_inclusive_scan on a communicator; as parprim::inclusive_scan there.
template <class Local, class InputRange, class OutputRange, class BinaryOp, class UnaryOp>
void transform_inclusive_scan(const mpi_policy<Local>& policy, const InputRange& in,
                              OutputRange&& out, BinaryOp op, UnaryOp f) {
  if constexpr (detail::transform_scan_call_ok<mpi_policy<Local>,
                                               detail::scan_impl<mpi_policy<Local>>, InputRange,
                                               OutputRange, BinaryOp, UnaryOp>()) {
    const auto input = detail::as_input_span(in);
    mpi_detail::require_host_blocks<decltype(input)>();
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    const detail::unary_transform_view view(input, f);
    mpi_detail::agree_on_arguments(policy, "transform_inclusive_scan", [&] {
      detail::check_scan_args(input, output, "transform_inclusive_scan", op, nullptr, &view);
      mpi_detail::local_checks<Local>::run(
          policy.communicator(), policy.local_policy(), "transform_inclusive_scan",
          {{"in", input.data(), input.size()}, {"out", output.data(), output.size()}});
    });
    detail::routed_inclusive<detail::scan_impl<mpi_policy<Local>>>(policy, view, output, op);
  }
}

/// \brief parprim::transform_exclusive_scan on a communicator; as parprim::exclusive_scan there.
template <class Local, class InputRange, class OutputRange, class T, class BinaryOp, class UnaryOp>
void transform_exclusive_scan(const mpi_policy<Local>& policy, const InputRange& in,
                              OutputRange&& out, T init, BinaryOp op, UnaryOp f) {
  if constexpr (detail::transform_scan_call_ok<mpi_policy<Local>,
                                               detail::scan_impl<mpi_policy<Local>>, InputRange,
                                               OutputRange, BinaryOp, UnaryOp, T>()) {
    const auto input = detail::as_input_span(in);
    mpi_detail::require_host_blocks<decltype(input)>();
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    const detail::unary_transform_view view(input, f);
    mpi_detail::agree_on_arguments(policy, "transform_exclusive_scan", [&] {
      detail::check_scan_args(input, output, "transform_exclusive_scan", op, &start, &view);
      mpi_detail::local_checks<Local>::run(
          policy.communicator(), policy.local_policy(), "transform_exclusive_scan",
          {{"in", input.data(), input.size()}, {"out", output.data(), output.size()}});
    });
    detail::routed_exclusive<detail::scan_impl<mpi_policy<Local>>>(policy, view, output, start, op);
  }
}

}  // namespace parprim
