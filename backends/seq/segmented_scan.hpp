#pragma once
/// \file
/// \brief Sequential segmented inclusive and exclusive scan. `flags` is a span of one-byte head
/// flags or a head view (detail/heads.hpp: the scans by key pass the runs of equal keys).

#include <cstddef>
#include <cstdint>
#include <span>

#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct segmented_scan_impl<seq_policy> {
  template <class Input, class Flags, class Out, class Op>
  static void inclusive(const seq_policy&, const Input& in, const Flags& flags, std::span<Out> out,
                        Op op) {
    if (in.empty()) return;
    if constexpr (accumulating_operator<Op>) {
      op.scan_block(in, 0, in.size(), nullptr, nullptr, &flags, false, copy_to<Out>{out.data()});
    } else {
      Out acc = static_cast<Out>(in[0]);
      out[0] = acc;
      for (std::size_t i = 1; i < in.size(); ++i) {
        const Out x = static_cast<Out>(in[i]);
        acc = head_after_first(flags, i) ? x : static_cast<Out>(op(acc, x));
        out[i] = acc;
      }
    }
  }

  template <class Input, class Flags, class Out, class Op>
  static void exclusive(const seq_policy&, const Input& in, const Flags& flags, std::span<Out> out,
                        accumulator_t<Op, Out> init, Op op) {
    if constexpr (accumulating_operator<Op>) {
      if (!in.empty())
        op.scan_block(in, 0, in.size(), &init, &init, &flags, true, copy_to<Out>{out.data()});
    } else {
      if (in.empty()) return;
      Out acc = static_cast<Out>(op(init, static_cast<Out>(in[0])));
      out[0] = init;
      for (std::size_t i = 1; i < in.size(); ++i) {
        const Out x = static_cast<Out>(in[i]);
        const Out start = head_after_first(flags, i) ? init : acc;
        out[i] = start;
        acc = static_cast<Out>(op(start, x));
      }
    }
  }
};

}  // namespace parprim::detail
