#pragma once
/// \file
/// \brief Sequential reduce_by_key (run by run where runs are long, else a plain loop) and scans by
/// key (the sequential segmented scans reading the runs of equal keys through a head view,
/// detail/heads.hpp).

#include <cstddef>
#include <span>

#include <parprim/backends/seq/segmented_reduce.hpp>
#include <parprim/backends/seq/segmented_scan.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct reduce_by_key_impl<seq_policy> {
  template <class Key>
  static segment_count plan(const seq_policy&, std::span<const Key> keys) {
    segment_count p;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (i == 0 || !(keys[i] == keys[i - 1])) ++p.count;
    return p;
  }

  template <class Key, class Input, class KeyOut, class Out, class Op>
  static void reduce(const seq_policy&, const segment_count& plan, std::span<const Key> keys,
                     const Input& in, std::span<KeyOut> keys_out, std::span<Out> out, Op op) {
    if (in.empty()) return;
    const auto first = [](const auto& x) { return static_cast<Out>(x); };
    const auto store = [&](std::size_t s, std::size_t b, const Out& v) {
      keys_out[s] = keys[b];
      out[s] = v;
    };
    if (reduce_long_runs<Out>(key_heads<Key>(keys), plan.count, in, op, first, store)) return;
    std::size_t s = 0;
    keys_out[0] = keys[0];
    Out acc = static_cast<Out>(in[0]);
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (!(keys[i] == keys[i - 1])) {
        out[s++] = acc;
        keys_out[s] = keys[i];
        acc = static_cast<Out>(in[i]);
      } else {
        acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
      }
    }
    out[s] = acc;
  }
};

template <>
struct scan_by_key_impl<seq_policy> {
  template <class Key, class Input, class Out, class Op>
  static void inclusive(const seq_policy& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, Op op) {
    segmented_scan_impl<seq_policy>::inclusive(policy, in, key_heads<Key>(keys), out, op);
  }

  template <class Key, class Input, class Out, class Op>
  static void exclusive(const seq_policy& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, accumulator_t<Op, Out> init, Op op) {
    segmented_scan_impl<seq_policy>::exclusive(policy, in, key_heads<Key>(keys), out, init, op);
  }
};

}  // namespace parprim::detail
