#pragma once
/// \file
/// \brief float and double as unsigned integers ordered for parprim::minimum or
/// parprim::maximum: `ordered_key<Max, F>::of(x)` is a bijection from F's bit patterns onto the
/// unsigned integers of its width such that the operator's result has the smaller key (order of
/// operators.hpp: -0 < +0; every NaN loses to every number; of two NaNs the smaller bit pattern
/// wins):
///
///     ordered_key<Max, F>::value(min(of(a), of(b))) == Op{}(a, b), bit for bit,
///
/// with Op minimum (`Max` false) or maximum. So a scan or reduction of float minimum / maximum
/// may run on the keys with the unsigned minimum: one instruction a combination, where the order
/// of operators.hpp takes several (the GPU's look-back chains pay that latency once a tile).
///
/// The map, for width W, M mantissa bits, S the sign bit, R = 2^M - 1 the NaNs of one sign,
/// I the bits of +infinity and s(u) = u ^ (u has S ? all ones : S) the usual sortable form
/// (negative numbers reversed below the positive ones, -0 just below +0):
/// - minimum, keys in the order numbers, positive NaNs by bits, negative NaNs by bits:
///   m(u) = u for negative NaNs (u > S | I: already the largest keys, in bit order), else
///   s(u) - R (the numbers from 0, the positive NaNs above them). Two additions or
///   subtractions, a shift, an exclusive or, a compare and a select.
/// - maximum: m(g(u)), g flipping the sign of numbers and keeping NaNs. g reverses the order of
///   numbers and keeps that of NaNs, so maximum(a, b) = g(minimum(g(a), g(b))) (a NaN loses to
///   every number under both operators, and of two NaNs the smaller pattern wins under both).
/// tests/ordered_keys.cpp checks both against operators.hpp.

#include <cstdint>
#include <type_traits>

#include <parprim/detail/macros.hpp>
#include <parprim/operators.hpp>

namespace parprim::detail {

/// \brief The key of float (double) `F` for minimum (`Max` false) or maximum: the operator's
/// result has the smaller key.
template <bool Max, class F>
requires ieee_bits_v<F>
struct ordered_key {
  using key_type = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  static constexpr unsigned width = 8 * sizeof(F);
  static constexpr unsigned mantissa_bits = sizeof(F) == 4 ? 23 : 52;
  static constexpr key_type sign = key_type(1) << (width - 1);
  static constexpr key_type nans_of_a_sign = (key_type(1) << mantissa_bits) - 1;  // R
  static constexpr key_type infinity = (sign - 1) & ~nans_of_a_sign;              // I

  /// \brief s(u): negative numbers (all bits flipped) below positive ones (sign bit set).
  PARPRIM_HOST_DEVICE static constexpr key_type sortable(key_type u) {
    return u ^ ((key_type(0) - (u >> (width - 1))) | sign);
  }
  /// \brief The inverse of `sortable`.
  PARPRIM_HOST_DEVICE static constexpr key_type unsortable(key_type s) {
    return s ^ ((s & sign) != 0 ? sign : ~key_type(0));
  }

  /// \brief g: the bit pattern of -x for a number x, x itself for a NaN (an involution).
  PARPRIM_HOST_DEVICE static constexpr key_type negate_numbers(key_type u) {
    return (u & ~sign) > infinity ? u : u ^ sign;
  }
  /// \brief The key of the bit pattern `u`.
  PARPRIM_HOST_DEVICE static constexpr key_type of_bits(key_type u) {
    if constexpr (Max) u = negate_numbers(u);
    return u > (sign | infinity) ? u : sortable(u) - nans_of_a_sign;
  }
  /// \brief The bit pattern whose key is `k` (the inverse of `of_bits`).
  PARPRIM_HOST_DEVICE static constexpr key_type bits(key_type k) {
    const key_type u = k > (sign | infinity) ? k : unsortable(k + nans_of_a_sign);
    if constexpr (Max)
      return negate_numbers(u);
    else
      return u;
  }

  /// \brief The key of `x`.
  PARPRIM_HOST_DEVICE static constexpr key_type of(F x) {
    return of_bits(__builtin_bit_cast(key_type, x));
  }
  /// \brief The value whose key is `k`.
  PARPRIM_HOST_DEVICE static constexpr F value(key_type k) {
    return __builtin_bit_cast(F, bits(k));
  }
};

/// \brief Whether `Op` on `T` is parprim::minimum or parprim::maximum on float or double: the
/// combinations that a backend may run on ordered keys.
template <class Op, class T>
inline constexpr bool ordered_key_operator_v = ieee_bits_v<T> && (std::is_same_v<Op, minimum> ||
                                                                  std::is_same_v<Op, maximum>);

}  // namespace parprim::detail
