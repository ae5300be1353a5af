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

/// \brief The sequential per-segment reductions where runs are long (at most n / 16 of them, the
/// plan's count): for each run [b, e) of `heads`, the next head found a chunk at a time
/// (`heads.next`), `emit(s, b, v)` with `v = first(in[b]) op in[b + 1] op ... op in[e - 1]`, a
/// fold with no test per element. \return false, having done nothing, where runs are shorter.
template <class Out, class Heads, class Input, class Op, class First, class Emit>
bool reduce_long_runs(const Heads& heads, std::size_t runs, const Input& in, const Op& op,
                      const First& first, const Emit& emit) {
  constexpr std::size_t long_run = 16;
  const std::size_t n = in.size();
  if (runs > n / long_run) return false;
  std::size_t s = 0;
  for (std::size_t b = 0; b < n; ++s) {
    const std::size_t e = heads.next(b + 1, n);
    Out acc = first(in[b]);
    for (std::size_t i = b + 1; i < e; ++i)
      acc = static_cast<Out>(op(acc, static_cast<Out>(in[i])));
    emit(s, b, acc);
    b = e;
  }
  return true;
}

template <>
struct segmented_reduce_impl<seq_policy> {
  template <class Flag>
  static segment_count plan_flags(const seq_policy&, std::span<const Flag> flags) {
    segment_count p;
    for (std::size_t i = 0; i < flags.size(); ++i)
      if (i == 0 || flags[i] != Flag{}) ++p.count;
    return p;
  }

  template <class Input, class Flag, class Out, class Op>
  static void reduce_flags(const seq_policy&, const segment_count& plan, const Input& in,
                           std::span<const Flag> flags, std::span<Out> out, Out init, Op op) {
    if (in.empty()) return;
    const auto first = [&](const auto& x) {
      return static_cast<Out>(op(init, static_cast<Out>(x)));
    };
    const auto store = [&](std::size_t s, std::size_t, const Out& v) { out[s] = v; };
    if (reduce_long_runs<Out>(flag_heads<Flag>(flags), plan.count, in, op, first, store)) return;
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
