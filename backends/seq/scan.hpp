#pragma once
/// \file
/// \brief Sequential inclusive and exclusive scan.

#include <cstddef>
#include <span>

#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct scan_impl<seq_policy> {
  template <class Input, class Out, class Op>
  static void inclusive(const seq_policy&, const Input& in, std::span<Out> out, Op op) {
    if (in.empty()) return;
    Out acc = static_cast<Out>(in[0]);
    out[0] = acc;
    for (std::size_t i = 1; i < in.size(); ++i) {
      acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
      out[i] = acc;
    }
  }

  template <class Input, class Out, class Op>
  static void exclusive(const seq_policy&, const Input& in, std::span<Out> out, Out init, Op op) {
    Out acc = init;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto x = in[i];  // read before writing: out may be in
      out[i] = acc;
      acc = static_cast<Out>(op(acc, static_cast<Out>(x)));
    }
  }
};

}  // namespace parprim::detail
