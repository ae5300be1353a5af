#pragma once
/// \file
/// \brief The flag operator of segmented scan, shared by every backend:
/// (s_i, f_i) (+) (s_j, f_j) = (f_j ? s_j : s_i (+) s_j, f_i | f_j).
/// It is associative whenever (+) is, and never commutative.

#include <parprim/detail/macros.hpp>

namespace parprim::detail {

/// \brief A partial value of a segmented scan and whether a segment starts inside it.
template <class T>
struct flagged {
  T value;
  bool head;
};

/// \brief Lifts `Op` to `flagged<T>` pairs.
template <class Op>
struct flag_op {
  Op op;
  template <class T>
  PARPRIM_HOST_DEVICE constexpr flagged<T> operator()(const flagged<T>& a,
                                                      const flagged<T>& b) const {
    return b.head ? b : flagged<T>{static_cast<T>(op(a.value, b.value)), a.head || b.head};
  }
};

}  // namespace parprim::detail
