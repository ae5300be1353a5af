#pragma once
/// \file
/// \brief Distributed segmented reduce. Head flags: the global sequence and its flags are the
/// ranks' blocks in rank order; a segment may span ranks, and its result lands on the rank that
/// holds its first element (a rank's `out` receives the results of the segments that start in
/// its block, in order; the call returns their number there).
/// 0. `MPI_Exscan` of an int: whether a rank to the left has elements (if none, the block's
///    element 0 starts a segment whatever its flag); then the argument agreement, which also
///    checks `out` against this rank's number of segments before anything is written;
/// 1. each rank folds its lead (the elements before its first head, which continue a segment
///    from the left) and reduces the rest of its block with the local policy, writing every
///    result; the last one is still open;
/// 2. one `MPI_Exscan` over the rank-reversed communicator folds the leads of the ranks to the
///    right, up to the first rank that holds a head (detail/segments.hpp), into that last result.
/// Each block is read once (its flags twice: counted, then reduced); {value, has, closed}
/// crosses the network once per rank. CSR offsets: each rank's offsets describe its own block
/// (0, ..., its size), so segments do not span ranks: a local segmented reduce on each rank,
/// after the argument agreement.

#include <cstddef>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <parprim/backends/mpi/detail/agree.hpp>
#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/detail/segments.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/segmented_reduce.hpp>

namespace parprim {

namespace mpi_detail {
/// \brief The per-segment primitives on a communicator read host blocks (seq and omp local
/// policies): `require_host_local<Local>{}` first in each (a class, so that its message comes
/// before the errors of the rest of the call).
template <class Local>
struct require_host_local {
  static_assert(!detail::is_cuda_policy_v<Local>,
                "parprim: segmented_reduce, reduce_by_key, inclusive_scan_by_key and "
                "exclusive_scan_by_key on parprim::mpi(comm).local(parprim::cuda) are not "
                "available yet: use a host local policy (parprim::seq, parprim::omp)");
};
}  // namespace mpi_detail

namespace detail {

template <class Local>
struct segmented_reduce_impl<mpi_policy<Local>> {
  /// Where this block's segments start: `lead` elements before its first head; `own_lead`: the
  /// block holds the sequence's element 0, so they are a segment of its own; the local plan
  /// of the rest.
  template <class Plan>
  struct layout {
    std::size_t lead = 0;
    bool own_lead = false;
    std::optional<Plan> plan;
    std::size_t results() const noexcept {
      return (plan ? plan->segments() : 0) + (own_lead && lead > 0 ? 1 : 0);
    }
  };
  template <class Flag>
  using plan_t = decltype(segmented_reduce_impl<Local>::plan_flags(
      std::declval<const Local&>(), std::declval<std::span<const Flag>>()));

  /// \param left_has_elements  whether a rank to the left has elements
  template <class Flag>
  static layout<plan_t<Flag>> plan_flags(const mpi_policy<Local>& policy,
                                         std::span<const Flag> flags, bool left_has_elements) {
    layout<plan_t<Flag>> l;
    l.lead = first_set_byte(reinterpret_cast<const unsigned char*>(flags.data()), 0, flags.size());
    l.own_lead = !left_has_elements;
    if (l.lead < flags.size())
      l.plan =
          segmented_reduce_impl<Local>::plan_flags(policy.local_policy(), flags.subspan(l.lead));
    return l;
  }

