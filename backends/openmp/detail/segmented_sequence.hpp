#pragma once
/// \file
/// \brief A block of a segmented scan's outputs, written in order (write_sequence_stateful) while
/// the running value restarts at the heads. Where heads are rare, the fastest loop searches for
/// the next head (64 bytes of flags or keys a test) and runs a plain scan up to it. Where they come
/// every few elements at random, a branch on each head mispredicts often, and a select of the
/// restart without a branch (one more operation on the running value's chain) is faster; where
/// nearly every element is a head, the branch is predicted again. The block goes in chunks; each
/// chunk takes the loop that its previous chunk's density of heads calls for.

#include <cstddef>
#include <type_traits>

#include <parprim/backends/openmp/detail/select_without_branch.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/detail/heads.hpp>

namespace parprim::openmp::detail {

/// Elements per chunk, and the density of heads from which a chunk selects without a branch:
/// one head in `select_from_one_in` elements (up to three in four: see loop_after).
inline constexpr std::size_t segment_chunk = 2048;
inline constexpr std::size_t select_from_one_in = 16;

/// \brief Running values that take the chunks: arithmetic types select_without_branch selects
/// on their bits (a user type's operator may cost more than the branch it saves).
template <class T>
inline constexpr bool branch_free_select_v = std::is_arithmetic_v<T>&& selects_on_bits_v<T>;

/// \brief One element of an inclusive segmented scan (write_sequence's `next`): the running
/// value `acc` restarts at a head, with a branch on the head or (`Select`) a select without one;
/// `heads` counts the heads met. A block's first chunk goes by runs, so a selecting step never
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

/// \brief One element of the running value between two heads (write_sequence's `next`).
template <class Out, class Input, class Op>
struct running_step {
  Out acc;
  const Input* in;
  Op op;
  Out operator()(std::size_t k) {
    acc = static_cast<Out>(op(acc, static_cast<Out>((*in)[k])));
    return acc;
  }
};

/// \brief The first head in [b, e) (b >= 1), or e: the view's own search (64 bytes of flags or
/// keys a test), the bytes of a span of one-byte flags likewise (first_set_byte), else one by
/// one.
template <class Heads>
std::size_t next_head(const Heads& flags, std::size_t b, std::size_t e) {
  if constexpr (requires { flags.next(b, e); }) {
    return flags.next(b, e);
  } else if constexpr (requires {
                         flags.data();
                         requires sizeof(*flags.data()) == 1;
                       }) {
    return parprim::detail::first_set_byte(reinterpret_cast<const unsigned char*>(flags.data()), b,
                                           e);
  } else {
    while (b < e && !flags[b]) ++b;
    return b;
  }
}

/// \brief How a chunk restarts the running value at its heads.
enum class chunk_loop {
  runs,    ///< found by a search, the elements between them a plain running scan (sparse heads)
  select,  ///< a select without a branch at every element (between 1 in 16 and 3 in 4)
  branch,  ///< a branch at every element (denser: predicted again)
};

/// \brief The loop for the chunk after one of `length` elements with `heads` heads.
inline chunk_loop loop_after(std::size_t heads, std::size_t length) {
  if (denser_than_three_in_four(heads, length)) return chunk_loop::branch;
  return heads * select_from_one_in >= length ? chunk_loop::select : chunk_loop::runs;
}

/// \brief `out[k]` for k in [b, e), in increasing k, of an inclusive segmented scan whose running
/// value is `acc` before element b (b >= 1 in the sequence: element 0 is the caller's), chunk by
/// chunk, each in the loop its previous chunk's density of heads calls for (`loop_after`; a
/// block's first chunk goes by runs, so a selecting step never meets element 0). The runs do not
/// test a flag at every element: 2-core development machine, 2^24 int32 with a head in 1000 at
/// random, 6.30 -> 5.28 ms on one thread against a branch at every element, 4.28 -> 3.52 on two
/// (docs/results/dev-2core/README.md). `stream` as for write_sequence. (The exclusive scans keep
/// one loop: GCC compiles their restart, `acc = init` at a head, without a branch already.)
template <class Out, class Input, class Heads, class Op>
void write_segmented_sequence(Out* out, std::size_t b, std::size_t e, bool stream, Out acc,
                              const Input& in, const Heads& flags, Op op) {
  chunk_loop loop = chunk_loop::runs;
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
    const auto runs = [&] {
      std::size_t heads = 0;
      for (std::size_t k = i;;) {
        const std::size_t h = next_head(flags, k, end);
        acc = write_sequence_stateful(out, k, h, stream, running_step<Out, Input, Op>{acc, &in, op})
                  .acc;
        if (h == end) break;
        acc = static_cast<Out>(in[h]);
        out[h] = acc;
        ++heads;
        k = h + 1;
      }
      return heads;
    };
    const std::size_t heads = loop == chunk_loop::select   ? chunk(std::true_type{})
                              : loop == chunk_loop::branch ? chunk(std::false_type{})
                                                           : runs();
    loop = loop_after(heads, end - i);
    i = end;
  }
}

}  // namespace parprim::openmp::detail
