#pragma once
/// \file
/// \brief Sequential inclusive and exclusive scan.

#include <cstddef>
#include <span>

#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct scan_impl<seq_policy> {
  /// \param carry  the fold of the elements before `in[0]` (an MPI rank's carry from its
  ///   left), or null
  template <class Input, class Out, class Op>
  static void inclusive(const seq_policy&, const Input& in, std::span<Out> out, Op op,
                        const accumulator_t<Op, Out>* carry = nullptr) {
    if (in.empty()) return;
    if constexpr (accumulating_operator<Op>) {
      op.scan_block(in, 0, in.size(), carry, nullptr, no_flags, false, copy_to<Out>{out.data()});
    } else {
      Out acc =
          carry ? static_cast<Out>(op(*carry, static_cast<Out>(in[0]))) : static_cast<Out>(in[0]);
      out[0] = acc;
      for (std::size_t i = 1; i < in.size(); ++i) {
        acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
        out[i] = acc;
      }
    }
  }

  template <class Input, class Out, class Op>
  static void exclusive(const seq_policy&, const Input& in, std::span<Out> out,
                        accumulator_t<Op, Out> init, Op op) {
    if constexpr (accumulating_operator<Op>) {
      op.scan_block(in, 0, in.size(), &init, nullptr, no_flags, true, copy_to<Out>{out.data()});
    } else {
      Out acc = init;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const auto x = in[i];  // read before writing: out may be in
        out[i] = acc;
        acc = static_cast<Out>(op(acc, static_cast<Out>(x)));
      }
    }
  }
};

}  // namespace parprim::detail
