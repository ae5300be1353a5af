#pragma once
/// \file
/// \brief What the per-segment primitives carry between ranks, and the scans that carry it.
///
/// A segment (or key run) may span ranks. Its result lands on the rank that holds its first
/// element, so that rank needs what the ranks to its RIGHT hold of it: each rank sends the fold
/// of its block's elements before its first head (its "lead") and whether a head ends it there,
/// and one `MPI_Exscan` over the rank-reversed duplicate of the communicator
/// (comm.hpp, make_reversed_context) folds the leads of the ranks to the right, in sequence
/// order, up to the first that ends the segment. A scan by key needs, as the segmented scans do,
/// what lies to the LEFT (one `MPI_Exscan` forward), with the block's edge keys telling whether
/// a run goes on across an edge. Each carried value is a small struct (a derived datatype) in
/// `maybe<>` (ranks without elements send nothing), combined by a user operation that is never
/// commutative. A rank also learns before its arguments are checked whether its first element
/// continues a segment: for head flags, whether a rank to its left has elements (an
/// `MPI_Exscan` of an int); for keys, the last key to its left (an `MPI_Exscan` of a key).

#include <mpi.h>

#include <optional>
#include <span>

#include <parprim/backends/mpi/datatype.hpp>
#include <parprim/backends/mpi/detail/collectives.hpp>
#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/detail/op.hpp>
#include <parprim/detail/dispatch.hpp>

namespace parprim::mpi_detail {

/// \brief A block's lead (head flags): the fold of its elements before its first head (`has`:
/// there are any) and whether a head follows them in the block (`closed`).
template <class T>
struct open_lead {
  T value;
  bool has;
  bool closed;
};

/// \brief A block's lead (keys): the fold of its first run, the block's first and last key, and
/// whether the run ends in the block (`closed`).
template <class T, class K>
struct key_lead {
  T value;
  K first;
  K last;
  bool closed;
};

/// \brief A block's tail (keys): the fold of its last run, the block's first and last key, and
/// whether a run starts after its first element (`inner_head`).
template <class T, class K>
struct key_tail {
  T tail;
  K first;
  K last;
  bool inner_head;
};

}  // namespace parprim::mpi_detail

// The carried structs are described structs (derived datatypes, datatype.hpp).
template <class T>
struct parprim::mpi_struct<parprim::mpi_detail::open_lead<T>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::mpi_detail::open_lead<T>::value);
    visit(&parprim::mpi_detail::open_lead<T>::has);
    visit(&parprim::mpi_detail::open_lead<T>::closed);
  }
};
template <class T, class K>
struct parprim::mpi_struct<parprim::mpi_detail::key_lead<T, K>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::mpi_detail::key_lead<T, K>::value);
    visit(&parprim::mpi_detail::key_lead<T, K>::first);
    visit(&parprim::mpi_detail::key_lead<T, K>::last);
    visit(&parprim::mpi_detail::key_lead<T, K>::closed);
  }
};
template <class T, class K>
struct parprim::mpi_struct<parprim::mpi_detail::key_tail<T, K>> {
  template <class Visit>
  static void fields(Visit&& visit) {
    visit(&parprim::mpi_detail::key_tail<T, K>::tail);
    visit(&parprim::mpi_detail::key_tail<T, K>::first);
    visit(&parprim::mpi_detail::key_tail<T, K>::last);
    visit(&parprim::mpi_detail::key_tail<T, K>::inner_head);
  }
};

