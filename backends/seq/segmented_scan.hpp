#pragma once
/// \file
/// \brief Sequential segmented inclusive and exclusive scan. `flags` is a span of one-byte head
/// flags or a head view (detail/heads.hpp: the scans by key pass the runs of equal keys).

#include <cstddef>
#include <cstdint>
#include <span>

#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct segmented_scan_impl<seq_policy> {
  template <class Input, class Flags, class Out, class Op>
  static void inclusive(const seq_policy&, const Input& in, const Flags& flags, std::span<Out> out,
                        Op op) {
    if (in.empty()) return;
    if constexpr (accumulating_operator<Op>) {
      op.scan_block(in, 0, in.size(), nullptr, nullptr, &flags, false,
                    copy_to<Out>{out.data()});
    } else {
      Out acc = static_cast<Out>(in[0]);
      out[0] = acc;
      for (std::size_t i = 1; i < in.size(); ++i) {
        acc =
            flags[i] ? static_cast<Out>(in[i]) : static_cast<Out>(op(acc, static_cast<Out>(in[i])));
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
      Out acc = init;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const auto x = in[i];
        if (i == 0 || flags[i]) acc = init;
        out[i] = acc;
        acc = static_cast<Out>(op(acc, static_cast<Out>(x)));
      }
    }
  }
};

}  // namespace parprim::detail
