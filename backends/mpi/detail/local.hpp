#pragma once
/// \file
/// \brief The per-rank work, expressed with the local policy's own primitives (so it runs on
/// that policy's threads or device): a block's fold, and a scan that starts from a carry-in.

#include <mpi.h>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>

#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/transform_view.hpp>

namespace parprim::mpi_detail {

/// \brief Readable errors for types the distributed algorithms cannot combine: the operator
/// contract (detail/contract.hpp), and partials that can travel between ranks.
template <class In, class T, class Op>
constexpr void require_combinable() {
  detail::require_operator<In, T, Op>();
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "parprim::mpi: the accumulator type must be trivially copyable and "
                "default-constructible to travel between ranks");
}

/// \brief One block argument (its name, data and element count), for a local policy's checks.
struct block_arg {
  const char* name;
  const void* data;
  std::size_t size;
};

/// \brief Checks a local policy adds to the cross-rank argument agreement (detail/agree.hpp),
/// run on every rank after the front end's own checks: none for host policies. The CUDA local
/// policy specialises it (detail/local_cuda.hpp: a GPU exists, blocks are on the rank's GPU).
template <class Local>
struct local_checks {
  static void run(MPI_Comm /*comm*/, const Local& /*local*/, const char* /*fn*/,
                  std::initializer_list<block_arg> /*blocks*/) {}
};

/// \brief `in[0] op in[1] op ... op in[n-1]` as a `T` (n >= 1), with the local policy.
template <class T, class Local, class Input, class Op>
T fold_block(const Local& local, const Input& in, const Op& op) {
  return detail::reduce_impl<Local>::apply(local, in.subspan(1), static_cast<T>(in[0]), op);
}

/// \brief `out[i] = carry op in[0] op ... op in[i]` (no carry: a plain inclusive scan), with the
/// local policy's scans; `out` is `in` or disjoint from it.
/// - no carry: the local inclusive scan;
/// - in place (same type): out[0] = carry op in[0], then the local inclusive scan of out;
/// - disjoint: the local exclusive scan of in[1..n) into out[0..n-1) with init carry op in[0]
///   yields out[i] = carry op in[0..i] for i < n-1; the last element is one more step.
/// Each reads the block once and writes it once. An accumulating operator
/// (detail/accumulating.hpp), whose carry is not an output value, hands the carry to the local
/// (host) scan instead.
template <class Local, class Input, class Out, class Op>
void inclusive_from(const Local& local, const Input& in, std::span<Out> out,
                    const std::optional<detail::accumulator_t<Op, Out>>& carry, const Op& op) {
  using scan = detail::scan_impl<Local>;
  const std::size_t n = in.size();
  if (n == 0) return;
  if constexpr (detail::accumulating_operator<Op>) {
    scan::inclusive(local, in, out, op, carry ? &*carry : nullptr);
  } else {
    if (!carry) {
      scan::inclusive(local, in, out, op);
      return;
    }
    // In place: the input's elements live in `out`. A transform view, or another element type
    // of the same width, cannot be rescanned from `out` after its first element is rewritten:
    // scan, then fold the carry in (a second pass).
    const bool in_place = detail::input_address(in) == static_cast<const void*>(out.data());
    constexpr bool rescannable = std::is_same_v<Input, std::span<const Out>>;
    if (in_place && !rescannable) {
      scan::inclusive(local, in, out, op);
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Out>(op(*carry, out[i]));
      return;
    }
    const Out first = static_cast<Out>(op(*carry, static_cast<Out>(in[0])));
    if (in_place) {
      out[0] = first;
      scan::inclusive(local, std::span<const Out>(out.data(), n), out, op);
      return;
    }
    if (n == 1) {
      out[0] = first;
      return;
    }
    scan::exclusive(local, in.subspan(1), out.first(n - 1), first, op);
    out[n - 1] = static_cast<Out>(op(out[n - 2], static_cast<Out>(in[n - 1])));
  }
}

}  // namespace parprim::mpi_detail
