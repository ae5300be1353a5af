#pragma once
/// \file
/// \brief Distributed reduce_by_key and scans by key: the global keys and elements are the
/// ranks' blocks in rank order, and a run of equal keys may span ranks.
///
/// reduce_by_key: a run's result (and its key) lands on the rank that holds its first element.
/// 0. `MPI_Exscan` of a key: the last key of the nearest rank to the left with elements (the
///    block's first run continues it if the keys are equal); then the argument agreement, which
///    also checks `keys_out` and `out` against this rank's number of runs;
/// 1. each rank folds its first run (its lead) and reduces the rest with the local policy; a
///    first run that does not continue one from the left is written here too;
/// 2. one `MPI_Exscan` over the rank-reversed communicator folds the leads of the ranks to the
///    right whose keys continue this rank's last run into its result (detail/segments.hpp).
/// Scans by key, as the segmented scans (segmented_scan.hpp): ranks but the last fold their last
/// run; one `MPI_Exscan` of {tail, first key, last key, inner head} gives each rank the value of
/// the run open at its left edge and the key it has; the block's first run is scanned from that
/// carry if its key is the same, the rest by the local scan by key.
/// Each block is read once more than its keys (reduce_by_key reads the keys to count the runs,
/// then with the elements); O(1) values and keys per rank cross the network.

#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include <parprim/backends/mpi/detail/agree.hpp>
#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/detail/segments.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/backends/mpi/segmented_reduce.hpp>
#include <parprim/by_key.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>

namespace parprim {

namespace detail {

/// \brief The end of the first run of `keys` (1 <= result <= size; 0 when empty).
template <class Key>
std::size_t first_run_end(std::span<const Key> keys) {
  if (keys.empty()) return 0;
  std::size_t i = 1;
  while (i < keys.size() && keys[i] == keys[i - 1]) ++i;
  return i;
}

template <class Local>
struct reduce_by_key_impl<mpi_policy<Local>> {
  /// Where this block's runs start: its first run has `lead` elements; `own_lead`: it does not
  /// continue a run from the left, so its result is written here; the local plan of the rest.
  template <class Plan>
  struct layout {
    std::size_t lead = 0;
    bool own_lead = false;
    std::optional<Plan> plan;
    std::size_t results() const noexcept {
      return (plan ? plan->segments() : 0) + (own_lead ? 1 : 0);
    }
  };
  template <class Key>
  using plan_t = decltype(reduce_by_key_impl<Local>::plan(std::declval<const Local&>(),
                                                          std::declval<std::span<const Key>>()));

  /// \param left_key  the last key of the nearest rank to the left with elements
  template <class Key>
  static layout<plan_t<Key>> plan(const mpi_policy<Local>& policy, std::span<const Key> keys,
                                  const std::optional<Key>& left_key) {
    layout<plan_t<Key>> l;
    if (keys.empty()) return l;
    l.lead = first_run_end(keys);
    l.own_lead = !(left_key && *left_key == keys[0]);
    if (l.lead < keys.size())
      l.plan = reduce_by_key_impl<Local>::plan(policy.local_policy(), keys.subspan(l.lead));
    return l;
  }

  template <class Key, class Input, class KeyOut, class Out, class Op>
  static void reduce(const mpi_policy<Local>& policy, const layout<plan_t<Key>>& l,
                     std::span<const Key> keys, const Input& in, std::span<KeyOut> keys_out,
                     std::span<Out> out, Op op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, Out, Op>();
    const Local& local = policy.local_policy();
    const std::size_t n = in.size();
    const std::size_t h = l.lead;
    const std::size_t k = l.results();
    std::optional<Out> lead;
    md::agree_on_local_work(policy, "reduce_by_key", [&] {
      if (n == 0) return;
      lead = md::fold_block<Out>(local, in.first(h), op);
      std::size_t o = 0;
      if (l.own_lead) {
        keys_out[0] = keys[0];
        out[0] = *lead;
        o = 1;
      }
      if (h < n)
        reduce_by_key_impl<Local>::reduce(local, *l.plan, keys.subspan(h), in.subspan(h),
                                          keys_out.subspan(o), out.subspan(o), op);
    });
    std::optional<md::key_lead<Out, Key>> mine;
    if (n > 0) mine = md::key_lead<Out, Key>{*lead, keys[0], keys[n - 1], h < n};
    const auto right = md::exscan_from_the_right<md::key_lead<Out, Key>, md::key_lead_op>(
        policy.communicator(), mine, op);
    if (k > 0 && right && right->first == keys[n - 1])
      out[k - 1] = static_cast<Out>(op(out[k - 1], right->value));
  }
};

template <class Local>
struct scan_by_key_impl<mpi_policy<Local>> {
  template <class Key, class Input, class Out, class Op>
  static void inclusive(const mpi_policy<Local>& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, Op op) {
    const auto [carry, h] = carry_in<accumulator_t<Op, Out>>(policy, keys, in, op);
    mpi_detail::inclusive_from(policy.local_policy(), in.first(h), out.first(h), carry, op);
    if (h < in.size())
      scan_by_key_impl<Local>::inclusive(policy.local_policy(), keys.subspan(h), in.subspan(h),
                                         out.subspan(h), op);
  }

