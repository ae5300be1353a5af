#pragma once
/// \file
/// \brief Sequential reduce: the left fold.

#include <span>
#include <utility>

#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct reduce_impl<seq_policy> {
  template <class In, class T, class Op>
  static T apply(const seq_policy&, std::span<const In> in, T init, Op op) {
    for (const In& x : in) init = static_cast<T>(op(std::move(init), static_cast<T>(x)));
    return init;
  }
};

}  // namespace parprim::detail