  template <class Input, class Flag, class Out, class Op>
  static void reduce_flags(const mpi_policy<Local>& policy, const layout<plan_t<Flag>>& l,
                           const Input& in, std::span<const Flag> flags, std::span<Out> out,
                           Out init, Op op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, Out, Op>();
    const Local& local = policy.local_policy();
    const std::size_t n = in.size();
    const std::size_t h = l.lead;
    const std::size_t k = l.results();
    std::optional<Out> lead;
    md::agree_on_local_work(policy, "segmented_reduce", [&] {
      if (h > 0) lead = md::fold_block<Out>(local, in.first(h), op);
      std::size_t o = 0;
      if (l.own_lead && lead) out[o++] = static_cast<Out>(op(init, *lead));
      if (h < n)
        segmented_reduce_impl<Local>::reduce_flags(local, *l.plan, in.subspan(h), flags.subspan(h),
                                                   out.subspan(o), init, op);
    });
    std::optional<md::open_lead<Out>> mine;
    if (n > 0) mine = md::open_lead<Out>{lead ? *lead : Out{}, lead.has_value(), h < n};
    const auto right = md::exscan_from_the_right<md::open_lead<Out>, md::open_lead_op>(
        policy.communicator(), mine, op);
    if (k > 0 && right && right->has) out[k - 1] = static_cast<Out>(op(out[k - 1], right->value));
  }
};

}  // namespace detail

/// \brief parprim::segmented_reduce with head flags on a communicator: the global sequence and
/// its flags are the concatenation of the ranks' blocks in rank order (element 0 of the first
/// rank with elements starts a segment whatever its flag; another rank's element 0 only if
/// flagged, else it continues the segment open on the ranks to its left). Each segment is
/// reduced across the ranks it spans; its result lands on the rank that holds its first
/// element. Collective; blocks may be empty on any rank.
/// \param out  on each rank, room for the segments that start in its block
/// \return on each rank, the number of segments that start in its block (its results in
///   `out`); their sum over the ranks is the number of segments
/// \par Errors  parprim::invalid_argument on EVERY rank, before anything is written, if any
///   rank's arguments are invalid (as the head-flag form on one process, `out` measured against
///   that rank's segments); parprim::mpi_error if MPI fails. An exception thrown by `op` in a
///   rank's local work raises on every rank (detail/agree.hpp).
/// \par Determinism  as parprim::reduce on a communicator, per segment.
template <class Local, class InputRange, class FlagRange, class OutputRange, class T,
          class BinaryOp = plus>
requires(!detail::is_segment_offsets_v<FlagRange>) std::size_t
    segmented_reduce(const mpi_policy<Local>& policy, const InputRange& in,
                     const FlagRange& head_flags, OutputRange&& out, T init, BinaryOp op = {}) {
  (void)mpi_detail::require_host_local<Local>{};
  using impl = detail::segmented_reduce_impl<mpi_policy<Local>>;
  const auto input = detail::as_input_span(in);
  const auto flags = detail::as_input_span(head_flags);
  const auto output = detail::as_output_span(std::forward<OutputRange>(out));
  using flag_t = typename decltype(flags)::value_type;
  using acc_t = typename decltype(output)::value_type;
  const acc_t start = static_cast<acc_t>(std::move(init));
  const mpi_detail::context ctx = mpi_detail::make_context(policy.communicator());
  const bool left = mpi_detail::elements_to_the_left(ctx, !input.empty());
  typename impl::template layout<typename impl::template plan_t<flag_t>> layout;
  mpi_detail::agree_on_arguments(policy, "segmented_reduce", [&] {
    detail::check_flag_reduce_args(input, flags, output, "segmented_reduce", op, start);
    mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                         "segmented_reduce",
                                         {{"in", input.data(), input.size()},
                                          {"head_flags", flags.data(), flags.size()},
                                          {"out", output.data(), output.size()}});
    layout = impl::plan_flags(policy, flags, left);
    detail::check_room("segmented_reduce", "out", output.size(), layout.results(),
                       "segments starting on this rank");
  });
  detail::routed_per_segment(output, layout.results(), op, [&](auto results, auto backend_op) {
    impl::reduce_flags(policy, layout, input, flags, results, detail::backend_init<BinaryOp>(start),
                       backend_op);
  });
  return layout.results();
}

/// \brief parprim::segmented_reduce with CSR offsets on a communicator: each rank's offsets
/// describe segments of its own block (k + 1 offsets, the first 0, the last the block's size),
/// so no segment spans ranks and nothing but the argument agreement crosses the network.
/// Collective (the agreement); an exception thrown by `op` is rethrown on its rank only.
/// Otherwise as the form for one process.
template <class Local, class InputRange, class OffsetSpan, class OutputRange, class T,
          class BinaryOp = plus>
void segmented_reduce(const mpi_policy<Local>& policy, const InputRange& in,
                      const segment_offsets<OffsetSpan>& begin_offsets, OutputRange&& out, T init,
                      BinaryOp op = {}) {
  (void)mpi_detail::require_host_local<Local>{};
  using local_impl = detail::segmented_reduce_impl<Local>;
  const auto input = detail::as_input_span(in);
  const auto output = detail::as_output_span(std::forward<OutputRange>(out));
  using acc_t = typename decltype(output)::value_type;
  const acc_t start = static_cast<acc_t>(std::move(init));
  const OffsetSpan& begins = begin_offsets.begins;
  mpi_detail::agree_on_arguments(policy, "segmented_reduce", [&] {
    detail::check_offset_reduce_args(input, begins, output, "segmented_reduce", op, start);
    mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                         "segmented_reduce",
                                         {{"in", input.data(), input.size()},
                                          {"offsets", begins.data(), begins.size()},
                                          {"out", output.data(), output.size()}});
    local_impl::check_offsets(policy.local_policy(), begins, input.size(), "segmented_reduce");
  });
  detail::routed_per_segment(output, output.size(), op, [&](auto results, auto backend_op) {
    local_impl::reduce_offsets(policy.local_policy(), input, begins, results,
                               detail::backend_init<BinaryOp>(start), backend_op);
  });
}

}  // namespace parprim