  template <class Key, class Input, class Out, class Op>
  static void exclusive(const mpi_policy<Local>& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, accumulator_t<Op, Out> init, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const auto [carry, h] = carry_in<Acc>(policy, keys, in, op);
    const Acc start = carry ? static_cast<Acc>(op(init, *carry)) : init;
    scan_impl<Local>::exclusive(policy.local_policy(), in.first(h), out.first(h), start, op);
    if (h < in.size())
      scan_by_key_impl<Local>::exclusive(policy.local_policy(), keys.subspan(h), in.subspan(h),
                                         out.subspan(h), init, op);
  }

 private:
  /// The value of the run open at this block's left edge if the block's first run continues
  /// it, and the length of that first run (0 if it does not continue one). `Out`: the carry's
  /// type (an accumulating operator's own accumulator, detail/accumulating.hpp).
  template <class Out, class Key, class Input, class Op>
  static std::pair<std::optional<Out>, std::size_t> carry_in(const mpi_policy<Local>& policy,
                                                             std::span<const Key> keys,
                                                             const Input& in, const Op& op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, Out, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    if (ctx.size == 1) return {std::nullopt, 0};
    const std::size_t n = in.size();
    std::optional<md::key_tail<Out, Key>> mine;
    md::agree_on_local_work(policy, "scan_by_key", [&] {
      if (n == 0 || ctx.rank + 1 == ctx.size) return;
      std::size_t last = n - 1;  // the last run's first element
      while (last > 0 && keys[last] == keys[last - 1]) --last;
      mine =
          md::key_tail<Out, Key>{md::fold_block<Out>(policy.local_policy(), in.subspan(last), op),
                                 keys[0], keys[n - 1], last > 0};
    });
    const auto left =
        md::exscan_maybe<md::key_tail<Out, Key>, md::forward_rule<md::key_tail_op>>(ctx, mine, op);
    if (!left || n == 0 || !(left->last == keys[0])) return {std::nullopt, 0};
    return {left->tail, first_run_end(keys)};
  }
};

}  // namespace detail

/// \brief parprim::reduce_by_key on a communicator: the global keys and elements are the
/// concatenation of the ranks' blocks in rank order; a run of equal keys may span ranks, is
/// reduced across them, and its result (and key) lands on the rank that holds its first
/// element. Collective; blocks may be empty on any rank.
/// \param keys_out, out  on each rank, room for the runs that start in its block
/// \return on each rank, the number of runs that start in its block (its results); their sum
///   over the ranks is the number of runs
/// \par Errors  parprim::invalid_argument on EVERY rank, before anything is written, if any
///   rank's arguments are invalid (as on one process, the outputs measured against that rank's
///   runs); parprim::mpi_error if MPI fails; an exception thrown by `op` in a rank's local work
///   raises on every rank. Keys travel between ranks: trivially copyable, described as
///   datatype.hpp says (or sent as bytes).
/// \par Determinism  as parprim::reduce on a communicator, per run.
template <class Local, class KeyRange, class InputRange, class KeyOutputRange, class OutputRange,
          class BinaryOp = plus>
std::size_t reduce_by_key(const mpi_policy<Local>& policy, const KeyRange& keys,
                          const InputRange& in, KeyOutputRange&& keys_out, OutputRange&& out,
                          BinaryOp op = {}) {
  (void)mpi_detail::require_host_local<Local>{};
  using impl = detail::reduce_by_key_impl<mpi_policy<Local>>;
  const auto key_span = detail::as_input_span(keys);
  const auto input = detail::as_input_span(in);
  const auto key_output = detail::as_output_span(std::forward<KeyOutputRange>(keys_out));
  const auto output = detail::as_output_span(std::forward<OutputRange>(out));
  using key_t = typename decltype(key_span)::value_type;
  detail::require_keys<key_t>();
  const mpi_detail::context ctx = mpi_detail::make_context(policy.communicator());
  const std::optional<key_t> left_key = mpi_detail::last_key_to_the_left(ctx, key_span);
  typename impl::template layout<typename impl::template plan_t<key_t>> layout;
  mpi_detail::agree_on_arguments(policy, "reduce_by_key", [&] {
    detail::check_reduce_by_key_args(key_span, input, key_output, output, "reduce_by_key", op);
    mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                         "reduce_by_key",
                                         {{"keys", key_span.data(), key_span.size()},
                                          {"in", input.data(), input.size()},
                                          {"keys_out", key_output.data(), key_output.size()},
                                          {"out", output.data(), output.size()}});
    layout = impl::plan(policy, key_span, left_key);
    detail::check_room("reduce_by_key", "keys_out", key_output.size(), layout.results(),
                       "key runs starting on this rank");
    detail::check_room("reduce_by_key", "out", output.size(), layout.results(),
                       "key runs starting on this rank");
  });
  detail::routed_per_segment(output, layout.results(), op, [&](auto results, auto backend_op) {
    impl::reduce(policy, layout, key_span, input, key_output, results, backend_op);
  });
  return layout.results();
}