namespace parprim::mpi_detail {

/// \brief `a` then `b` (a to the left) for open_lead: a closed lead ends the fold.
template <class Op>
struct open_lead_op {
  Op op;
  template <class T>
  open_lead<T> operator()(const open_lead<T>& a, const open_lead<T>& b) const {
    if (a.closed) return a;
    if (!a.has) return b;
    if (!b.has) return {a.value, true, b.closed};
    return {static_cast<T>(op(a.value, b.value)), true, b.closed};
  }
};

/// \brief `a` then `b` for key_lead: b's lead continues a's only if a is one run and its key
/// goes on in b.
template <class Op>
struct key_lead_op {
  Op op;
  template <class T, class K>
  key_lead<T, K> operator()(const key_lead<T, K>& a, const key_lead<T, K>& b) const {
    if (a.closed || !(a.last == b.first)) return {a.value, a.first, b.last, true};
    return {static_cast<T>(op(a.value, b.value)), a.first, b.last, b.closed};
  }
};

/// \brief `a` then `b` for key_tail: a's tail goes on into b unless a run starts in b.
template <class Op>
struct key_tail_op {
  Op op;
  template <class T, class K>
  key_tail<T, K> operator()(const key_tail<T, K>& a, const key_tail<T, K>& b) const {
    const bool head = b.inner_head || !(a.last == b.first);
    return {head ? b.tail : static_cast<T>(op(a.tail, b.tail)), a.first, b.last,
            a.inner_head || head};
  }
};

/// \brief Combining rule (op.hpp) of `MPI_Exscan` on the communicator: lower ranks are to the
/// left in the sequence.
template <template <class> class Combine>
struct forward_rule {
  template <class Op>
  static constexpr bool commutative = false;
  template <class Op, class V>
  static maybe<V> apply(const Op& op, const maybe<V>& a, const maybe<V>& b) {
    return maybe_rule::apply(Combine<Op>{op}, a, b);
  }
};

/// \brief Combining rule of `MPI_Exscan` on the rank-reversed communicator: lower ranks there
/// are to the right in the sequence.
template <template <class> class Combine>
struct backward_rule {
  template <class Op>
  static constexpr bool commutative = false;
  template <class Op, class V>
  static maybe<V> apply(const Op& op, const maybe<V>& a, const maybe<V>& b) {
    return maybe_rule::apply(Combine<Op>{op}, b, a);
  }
};

/// \brief The right-most value wins (the last key to the left); needs no operator.
struct last_rule {
  template <class Op>
  static constexpr bool commutative = false;
  template <class Op, class V>
  static maybe<V> apply(const Op&, const maybe<V>& a, const maybe<V>& b) {
    return b.has ? b : a;
  }
};
/// \brief The operator type of exchanges that apply none.
struct no_op {};

/// \brief Whether a rank to the left of this one has elements (`MPI_Exscan` of an int).
inline bool elements_to_the_left(const context& ctx, bool mine) {
  if (ctx.size == 1) return false;
  int send = mine ? 1 : 0;
  int recv = 0;
  PARPRIM_MPI_CHECK(MPI_Exscan(&send, &recv, 1, MPI_INT, MPI_MAX, ctx.comm));
  return ctx.rank > 0 && recv != 0;
}

/// \brief The last key of the nearest rank to the left with elements (`MPI_Exscan` of a key).
/// Run before the arguments are agreed on: reads this block's last key only when its data is
/// not null.
template <class K>
std::optional<K> last_key_to_the_left(const context& ctx, std::span<const K> keys) {
  if (ctx.size == 1) return std::nullopt;
  std::optional<K> mine;
  if (!keys.empty() && keys.data() != nullptr) mine = keys.back();
  return exscan_maybe<K, last_rule>(ctx, mine, no_op{});
}

/// \brief The fold, in sequence order, of the values of the ranks to the RIGHT of this one with
/// `Combine` (`MPI_Exscan` on the rank-reversed communicator); empty on the last rank and when
/// they all send nothing.
template <class V, template <class> class Combine, class Op>
std::optional<V> exscan_from_the_right(MPI_Comm user, const std::optional<V>& mine, const Op& op) {
  const context reversed = make_reversed_context(user);
  if (reversed.size == 1) return std::nullopt;
  return exscan_maybe<V, backward_rule<Combine>>(reversed, mine, op);
}

}  // namespace parprim::mpi_detail
