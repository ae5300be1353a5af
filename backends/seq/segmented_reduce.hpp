#pragma once
/// \file
/// \brief Sequential segmented reduce (head flags and CSR offsets): plain loops.

#include <cstddef>
#include <span>

#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/detail/offsets.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct segmented_reduce_impl<seq_policy> {
  template <class Flag>
  static segment_count plan_flags(const seq_policy&, std::span<const Flag> flags) {
    segment_count p;
    for (std::size_t i = 0; i < flags.size(); ++i)
      if (i == 0 || flags[i] != Flag{}) ++p.count;
    return p;
  }

  /// Segments this long on average (or longer) are reduced one at a time: the next head found
  /// eight flags at a time (first_set_byte), then a fold of the segment with no test per element.
  static constexpr std::size_t long_segment = 16;

  template <class Input, class Flag, class Out, class Op>
  static void reduce_flags(const seq_policy&, const segment_count& plan, const Input& in,
                           std::span<const Flag> flags, std::span<Out> out, Out init, Op op) {
    const std::size_t n = in.size();
    if (n == 0) return;
    if constexpr (sizeof(Flag) == 1) {
      if (plan.count <= n / long_segment) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(flags.data());
        std::size_t s = 0;
        for (std::size_t b = 0; b < n; ++s) {
          const std::size_t e = first_set_byte(bytes, b + 1, n);
          Out acc = init;
          for (std::size_t i = b; i < e; ++i)
            acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
          out[s] = acc;
          b = e;
        }
        return;
      }
    }
    std::size_t s = 0;
    Out acc = init;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (i > 0 && flags[i] != Flag{}) {
        out[s++] = acc;
        acc = init;
      }
      acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
    }
    out[s] = acc;
  }

  template <class I>
  static void check_offsets(const seq_policy&, std::span<const I> offsets, std::size_t n,
                            const char* fn) {
    check_offset_ends(offsets, n, fn);
    const std::size_t i = first_decrease(offsets, 1, offsets.size());
    if (i < offsets.size()) throw_offsets_decrease(fn, i, offsets[i - 1], offsets[i]);
  }

  template <class Input, class I, class Out, class Op>
  static void reduce_offsets(const seq_policy&, const Input& in, std::span<const I> offsets,
                             std::span<Out> out, Out init, Op op) {
    for (std::size_t s = 0; s < out.size(); ++s) {
      Out acc = init;
      const auto end = static_cast<std::size_t>(offsets[s + 1]);
      for (auto i = static_cast<std::size_t>(offsets[s]); i < end; ++i)
        acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
      out[s] = acc;
    }
  }
};

}  // namespace parprim::detail
