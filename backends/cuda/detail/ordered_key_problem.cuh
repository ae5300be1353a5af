#pragma once
/// \file
/// \brief The plain scans of minimum / maximum on ordered keys (detail/ordered_key_op.cuh), in
/// two forms.
///
/// `ordered_key_problem` (double): the folds of tiles on keys. Each thread folds and rescans its
/// own elements as values with the operator (the tile's `element_type` and `element_op`); what
/// crosses threads, warps and tiles is a key (`value_type`, `value_op`: the unsigned minimum), made
/// from a thread's fold and turned back into the value that prefixes its elements: two conversions
/// a thread, none an element, and one instruction a combination on the warp scans and the look-back
/// chain. Inputs are read and outputs written as values (rung 6 stages them unconverted).
/// Only the single-pass rungs (5 and 6) run it: the scan-then-add rungs' `store` and `fix_up`
/// do not exist here.
///
/// `ordered_key_element_problem` (float minimum): every element on its key. Each element is
/// read as its key (rung 6: converted in place after staging), everything is folded with the
/// unsigned minimum, and each output is written as the bits of the value its key stands for:
/// two conversions an element, and one instruction every combination, the threads' serial
/// folds included.

#include <cstddef>
#include <type_traits>

#include <parprim/backends/cuda/detail/ordered_key_op.cuh>
#include <parprim/backends/cuda/detail/scan_problem.cuh>

namespace parprim::detail::cuda {

/// \brief The scan of `F` with minimum (`Max` false) or maximum, folded across threads on keys.
template <bool Max, class F>
struct ordered_key_problem : plain_problem<F, F, std::conditional_t<Max, maximum, minimum>> {
  using key = ordered_key<Max, F>;
  using value_type = typename key::key_type;
  using op_type = ordered_key_op<Max, F>;

  prefix_operands<value_type> prefix_ops;  // init (exclusive) and carry, as keys

  __device__ maybe<value_type> prefix() const { return prefix_ops.get(op_type{}); }
  __host__ __device__ op_type value_op() const { return {}; }
  __device__ static value_type make(const F& x, bool) { return key::of(x); }
  __device__ static F element_of(const value_type& v) { return key::value(v); }
  __device__ static bool is_head(const value_type&) { return false; }

  void store(std::size_t, bool, bool, const F&, const F&, bool, std::size_t) const = delete;
  void fix_up(std::size_t, bool, const F&) const = delete;
};

/// \brief The scan of `F` with minimum (`Max` false) or maximum, every element as its key: `out`
/// is the output viewed as the keys' type (each output is stored as the bits of its value).
template <bool Max, class F>
struct ordered_key_element_problem
    : plain_problem<F, typename ordered_key<Max, F>::key_type, ordered_key_op<Max, F>,
                    ordered_key_convert<Max, F>> {
  using key = ordered_key<Max, F>;
  using key_type = typename key::key_type;

  template <bool Exclusive>
  __device__ key_type output_as(bool, bool, const key_type& e, const key_type& incl) const {
    return key::bits(Exclusive ? e : incl);
  }

  void store(std::size_t, bool, bool, const key_type&, const key_type&, bool,
             std::size_t) const = delete;
  void fix_up(std::size_t, bool, const key_type&) const = delete;
};

/// The keys' minimum gives the same bits however it is grouped.
template <bool Max, class F, class U>
struct exact_grouping<ordered_key_op<Max, F>, U> : std::true_type {};

}  // namespace parprim::detail::cuda
