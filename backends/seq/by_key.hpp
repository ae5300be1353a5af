#pragma once
/// \file
/// \brief Sequential reduce_by_key (run by run where runs are long, else a plain loop) and scans by
/// key (the sequential segmented scans reading the runs of equal keys through a head view,
/// detail/heads.hpp).

#include <cstddef>
#include <span>

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

  /// Runs this long on average (or longer) are reduced run by run: the next head found a
  /// chunk of keys at a time (key_heads::next), then a fold of the run with no test per element.
  static constexpr std::size_t long_run = 16;

  template <class Key, class Input, class KeyOut, class Out, class Op>
  static void reduce(const seq_policy&, const segment_count& plan, std::span<const Key> keys,
                     const Input& in, std::span<KeyOut> keys_out, std::span<Out> out, Op op) {
    const std::size_t n = in.size();
    if (n == 0) return;
    if (plan.count <= n / long_run) {
      const key_heads<Key> heads(keys);
      std::size_t s = 0;
      for (std::size_t b = 0; b < n; ++s) {
        const std::size_t e = heads.next(b + 1, n);
        Out acc = static_cast<Out>(in[b]);
        for (std::size_t i = b + 1; i < e; ++i)
          acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
        keys_out[s] = keys[b];
        out[s] = acc;
        b = e;
      }
      return;
    }
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
