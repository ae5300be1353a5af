#pragma once
/// \file
/// \brief The operator the front ends hand to a backend for parprim::exact_plus on float and
/// double: an accumulating operator (accumulating.hpp) over exact_accumulator<F>. Combining
/// two accumulators is exact, so it is associative and commutative and may be regrouped and
/// reordered freely (threads, ranks, GPU blocks). The host block steps are the chunked exact
/// fold and scan (exact_chunk.hpp, exact_scan.hpp).

#include <cstddef>

#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_chunk.hpp>
#include <parprim/detail/exact_scan.hpp>
#include <parprim/detail/macros.hpp>

namespace parprim::detail {

template <class F>
struct exact_sum {
  using accumulator_type = exact_accumulator<F>;
  static constexpr bool is_commutative = true;

  /// \brief The sum of both operand lists.
  PARPRIM_HOST_DEVICE accumulator_type operator()(accumulator_type a,
                                                  const accumulator_type& b) const {
    a.merge(b);
    return a;
  }
  /// \brief What a fold of a block leaves for the scan of the same block: each chunk's survey.
  using block_memo = exact::block_surveys;

  /// \brief `acc` plus elements [b, b + n) of `in`, on the host (with `memo`: recorded there).
  template <class Input>
  accumulator_type fold(accumulator_type acc, const Input& in, std::size_t b, std::size_t n,
                        block_memo* memo = nullptr) const {
    return exact::fold<F>(acc, in, b, n, memo);
  }
  /// \brief The scan of elements [b, e) of `in` (see accumulating.hpp), on the host (with
  /// `memo`: what a fold of the same block recorded, reused).
  template <class Input, class Heads, class Store>
  void scan_block(const Input& in, std::size_t b, std::size_t e, const accumulator_type* carry,
                  const accumulator_type* reset, const Heads* heads, bool exclusive, Store store,
                  const block_memo* memo = nullptr) const {
    exact::scan_block<F>(in, b, e, carry, reset, heads, exclusive, store, memo);
  }
};

}  // namespace parprim::detail
