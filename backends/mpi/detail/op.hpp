#pragma once
/// \file
/// \brief How operators travel: built-in operator x built-in type pairs use MPI's predefined
/// operations; everything else becomes a user `MPI_Op` (`MPI_Op_create`) whose function is a
/// trampoline into the C++ operator, with the commute flag taken from
/// `parprim::is_commutative_v`.
///
/// MPI calls a user operation's function with no context pointer, so the trampoline must find
/// the operator object on its own:
/// - a stateless operator (empty and default-constructible: parprim's operators, captureless
///   lambdas, plain functor structs) is default-constructed inside the trampoline; this is
///   always safe;
/// - a stateful operator (a lambda with captures, a functor with data members) is published in
///   a `thread_local` slot for the duration of the collective. That relies on the MPI library
///   calling the function on the thread that called the blocking collective, which Open MPI and
///   MPICH do; an MPI with asynchronous progress threads that reduce on their own may not.
///   Prefer stateless operators.
///
/// One `MPI_Op` is created per (value type, operator type, combining rule), cached, and freed
/// in `MPI_Finalize`. An exception thrown by the operator cannot cross MPI's C code: the
/// trampoline catches it, and it is rethrown on that rank when the collective returns (the
/// other ranks then hold meaningless results for that call). Operators should not throw.

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <type_traits>

#include <parprim/backends/mpi/datatype.hpp>
#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/detail/finalize.hpp>
#include <parprim/detail/segmented.hpp>
#include <parprim/operators.hpp>

namespace parprim::mpi_detail {

// --- predefined operations -----------------------------------------------------------------

template <class Op, class T>
inline constexpr bool predefined_op_v = [] {
  using O = std::remove_cvref_t<Op>;
  if constexpr (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) {
    return false;
  } else {
    // MPI_MIN / MPI_MAX do not order NaN and signed zeros as parprim's minimum / maximum do
    // (operators.hpp): floating-point min / max travel as user operations.
    constexpr bool arith =
        std::is_same_v<O, plus> || std::is_same_v<O, multiplies> ||
        (std::is_integral_v<T> && (std::is_same_v<O, minimum> || std::is_same_v<O, maximum>));
    constexpr bool bits =
        std::is_integral_v<T> &&
        (std::is_same_v<O, bit_and> || std::is_same_v<O, bit_or> || std::is_same_v<O, bit_xor>);
    return arith || bits;
  }
}();

/// \brief The predefined operation for `Op` on `T` (only when `predefined_op_v<Op, T>`).
template <class Op, class T>
requires predefined_op_v<Op, T> MPI_Op predefined_op() {
  using O = std::remove_cvref_t<Op>;
  if constexpr (std::is_same_v<O, plus>)
    return MPI_SUM;
  else if constexpr (std::is_same_v<O, multiplies>)
    return MPI_PROD;
  else if constexpr (std::is_same_v<O, minimum>)
    return MPI_MIN;
  else if constexpr (std::is_same_v<O, maximum>)
    return MPI_MAX;
  else if constexpr (std::is_same_v<O, bit_and>)
    return MPI_BAND;
  else if constexpr (std::is_same_v<O, bit_or>)
    return MPI_BOR;
  else
    return MPI_BXOR;
}

/// \brief The identity used for ranks without elements on the predefined path. For floating
/// `plus` it is -0.0, the exact additive identity (-0.0 + x == x bit for bit, also for x = -0.0).
template <class Op, class T>
requires predefined_op_v<Op, T> T predefined_identity() {
  if constexpr (std::is_same_v<std::remove_cvref_t<Op>, plus> && std::is_floating_point_v<T>)
    return -T(0);
  else
    return identity_v<std::remove_cvref_t<Op>, T>();
}

// --- values carried between ranks -----------------------------------------------------------

/// \brief A partial result that may be empty (a rank without elements): lets operators without
/// an identity handle empty ranks.
template <class T>
struct maybe {
  T value;
  bool has;
};

/// \brief Combining rules: how a user operator acts on the carried values.
/// `apply(op, left, right)` is `left (+) right`, left being the lower ranks.
/// maybe<T>: an empty side is the identity.
struct maybe_rule {
  template <class Op>
  static constexpr bool commutative = is_commutative_v<Op>;
  template <class Op, class T>
  static maybe<T> apply(const Op& op, const maybe<T>& a, const maybe<T>& b) {
    if (!a.has) return b;
    if (!b.has) return a;
    return {static_cast<T>(op(a.value, b.value)), true};
  }
};
/// \brief maybe<flagged<T>>: the segmented-scan flag operator, never commutative.
struct segmented_rule {
  template <class Op>
  static constexpr bool commutative = false;
  template <class Op, class T>
  static maybe<detail::flagged<T>> apply(const Op& op, const maybe<detail::flagged<T>>& a,
                                         const maybe<detail::flagged<T>>& b) {
    return maybe_rule::apply(detail::flag_op<Op>{op}, a, b);
  }
};

// --- the trampoline -------------------------------------------------------------------------

template <class Op>
inline constexpr bool stateless_v = std::is_empty_v<Op>&& std::is_default_constructible_v<Op>;

/// \brief Where a stateful operator is published during a collective.
template <class Op>
struct op_slot {
  static inline thread_local const Op* current = nullptr;
};

/// \brief The first exception an operator threw inside a collective on this thread.
struct pending_exception {
  static inline thread_local std::exception_ptr value;
};

/// \brief Publishes `op` (if stateful) for the collectives in this scope; on leaving, rethrows
/// an exception the operator threw inside MPI.
template <class Op>
class op_scope {
 public:
  explicit op_scope(const Op& op) : previous_(op_slot<Op>::current) {
    if constexpr (!stateless_v<Op>) op_slot<Op>::current = &op;
  }
  op_scope(const op_scope&) = delete;
  op_scope& operator=(const op_scope&) = delete;
  ~op_scope() { op_slot<Op>::current = previous_; }

