#pragma once
/// \file
/// \brief Operators that carry an accumulator of their own. Today one does: the exact sum
/// behind parprim::exact_plus (detail/exact_sum.hpp), which accumulates floats in a
/// superaccumulator and rounds only what it writes. Such an operator `Op`
/// - names its accumulator: `using accumulator_type = A;` partial results, scan carries and
///   the values ranks exchange are `A`, combined with `A op(A, A)` (associative);
/// - does the per-element work of a block itself, where its step on single elements would be
///   slow: `A op.fold(A acc, const Input& in, std::size_t b, std::size_t n)` is `acc` plus
///   elements [b, b + n); `op.scan_block(in, b, e, const A* carry, const A* reset,
///   const Heads* heads, bool exclusive, Store store)` computes the scan of elements [b, e) from
///   `*carry` (null: nothing before), restarting from `*reset` (null: nothing) at each element
///   k where `(*heads)[k]` is true when `heads` is not null (a span of one-byte flags or a head
///   view, detail/heads.hpp, indexed by position in the whole sequence), and hands the outputs to
///   `store(k, const Out* values, count)` (outputs k .. k + count - 1) a piece at a time, after
///   reading those elements: the backend stores them (streaming stores, ...). A store may also
///   offer `Out* direct(std::size_t k, std::size_t count, const void* input, std::size_t bytes)`:
///   where outputs k .. k + count - 1 may be written as they are computed, while the `bytes` of
///   inputs at `input` are still read (null where they overlap, or where it wants the values
///   handed over); `scan_block` then writes them there and does not call `store` for them.
///   And it may offer `std::size_t read_ahead() const`: elements of input (0: none) that far
///   ahead of each piece are read later by the backend, and `scan_block` asks the cache for them
///   while it scans the piece (the OpenMP scans: the same thread's block in the next round).
/// An operator may also name a memo, `using block_memo = M;`, and take `M*` as a last argument
/// of `fold` (filled) and `scan_block` (read): what its fold of a block saw, reused by its scan
/// of the same block (the exact sums: each chunk's survey); `scan_block` checks that the memo is
/// of its block and ignores it otherwise. A backend that folds and then scans the same block on
/// the same thread (the OpenMP scans) keeps one a thread (`memo_operator<Op>`).
/// A backend asks `accumulating_operator<Op>` where it folds or scans a block and keeps its
/// carries in `accumulator_t<Op, Out>`; for every other operator that is `Out` and the
/// backend's own loops run, unchanged.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace parprim::detail {

template <class Op>
concept accumulating_operator = requires {
  typename std::remove_cvref_t<Op>::accumulator_type;
};

/// \brief An accumulating operator with a block memo (see above).
template <class Op>
concept memo_operator = accumulating_operator<Op> && requires {
  typename std::remove_cvref_t<Op>::block_memo;
};

template <class Op, class Out>
struct accumulator_of {
  using type = Out;
};
template <accumulating_operator Op, class Out>
struct accumulator_of<Op, Out> {
  using type = typename Op::accumulator_type;
};

/// \brief What a scan with `Op` writing `Out` accumulates in: `Out`, or the operator's own.
template <class Op, class Out>
using accumulator_t = typename accumulator_of<std::remove_cvref_t<Op>, Out>::type;

/// \brief The heads argument of `scan_block` for a scan without segments.
inline constexpr const std::span<const unsigned char>* no_flags = nullptr;

/// \brief Whether `[a, a + a_bytes)` and `[b, b + b_bytes)` share a byte.
inline bool overlapping(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a);
  const auto y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

/// \brief A `store` for `scan_block` that copies into `out`, or lets it write there directly
/// where the inputs it still reads are elsewhere.
template <class Out>
struct copy_to {
  Out* out;
  void operator()(std::size_t k, const Out* values, std::size_t count) const {
    for (std::size_t i = 0; i < count; ++i) out[k + i] = values[i];
  }
  Out* direct(std::size_t k, std::size_t count, const void* input, std::size_t bytes) const {
    return overlapping(out + k, count * sizeof(Out), input, bytes) ? nullptr : out + k;
  }
};

}  // namespace parprim::detail
