#pragma once
/// \file
/// \brief A block of a segmented scan's outputs, written in order (write_sequence_stateful) while
/// the running value restarts at the heads. Where heads are rare, a branch on the head is the
/// fastest loop: it is predicted. Where they come every few elements at random it mispredicts
/// often, and a select of the restart without a branch (one more operation on the running
/// value's chain) is faster. The block goes in chunks; each chunk takes the loop that its
/// previous chunk's density of heads calls for.

#include <cstddef>
#include <type_traits>

#include <parprim/backends/openmp/detail/select_without_branch.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/detail/heads.hpp>

namespace parprim::openmp::detail {

/// Elements per chunk, and the densities of heads at which a chunk selects without a branch: at
/// least one head in `select_from_one_in` elements, and fewer than three in four (denser heads,
/// one at every element above all, are predicted again).
inline constexpr std::size_t segment_chunk = 2048;
inline constexpr std::size_t select_from_one_in = 16;
/// \brief Whether a chunk after one of `length` elements with `heads` heads selects.
inline bool selects_after(std::size_t heads, std::size_t length) {
  return heads * select_from_one_in >= length && !denser_than_three_in_four(heads, length);
}

/// \brief Running values that take the chunks: arithmetic types select_without_branch selects
/// on their bits (a user type's operator may cost more than the branch it saves).
template <class T>
inline constexpr bool branch_free_select_v = std::is_arithmetic_v<T>&& selects_on_bits_v<T>;

/// \brief One element of an inclusive segmented scan (write_sequence's `next`): the running
/// value `acc` restarts at a head, with a branch on the head or (`Select`) a select without one;
/// `heads` counts the heads met. A block's first chunk always branches, so a selecting step never
/// meets element 0.
template <bool Select, class Out, class Input, class Heads, class Op>
struct segmented_step {
  Out acc;
  std::size_t heads;
  const Input* in;
  const Heads* flags;
  Op op;
  Out operator()(std::size_t k) {
    const Out x = static_cast<Out>((*in)[k]);
    if constexpr (Select) {
      const bool head = parprim::detail::head_after_first(*flags, k);
      heads += head ? 1 : 0;
      acc = select_without_branch(head, x, static_cast<Out>(op(acc, x)));
    } else if ((*flags)[k]) {
      ++heads;
      acc = x;
    } else {
      acc = static_cast<Out>(op(acc, x));
    }
    return acc;
  }
};

/// \brief `out[k]` for k in [b, e), in increasing k, of an inclusive segmented scan whose running
/// value is `acc` before element b (segmented_step), chunk by chunk: a chunk selects without a
/// branch where the chunk before it had the density of heads that `selects_after` asks for.
/// `stream` as for write_sequence. (The exclusive scans keep one loop: GCC compiles their
/// restart, `acc = init` at a head, without a branch already.)
template <class Out, class Input, class Heads, class Op>
void write_segmented_sequence(Out* out, std::size_t b, std::size_t e, bool stream, Out acc,
                              const Input& in, const Heads& flags, Op op) {
  bool dense = false;
  for (std::size_t i = b; i < e;) {
    const std::size_t end = e - i < segment_chunk ? e : i + segment_chunk;
    // one chunk with the step that branches (false) or selects (true)
    const auto chunk = [&](auto select) {
      const auto step = write_sequence_stateful(
          out, i, end, stream,
          segmented_step<decltype(select)::value, Out, Input, Heads, Op>{acc, 0, &in, &flags, op});
      acc = step.acc;
      return step.heads;
    };
    const std::size_t heads = dense ? chunk(std::true_type{}) : chunk(std::false_type{});
    dense = selects_after(heads, end - i);
    i = end;
  }
}

}  // namespace parprim::openmp::detail
