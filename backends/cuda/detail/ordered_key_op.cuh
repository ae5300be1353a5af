#pragma once
/// \file
/// \brief parprim::minimum and parprim::maximum of float and double on the GPU as the unsigned
/// minimum of their ordered keys (detail/ordered_keys.hpp): one instruction a combination
/// instead of the several of the floating-point order (compares, NaN tests, the zeros' sign).
/// The reductions up to single_pass_tuning::ordered_keys_up_to elements (float minimum: any
/// number) read each element as its key and store the bits of the value whose key the fold is;
/// the double scans fold each thread's elements as values and carry keys across threads, warps
/// and tiles, the float minimum scans read and fold every element as its key
/// (ordered_key_problem.cuh). The keys are a bijection under which the operator's result is the
/// smaller key, so the bits are those of the operator on the values: only the speed changes.

#include <type_traits>

#include <parprim/detail/ordered_keys.hpp>
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief minimum (`Max` false) or maximum of float or double `F`, on their keys: the keys'
/// unsigned minimum (the operator's result has the smaller key).
template <bool Max, class F>
struct ordered_key_op {
  using key = ordered_key<Max, F>;
  using key_type = typename key::key_type;
  static constexpr bool is_commutative = true;

  __host__ __device__ key_type operator()(key_type a, key_type b) const { return b < a ? b : a; }
  /// \brief What a result holds for the fold `k`: the bits of the value whose key it is.
  __host__ __device__ static key_type stored(key_type k) { return key::bits(k); }
};

/// \brief Whether `Op` is an ordered_key_op (its folds stand for values: `Op::stored`).
template <class Op>
inline constexpr bool is_ordered_key_op_v = false;
template <bool Max, class F>
inline constexpr bool is_ordered_key_op_v<ordered_key_op<Max, F>> = true;

/// \brief An element read as its key (after its cast to `F`).
template <bool Max, class F>
struct ordered_key_convert {
  template <class In>
  __device__ typename ordered_key<Max, F>::key_type operator()(const In& x) const {
    return ordered_key<Max, F>::of(static_cast<F>(x));
  }
};

/// \brief The ordered-key operator that stands for `Op` on `T` (minimum or maximum of float or
/// double; see ordered_key_operator_v).
template <class Op, class T>
using ordered_key_op_for = ordered_key_op<std::is_same_v<Op, maximum>, T>;

}  // namespace parprim::detail::cuda

/// \cond PARPRIM_BUILTIN_SPECIALISATIONS
/// The keys' identity: all ones, the key of the NaN with every bit set (the operators' identity).
template <bool Max, class F, class U>
struct parprim::identity<parprim::detail::cuda::ordered_key_op<Max, F>, U> {
  static constexpr U value() { return static_cast<U>(~U(0)); }
};
/// \endcond
