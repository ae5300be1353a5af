#pragma once
/// \file
/// \brief Sequential reduce: the left fold.

#include <cstddef>
#include <utility>

#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct reduce_impl<seq_policy> {
  /// \param in  a `std::span` or a transform view (detail/transform_view.hpp)
  template <class Input, class T, class Op>
  static T apply(const seq_policy&, const Input& in, T init, Op op) {
    if constexpr (accumulating_operator<Op>) {
      return op.fold(std::move(init), in, 0, in.size());
    } else {
      for (std::size_t i = 0; i < in.size(); ++i)
        init = static_cast<T>(op(std::move(init), static_cast<T>(in[i])));
      return init;
    }
  }
};

}  // namespace parprim::detail
