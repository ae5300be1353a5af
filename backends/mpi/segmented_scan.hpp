#pragma once
/// \file
/// \brief Distributed segmented scans. A segment may span ranks; element 0 of the global
/// sequence starts one whatever its flag, element 0 of another rank's block only if flagged.
/// 1. each rank (but the last) computes its block's carry-out as a {value, head} pair: the fold
///    from its last head (or its start) to its end, and whether it holds a head;
/// 2. `MPI_Exscan` of the pairs with the flag operator
///    (s_i, f_i) (+) (s_j, f_j) = (f_j ? s_j : s_i (+) s_j, f_i | f_j) as a non-commutative
///    user operation on a derived datatype gives each rank the segmented value just before it;
/// 3. the carry applies up to the block's first head only: that part is scanned from the carry
///    (plain scan, it holds no head), the rest by the local segmented scan.
/// Only the last segment is folded in step 1, so with short segments the block is read about
/// once; a single segment spanning the block costs one more read, as in scan.hpp.

#include <algorithm>
#include <cstddef>
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
#include <parprim/detail/segmented.hpp>
#include <parprim/segmented_scan.hpp>

namespace parprim {

namespace detail {

template <class Local>
struct segmented_scan_impl<mpi_policy<Local>> {
  template <class Input, class Flag, class Out, class Op>
  static void inclusive(const mpi_policy<Local>& policy, const Input& in,
                        std::span<const Flag> flags, std::span<Out> out, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const std::size_t h = first_head(flags);
    const auto carry = carry_in<Acc>(policy, in, flags, h, op);
    const std::optional<Acc> value = carry ? std::optional<Acc>(carry->value) : std::nullopt;
    mpi_detail::inclusive_from(policy.local_policy(), in.first(h), out.first(h), value, op);
    if (h < in.size())
      segmented_scan_impl<Local>::inclusive(policy.local_policy(), in.subspan(h), flags.subspan(h),
                                            out.subspan(h), op);
  }

  template <class Input, class Flag, class Out, class Op>
  static void exclusive(const mpi_policy<Local>& policy, const Input& in,
                        std::span<const Flag> flags, std::span<Out> out,
                        accumulator_t<Op, Out> init, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const std::size_t h = first_head(flags);
    const auto carry = carry_in<Acc>(policy, in, flags, h, op);
    const Acc start = carry ? static_cast<Acc>(op(init, carry->value)) : init;
    scan_impl<Local>::exclusive(policy.local_policy(), in.first(h), out.first(h), start, op);
    if (h < in.size())
      segmented_scan_impl<Local>::exclusive(policy.local_policy(), in.subspan(h), flags.subspan(h),
                                            out.subspan(h), init, op);
  }

 private:
  template <class Flag>
  static std::size_t first_head(std::span<const Flag> flags) {
    const auto it = std::find_if(flags.begin(), flags.end(), [](Flag f) { return f != Flag{}; });
    return static_cast<std::size_t>(it - flags.begin());
  }

  /// The segmented value just before this block, as a {value, head} pair (empty if no rank to
  /// the left has elements). `h` is the block's first head (its size if none).
  template <class Out, class Input, class Flag, class Op>
  static std::optional<flagged<Out>> carry_in(const mpi_policy<Local>& policy, const Input& in,
                                              std::span<const Flag> flags, std::size_t h,
                                              const Op& op) {
    namespace md = mpi_detail;
    md::require_combinable<typename Input::value_type, Out, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    if (ctx.size == 1) return std::nullopt;
    std::optional<flagged<Out>> total;
    md::agree_on_local_work(policy, "segmented_scan", [&] {
      if (!in.empty() && ctx.rank + 1 < ctx.size) {
        std::size_t last = 0;  // the block's last head, or 0
        if (h < in.size()) {
          last = in.size() - 1;
          while (flags[last] == Flag{}) --last;
        }
        total = flagged<Out>{md::fold_block<Out>(policy.local_policy(), in.subspan(last), op),
                             h < in.size()};
      }
    });
    return md::exscan_segmented(ctx, total, op);
  }
};

}  // namespace detail

/// \brief parprim::segmented_inclusive_scan on a communicator: the global sequence and its head
/// flags are the concatenation of the ranks' blocks in rank order; segments may span ranks.
/// Collective; `out` may be `in`. Blocks may be empty on any rank.
/// \par Errors  parprim::invalid_argument on EVERY rank if any rank's arguments are invalid,
///   before anything is written; parprim::mpi_error if MPI fails.
/// \par Determinism  as parprim::inclusive_scan on a communicator.
template <class Local, class InputRange, class FlagRange, class OutputRange, class BinaryOp = plus>
void segmented_inclusive_scan(const mpi_policy<Local>& policy, const InputRange& in,
                              const FlagRange& head_flags, OutputRange&& out, BinaryOp op = {}) {
  if constexpr (detail::segmented_scan_call_ok<mpi_policy<Local>,
                                               detail::segmented_scan_impl<mpi_policy<Local>>,
                                               InputRange, FlagRange, OutputRange, BinaryOp>()) {
    using impl = detail::segmented_scan_impl<mpi_policy<Local>>;
    const auto input = detail::as_input_span(in);
    const auto flags = detail::as_input_span(head_flags);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    mpi_detail::agree_on_arguments(policy, "segmented_inclusive_scan", [&] {
      detail::check_segmented_args(input, flags, output, "segmented_inclusive_scan", op);
      mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                           "segmented_inclusive_scan",
                                           {{"in", input.data(), input.size()},
                                            {"head_flags", flags.data(), flags.size()},
                                            {"out", output.data(), output.size()}});
    });
    detail::routed_segmented_inclusive<impl>(policy, input, flags, output, op);
  }
}

/// \brief parprim::segmented_exclusive_scan on a communicator: `init` at each segment head,
/// segments spanning ranks. Otherwise as segmented_inclusive_scan above.
template <class Local, class InputRange, class FlagRange, class OutputRange, class T,
          class BinaryOp = plus>
void segmented_exclusive_scan(const mpi_policy<Local>& policy, const InputRange& in,
                              const FlagRange& head_flags, OutputRange&& out, T init,
                              BinaryOp op = {}) {
  if constexpr (detail::segmented_scan_call_ok<mpi_policy<Local>,
                                               detail::segmented_scan_impl<mpi_policy<Local>>,
                                               InputRange, FlagRange, OutputRange, BinaryOp, T>()) {
    using impl = detail::segmented_scan_impl<mpi_policy<Local>>;
    const auto input = detail::as_input_span(in);
    const auto flags = detail::as_input_span(head_flags);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    mpi_detail::agree_on_arguments(policy, "segmented_exclusive_scan", [&] {
      detail::check_segmented_args(input, flags, output, "segmented_exclusive_scan", op, &start);
      mpi_detail::local_checks<Local>::run(policy.communicator(), policy.local_policy(),
                                           "segmented_exclusive_scan",
                                           {{"in", input.data(), input.size()},
                                            {"head_flags", flags.data(), flags.size()},
                                            {"out", output.data(), output.size()}});
    });
    detail::routed_segmented_exclusive<impl>(policy, input, flags, output, start, op);
  }
}

}  // namespace parprim
