#pragma once
/// \file
/// \brief The one collective each primitive makes, on a value per rank that may be empty.
///
/// Built-in operator x built-in type: the empty side is the operator's identity and the
/// predefined datatype and operation are used. Anything else: the value travels as
/// `maybe<T>` = {value, has} on a derived datatype with a user operation that treats an empty
/// side as the identity, so operators without an identity work with ranks holding no elements.
///
/// Delivering a reduction to every rank: when the value type combines exactly (integers,
/// structs of integers), `MPI_Allreduce`. Otherwise (floating point anywhere in the type)
/// `MPI_Reduce` to rank 0 followed by `MPI_Bcast`: the MPI standard does not require
/// `MPI_Allreduce` to give every rank the same bits, and parprim promises that all ranks agree
/// bitwise. The reduction tree is MPI's and fixed for a given MPI library, configuration and
/// communicator size, so results also repeat from run to run.

#include <mpi.h>

#include <optional>
#include <type_traits>

#include <parprim/backends/mpi/datatype.hpp>
#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/detail/op.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/segmented.hpp>

// The carried wrappers are described structs themselves (nested datatypes).
template <class T>
struct parprim::mpi_struct<parprim::mpi_detail::maybe<T>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::mpi_detail::maybe<T>::value);
    visit(&parprim::mpi_detail::maybe<T>::has);
  }
};
template <class T>
struct parprim::mpi_struct<parprim::detail::flagged<T>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::detail::flagged<T>::value);
    visit(&parprim::detail::flagged<T>::head);
  }
};
// exact_plus's superaccumulator: limbs and flags, all integers, so it combines exactly (and
// travels through MPI_Allreduce, see below).
template <class F>
struct parprim::mpi_struct<parprim::detail::exact_accumulator<F>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::detail::exact_accumulator<F>::limb);
    visit(&parprim::detail::exact_accumulator<F>::state);
  }
};

namespace parprim::mpi_detail {

/// \brief Whether `Op` on `T` uses MPI's predefined datatype and operation.
template <class Op, class T>
inline constexpr bool predefined_pair_v = predefined_op_v<Op, T>&& predefined_v<T>;

/// \brief Combines one `V` per rank with `mop` (rank order kept for non-commutative ops) and
/// delivers it to `root`, or to every rank when `root` is empty. \return whether this rank got
/// the result in `out`.
template <class V>
bool reduce_values(const context& ctx, const std::optional<int>& root, const V& mine, V& out,
                   MPI_Op mop) {
  const type_entry t = type_of<V>();
  if (root) {
    PARPRIM_MPI_CHECK(MPI_Reduce(&mine, &out, 1, t.type, mop, *root, ctx.comm));
    return ctx.rank == *root;
  }
  if (t.exact) {
    PARPRIM_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, t.type, mop, ctx.comm));
  } else {
    PARPRIM_MPI_CHECK(MPI_Reduce(&mine, &out, 1, t.type, mop, 0, ctx.comm));
    PARPRIM_MPI_CHECK(MPI_Bcast(&out, 1, t.type, 0, ctx.comm));
  }
  return true;
}

/// \brief The fold, in rank order, of the non-empty ranks' partials: on `root` (or every rank
/// when `root` is empty). Empty when every rank was empty, and on the other ranks.
template <class T, class Op>
std::optional<T> reduce_across(const context& ctx, const std::optional<int>& root,
                               const std::optional<T>& partial, const Op& op) {
  if (ctx.size == 1) return partial;
  if constexpr (predefined_pair_v<Op, T>) {
    const T mine = partial ? *partial : predefined_identity<Op, T>();
    T out = mine;
    if (!reduce_values(ctx, root, mine, out, predefined_op<Op, T>())) return std::nullopt;
    return out;
  } else {
    const maybe<T> mine = partial ? maybe<T>{*partial, true} : maybe<T>{T{}, false};
    maybe<T> out = mine;
    const op_scope<Op> scope(op);
    const bool got = reduce_values(ctx, root, mine, out, user_op<maybe<T>, Op, maybe_rule>());
    scope.rethrow_pending();
    if (!got || !out.has) return std::nullopt;
    return out.value;
  }
}

/// \brief `MPI_Exscan` of a value that may be empty, with a user operation.
template <class V, class Rule, class Op>
std::optional<V> exscan_maybe(const context& ctx, const std::optional<V>& mine, const Op& op) {
  const maybe<V> send = mine ? maybe<V>{*mine, true} : maybe<V>{V{}, false};
  maybe<V> recv = send;  // rank 0's receive buffer is undefined after MPI_Exscan: never read
  const op_scope<Op> scope(op);
  PARPRIM_MPI_CHECK(MPI_Exscan(&send, &recv, 1, type_of<maybe<V>>().type,
                               user_op<maybe<V>, Op, Rule>(), ctx.comm));
  scope.rethrow_pending();
  if (ctx.rank == 0 || !recv.has) return std::nullopt;
  return recv.value;
}

/// \brief The fold of the partials of the ranks before this one (empty on rank 0 and when they
/// are all empty; on the predefined path the identity then). `mine` is read on ranks < size - 1
/// only.
template <class T, class Op>
std::optional<T> exscan_across(const context& ctx, const std::optional<T>& mine, const Op& op) {
  if (ctx.size == 1) return std::nullopt;
  if constexpr (predefined_pair_v<Op, T>) {
    const T send = mine ? *mine : predefined_identity<Op, T>();
    T recv = send;
    PARPRIM_MPI_CHECK(
        MPI_Exscan(&send, &recv, 1, predefined_datatype<T>(), predefined_op<Op, T>(), ctx.comm));
    if (ctx.rank == 0) return std::nullopt;
    return recv;
  } else {
    return exscan_maybe<T, maybe_rule>(ctx, mine, op);
  }
}

/// \brief As exscan_across for segmented scans: {value, head} pairs under the flag operator.
template <class T, class Op>
std::optional<detail::flagged<T>> exscan_segmented(const context& ctx,
                                                   const std::optional<detail::flagged<T>>& mine,
                                                   const Op& op) {
  if (ctx.size == 1) return std::nullopt;
  return exscan_maybe<detail::flagged<T>, segmented_rule>(ctx, mine, op);
}

}  // namespace parprim::mpi_detail