  /// \brief Call after the collective returned.
  static void rethrow_pending() {
    if (pending_exception::value) {
      std::exception_ptr e = pending_exception::value;
      pending_exception::value = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  const Op* previous_;
};

/// \brief The MPI_User_function: inout[i] = in[i] (+) inout[i], in holding the lower ranks.
/// Elements are copied through aligned locals (MPI's buffers need not be aligned for V), and
/// only the bytes V's datatype describes are read and written: MPI sizes its temporary buffers
/// by the datatype's true extent, which leaves out V's trailing padding (e.g. the 15 bytes
/// after {long double, bool}).
template <class V, class Op, class Rule>
void trampoline(void* in, void* inout, int* len, MPI_Datatype*) noexcept {
  try {
    const auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    const type_entry& type = type_of<V>();  // built before the collective started
    const auto lb = static_cast<std::size_t>(type.true_lb);
    const auto bytes = static_cast<std::size_t>(type.true_extent);
    const auto run = [&](const Op& op) {
      for (int i = 0; i < *len; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * sizeof(V) + lb;
        V left{};
        V right{};
        std::memcpy(reinterpret_cast<unsigned char*>(&left) + lb, a + at, bytes);
        std::memcpy(reinterpret_cast<unsigned char*>(&right) + lb, b + at, bytes);
        const V r = Rule::apply(op, left, right);
        std::memcpy(b + at, reinterpret_cast<const unsigned char*>(&r) + lb, bytes);
      }
    };
    if constexpr (stateless_v<Op>) {
      run(Op{});
    } else {
      run(*op_slot<Op>::current);
    }
  } catch (...) {
    if (!pending_exception::value) pending_exception::value = std::current_exception();
  }
}

/// \brief The cached user MPI_Op for values `V`, operator `Op` and rule `Rule`.
template <class V, class Op, class Rule>
MPI_Op user_op() {
  (void)type_of<V>();  // the trampoline reads it: build it outside MPI's callback
  static const MPI_Op handle = [] {
    MPI_Op h = MPI_OP_NULL;
    PARPRIM_MPI_CHECK(
        MPI_Op_create(&trampoline<V, Op, Rule>, Rule::template commutative<Op> ? 1 : 0, &h));
    finalizer::instance().at_finalize([h]() mutable { MPI_Op_free(&h); });
    return h;
  }();
  return handle;
}

}  // namespace parprim::mpi_detail
