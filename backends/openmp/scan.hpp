#pragma once
/// \file
/// \brief OpenMP inclusive and exclusive scan on the cache-tiled three-phase driver.

#include <cstddef>
#include <span>

#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/grouped_sums.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct scan_impl<omp_policy> {
  /// \param carry  the fold of the elements before `in[0]` (an MPI rank's carry from its
  ///   left), or null
  template <class Input, class Out, class Op>
  static void inclusive(const omp_policy& policy, const Input& in, std::span<Out> out, Op op,
                        const accumulator_t<Op, Out>* carry = nullptr) {
    using Acc = accumulator_t<Op, Out>;
    const int team =
        openmp::detail::scan_team_size(policy, in.size(), sizeof(typename Input::value_type));
    const bool stream = openmp::detail::use_streaming(team, out.size_bytes());
    const std::size_t round = round_elements<Input, Op>(policy, team);
    const openmp::detail::next_round_prefetch<Out, Input> prefetch(in, round);
    openmp::detail::thread_memos<Op> memos(team, round, fold_ahead<Op>());
    const auto scan_block = [&](std::size_t b, std::size_t e, const Acc* c) {
      if constexpr (accumulating_operator<Op>) {
        scan_accumulating(op, in, b, e, c, false, accumulating_store<Op>(out, stream, round),
                          memos);
      } else if constexpr (openmp::detail::grouped_sums_ok<Out, Input, Op>()) {
        openmp::detail::grouped_sum_scan<false>(in.data(), out.data(), b, e, c, stream, prefetch);
      } else {
        std::size_t i = b;
        const Out first = c ? *c : static_cast<Out>(in[b]);
        if (!c) out[i++] = first;
        // The accumulator lives in the functor (by value), not behind a reference the output
        // stores could alias, so it stays in a register.
        openmp::detail::write_sequence(out.data(), i, e, stream,
                                       [acc = first, &in, op, prefetch](std::size_t k) mutable {
                                         prefetch(k);
                                         acc = static_cast<Out>(op(acc, static_cast<Out>(in[k])));
                                         return acc;
                                       });
      }
    };
    run(team, policy, in, carry, op, memos, scan_block);
  }

  template <class Input, class Out, class Op>
  static void exclusive(const omp_policy& policy, const Input& in, std::span<Out> out,
                        accumulator_t<Op, Out> init, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const int team =
        openmp::detail::scan_team_size(policy, in.size(), sizeof(typename Input::value_type));
    const bool stream = openmp::detail::use_streaming(team, out.size_bytes());
    const std::size_t round = round_elements<Input, Op>(policy, team);
    const openmp::detail::next_round_prefetch<Out, Input> prefetch(in, round);
    openmp::detail::thread_memos<Op> memos(team, round, fold_ahead<Op>());
    const auto scan_block = [&](std::size_t b, std::size_t e, const Acc* carry) {
      // carry is never null: the running carry starts at init
      if constexpr (accumulating_operator<Op>) {
        scan_accumulating(op, in, b, e, carry, true, accumulating_store<Op>(out, stream, round),
                          memos);
      } else if constexpr (openmp::detail::grouped_sums_ok<Out, Input, Op>()) {
        openmp::detail::grouped_sum_scan<true>(in.data(), out.data(), b, e, carry, stream,
                                               prefetch);
      } else {
        openmp::detail::write_sequence(out.data(), b, e, stream,
                                       [acc = *carry, &in, op, prefetch](std::size_t k) mutable {
                                         prefetch(k);
                                         const Out before = acc;
                                         acc = static_cast<Out>(op(acc, static_cast<Out>(in[k])));
                                         return before;
                                       });
      }
    };
    run(team, policy, in, &init, op, memos, scan_block);
  }

 private:
  /// \brief Elements of a round of `team` threads; 0 for one thread (no rounds).
  template <class Input, class Op>
  static std::size_t round_elements(const omp_policy& policy, int team) {
    return team > 1 ? openmp::detail::scan_tile_elements<Input, Op>(policy, team) *
                          static_cast<std::size_t>(team)
                    : 0;
  }

  /// \brief Rounds by which the driver folds each block before its scan: scan_fold_ahead for an
  /// accumulating operator (its blocks are small, scan_tile), else none.
  template <class Op>
  static constexpr std::size_t fold_ahead() {
    return accumulating_operator<Op> ? openmp::detail::scan_fold_ahead : 0;
  }

  /// \brief The store of an accumulating operator's block scans into `out`: its chunks ask for
  /// the input of the block their thread folds next, fold_ahead + 1 rounds of `round` elements on.
  template <class Op, class Out>
  static openmp::detail::read_ahead_store<Out> accumulating_store(std::span<Out> out, bool stream,
                                                                  std::size_t round) {
    return {{out.data(), stream}, (fold_ahead<Op>() + 1) * round};
  }

  /// \brief An accumulating operator's scan of block [b, e), with the memo its fold of the
  /// block left on this thread where it has them.
  template <class Op, class Input, class Acc, class Store, class Memos>
  static void scan_accumulating(const Op& op, const Input& in, std::size_t b, std::size_t e,
                                const Acc* carry, bool exclusive, Store store, Memos& memos) {
    if constexpr (memo_operator<Op>)
      op.scan_block(in, b, e, carry, nullptr, no_flags, exclusive, store, memos.of(b));
    else
      op.scan_block(in, b, e, carry, nullptr, no_flags, exclusive, store);
  }

  template <class Input, class Acc, class Op, class Memos, class ScanBlock>
  static void run(int team, const omp_policy& policy, const Input& in, const Acc* carry, Op op,
                  Memos& memos, ScanBlock scan_block) {
    namespace od = openmp::detail;
    const auto total = [&](std::size_t b, std::size_t e) {
      if constexpr (memo_operator<Op>) {
        if (auto* memo = memos.of(b)) return op.fold(Acc{}, in, b, e - b, memo);
      }
      return od::fold_nonempty<Acc>(in, b, e, op);
    };
    const auto combine = [&](const Acc& a, const Acc& b) { return static_cast<Acc>(op(a, b)); };
    // an exact operator's results do not depend on the blocks: they follow the threads' speeds;
    // its blocks (scan_tile) are small enough to fold rounds ahead (scan_fold_ahead)
    od::tiled_scan<Acc>(in.size(), team, od::scan_tile_elements<Input, Op>(policy, team), carry,
                        total, combine, scan_block,
                        {.balanced = accumulating_operator<Op>, .fold_ahead = fold_ahead<Op>()});
  }
};

}  // namespace parprim::detail
