#pragma once
/// \file
/// \brief Distributed reduce: each rank folds its block with the local policy, then one
/// collective combines the per-rank partials in rank order (see detail/collectives.hpp).
/// T_P = n/p (local) + one reduction of a scalar (log p).

#include <optional>
#include <span>
#include <utility>

#include <parprim/backends/mpi/detail/agree.hpp>
#include <parprim/backends/mpi/detail/collectives.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/reduce.hpp>

namespace parprim {

namespace detail {

template <class Local>
struct reduce_impl<mpi_policy<Local>> {
  template <class Input, class T, class Op>
  static T apply(const mpi_policy<Local>& policy, const Input& in, T init, Op op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, T, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    std::optional<T> partial;
    md::agree_on_local_work(policy, "reduce", [&] {
      if (!in.empty()) partial = md::fold_block<T>(policy.local_policy(), in, op);
    });
    const std::optional<T> total = md::reduce_across(ctx, policy.root_rank(), partial, op);
    if (!total) return init;
    return static_cast<T>(op(std::move(init), *total));
  }
};

}  // namespace detail

/// \brief parprim::reduce on a communicator: the fold of `init` and the concatenation of every
/// rank's `in`, in rank order. Collective: every rank calls it with the same operator, `T` and
/// policy options; `init` should be the same on every rank.
///
/// \return the result on every rank; with `.root(r)`, on rank r only, the other ranks getting
/// `init` back.
/// \par Empty blocks  Ranks may pass no elements, for any operator (no identity needed).
/// \par Errors  parprim::invalid_argument on EVERY rank if any rank's arguments are invalid
///   (see detail/agree.hpp); parprim::mpi_error if MPI fails.
/// \par Determinism  Integer results equal the sequential left fold. Floating-point results
///   are within the bound of docs/guide.md, and identical on all ranks bit for bit (the value
///   is computed once and broadcast) and from run to run for the same rank count, local
///   configuration, MPI library and input.
template <class Local, class InputRange, class T, class BinaryOp = plus>
T reduce(const mpi_policy<Local>& policy, const InputRange& in, T init, BinaryOp op = {}) {
  if constexpr (detail::reduce_call_ok<mpi_policy<Local>, detail::reduce_impl<mpi_policy<Local>>,
                                       InputRange, T, BinaryOp>()) {
    using impl = detail::reduce_impl<mpi_policy<Local>>;
    const auto input = detail::as_input_span(in);
    mpi_detail::agree_on_arguments(policy, "reduce", [&] {
      detail::check_data(input, "reduce", "in");
      detail::maybe_check_operator<T>("reduce", op, input, &init);
      mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(), "reduce",
                                           {{"in", input.data(), input.size()}});
    });
    return detail::routed_reduce<impl>(policy, input, std::move(init), op);
  } else {
    return init;  // not reached: a static_assert failed
  }
}

}  // namespace parprim
