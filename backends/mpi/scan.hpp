#pragma once
/// \file
/// \brief Distributed inclusive and exclusive scan, reduce-then-scan:
/// 1. each rank folds its block with the local policy (the last rank skips this: nobody needs
///    its total);
/// 2. `MPI_Exscan` of the block totals gives each rank the fold of everything to its left
///    (rank 0's undefined receive buffer is never read; ranks without elements contribute
///    nothing);
/// 3. each rank scans its block with the local policy, starting from that carry (for an
///    exclusive scan: init op carry), in sequence order, so non-commutative operators work.
/// The carry enters the local scan instead of being combined into every element afterwards:
/// the block is read twice and written once (a scan followed by a fix-up pass reads twice and
/// writes twice), and all per-element work runs on the local policy.
/// T_P = 2 n/p + one MPI_Exscan of a scalar.

#include <optional>
#include <span>
#include <utility>

#include <parprim/backends/mpi/detail/agree.hpp>
#include <parprim/backends/mpi/detail/collectives.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/scan.hpp>

namespace parprim {

namespace detail {

template <class Local>
struct scan_impl<mpi_policy<Local>> {
  template <class Input, class Out, class Op>
  static void inclusive(const mpi_policy<Local>& policy, const Input& in, std::span<Out> out,
                        Op op) {
    const auto carry = carry_in<accumulator_t<Op, Out>>(policy, in, op);
    mpi_detail::inclusive_from(policy.local_policy(), in, out, carry, op);
  }

  template <class Input, class Out, class Op>
  static void exclusive(const mpi_policy<Local>& policy, const Input& in, std::span<Out> out,
                        accumulator_t<Op, Out> init, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const std::optional<Acc> carry = carry_in<Acc>(policy, in, op);
    const Acc start = carry ? static_cast<Acc>(op(init, *carry)) : init;
    scan_impl<Local>::exclusive(policy.local_policy(), in, out, start, op);
  }

 private:
  /// The fold of the blocks of the ranks to the left (empty if there are none with elements).
  template <class Out, class Input, class Op>
  static std::optional<Out> carry_in(const mpi_policy<Local>& policy, const Input& in,
                                     const Op& op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, Out, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    std::optional<Out> total;
    md::agree_on_local_work(policy, "scan", [&] {
      if (!in.empty() && ctx.rank + 1 < ctx.size)
        total = md::fold_block<Out>(policy.local_policy(), in, op);
    });
    return md::exscan_across(ctx, total, op);
  }
};

}  // namespace detail

/// \brief parprim::inclusive_scan on a communicator: each rank's `out` receives the inclusive
/// scan of the global sequence (the concatenation of the ranks' `in` in rank order) at its
/// block's positions. Collective; `out` may be `in`. Blocks may be empty on any rank.
/// \par Errors  parprim::invalid_argument on EVERY rank if any rank's arguments are invalid,
///   before anything is written; parprim::mpi_error if MPI fails.
/// \par Determinism  Integer results equal the sequential scan; floating-point results are
///   within the bound of docs/guide.md and repeat for the same rank count, local configuration,
///   MPI library and input.
template <class Local, class InputRange, class OutputRange, class BinaryOp = plus>
void inclusive_scan(const mpi_policy<Local>& policy, const InputRange& in, OutputRange&& out,
                    BinaryOp op = {}) {
  if constexpr (detail::scan_call_ok<mpi_policy<Local>, detail::scan_impl<mpi_policy<Local>>,
                                     InputRange, OutputRange, BinaryOp>()) {
    using impl = detail::scan_impl<mpi_policy<Local>>;
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    mpi_detail::agree_on_arguments(policy, "inclusive_scan", [&] {
      detail::check_scan_args(input, output, "inclusive_scan", op);
      mpi_detail::local_checks<Local>::run(
          policy.communicator(), policy.local_policy(), "inclusive_scan",
          {{"in", input.data(), input.size()}, {"out", output.data(), output.size()}});
    });
    detail::routed_inclusive<impl>(policy, input, output, op);
  }
}

/// \brief parprim::exclusive_scan on a communicator: `init` sits at the start of the global
/// sequence (only the first element of the lowest non-empty rank receives `init` alone).
/// `init` should be the same on every rank. Otherwise as the inclusive scan above.
template <class Local, class InputRange, class OutputRange, class T, class BinaryOp = plus>
void exclusive_scan(const mpi_policy<Local>& policy, const InputRange& in, OutputRange&& out,
                    T init, BinaryOp op = {}) {
  if constexpr (detail::scan_call_ok<mpi_policy<Local>, detail::scan_impl<mpi_policy<Local>>,
                                     InputRange, OutputRange, BinaryOp, T>()) {
    using impl = detail::scan_impl<mpi_policy<Local>>;
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    mpi_detail::agree_on_arguments(policy, "exclusive_scan", [&] {
      detail::check_scan_args(input, output, "exclusive_scan", op, &start);
      mpi_detail::local_checks<Local>::run(
          policy.communicator(), policy.local_policy(), "exclusive_scan",
          {{"in", input.data(), input.size()}, {"out", output.data(), output.size()}});
    });
    detail::routed_exclusive<impl>(policy, input, output, start, op);
  }
}

}  // namespace parprim