/// \brief parprim::inclusive_scan_by_key on a communicator: runs of equal keys may span ranks
/// (a rank's first run continues the one open to its left when their keys are equal).
/// Collective; `out` may be `in`; blocks may be empty on any rank.
/// \par Errors  as parprim::inclusive_scan on a communicator.
template <class Local, class KeyRange, class InputRange, class OutputRange, class BinaryOp = plus>
void inclusive_scan_by_key(const mpi_policy<Local>& policy, const KeyRange& keys,
                           const InputRange& in, OutputRange&& out, BinaryOp op = {}) {
  (void)mpi_detail::require_host_local<Local>{};
  const auto key_span = detail::as_input_span(keys);
  const auto input = detail::as_input_span(in);
  const auto output = detail::as_output_span(std::forward<OutputRange>(out));
  mpi_detail::agree_on_arguments(policy, "inclusive_scan_by_key", [&] {
    detail::check_scan_by_key_args(key_span, input, output, "inclusive_scan_by_key", op);
    mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                         "inclusive_scan_by_key",
                                         {{"keys", key_span.data(), key_span.size()},
                                          {"in", input.data(), input.size()},
                                          {"out", output.data(), output.size()}});
  });
  using acc_t = typename decltype(output)::value_type;
  detail::scan_by_key_impl<mpi_policy<Local>>::inclusive(policy, key_span, input, output,
                                                         detail::backend_op<acc_t>(op));
}

/// \brief parprim::exclusive_scan_by_key on a communicator: `init` at the first element of
/// every run. Otherwise as inclusive_scan_by_key above.
template <class Local, class KeyRange, class InputRange, class OutputRange, class T,
          class BinaryOp = plus>
void exclusive_scan_by_key(const mpi_policy<Local>& policy, const KeyRange& keys,
                           const InputRange& in, OutputRange&& out, T init, BinaryOp op = {}) {
  (void)mpi_detail::require_host_local<Local>{};
  const auto key_span = detail::as_input_span(keys);
  const auto input = detail::as_input_span(in);
  const auto output = detail::as_output_span(std::forward<OutputRange>(out));
  using acc_t = typename decltype(output)::value_type;
  const acc_t start = static_cast<acc_t>(std::move(init));
  mpi_detail::agree_on_arguments(policy, "exclusive_scan_by_key", [&] {
    detail::check_scan_by_key_args(key_span, input, output, "exclusive_scan_by_key", op, &start);
    mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                         "exclusive_scan_by_key",
                                         {{"keys", key_span.data(), key_span.size()},
                                          {"in", input.data(), input.size()},
                                          {"out", output.data(), output.size()}});
  });
  detail::scan_by_key_impl<mpi_policy<Local>>::exclusive(policy, key_span, input, output,
                                                         detail::backend_init<BinaryOp>(start),
                                                         detail::backend_op<acc_t>(op));
}

}  // namespace parprim
