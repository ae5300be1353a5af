#pragma once
/// \file
/// \brief The per-thread sequential fold. For commutative operators on arithmetic types it
/// keeps `lanes` independent accumulators (element i goes to lane i % lanes), which the
/// compiler turns into SIMD code; the lanes are combined in a fixed order, so the result is
/// deterministic. Other operators fold strictly left to right.

#include <cstddef>
#include <type_traits>
#include <utility>

#include <parprim/backends/openmp/detail/fold_vectors.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether `fold` may use several accumulators for `Op` on these types.
template <class Op, class In, class T>
inline constexpr bool lane_fold_v =
    is_commutative_v<Op>&& std::is_arithmetic_v<In>&& std::is_arithmetic_v<T>;

/// \brief 128 bytes of accumulators: 32 int32 lanes, 16 double lanes.
template <class T>
inline constexpr std::size_t lanes_v = 128 / sizeof(T) < 4 ? 4 : 128 / sizeof(T);

/// \brief The type the lanes fold in. Signed integer sums and products fold in the unsigned
/// type (at least `unsigned int`, so promoted products cannot overflow either): regrouping a
/// signed fold can overflow where the left fold does not, which is undefined behaviour, while
/// the unsigned fold wraps and converts back to the left fold's result.
template <class Op, class T>
using lane_t =
    typename std::conditional_t<std::is_integral_v<T> && std::is_signed_v<T> &&
                                    (std::is_same_v<std::remove_cvref_t<Op>, plus> ||
                                     std::is_same_v<std::remove_cvref_t<Op>, multiplies>),
                                std::make_unsigned<std::common_type_t<T, int>>,
                                std::type_identity<T>>::type;

/// \brief minimum / maximum of float or double: the lanes can fold with the plain comparison
/// (one instruction) as long as no NaN and no -0 has been read, the only elements on which it
/// differs from the operators' total order (operators.hpp).
template <class Op, class T>
inline constexpr bool plain_extreme_v = parprim::detail::ieee_bits_v<T> &&
                                        (std::is_same_v<std::remove_cvref_t<Op>, minimum> ||
                                         std::is_same_v<std::remove_cvref_t<Op>, maximum>);

/// \brief The lane fold of minimum / maximum over `n >= 2 * Lanes` elements with the plain
/// comparison, noting NaNs and -0; false if one was read (the caller folds again with `op`).
template <std::size_t Lanes, class T, class Element, class Op>
bool plain_extreme_lanes(T& acc, Element element, std::size_t n, Op op) {
  constexpr bool is_max = std::is_same_v<std::remove_cvref_t<Op>, maximum>;
  using U = decltype(parprim::detail::float_bits(T{}));
  constexpr U negative_zero = U{1} << (8 * sizeof(T) - 1);
  T lane[Lanes];
  U special[Lanes];
  for (std::size_t j = 0; j < Lanes; ++j) {
    lane[j] = element(j);
    special[j] = (lane[j] != lane[j]) | (parprim::detail::float_bits(lane[j]) == negative_zero);
  }
  std::size_t i = Lanes;
  for (; i + Lanes <= n; i += Lanes)
    for (std::size_t j = 0; j < Lanes; ++j) {
      const T x = element(i + j);
      special[j] |= (x != x) | (parprim::detail::float_bits(x) == negative_zero);
      lane[j] = is_max ? (lane[j] < x ? x : lane[j]) : (x < lane[j] ? x : lane[j]);
    }
  U any = 0;
  for (std::size_t j = 0; j < Lanes; ++j) any |= special[j];
  if (any != 0) return false;
  for (std::size_t j = 0; j < Lanes; ++j) acc = op(acc, lane[j]);
  for (; i < n; ++i) acc = op(acc, element(i));
  return true;
}

/// \brief `acc op in[b] op ... op in[b + n - 1]`; `in` is a span or a transform view
/// (detail/transform_view.hpp), read once per element (twice for a float minimum / maximum over
/// a block that holds a NaN or a -0, where fold_by_vectors does not take it). An accumulating
/// operator (detail/accumulating.hpp) folds the block itself; the operators that combine
/// exactly in any order fold by AVX2 / AVX-512 vectors where the processor has them
/// (fold_vectors.hpp).
template <class T, class Input, class Op>
T fold(T acc, const Input& in, std::size_t b, std::size_t n, Op op) {
  using In = typename Input::value_type;
  if (fold_by_vectors(acc, in, b, n, op)) return acc;
  if constexpr (parprim::detail::accumulating_operator<Op>) {
    return op.fold(std::move(acc), in, b, n);
  } else if constexpr (lane_fold_v<Op, In, T> && plain_extreme_v<Op, T>) {
    const auto element = [&in, b](std::size_t i) { return static_cast<T>(in[b + i]); };
    constexpr std::size_t lanes = lanes_v<T>;
    T fast = acc;
    if (n >= 2 * lanes && plain_extreme_lanes<lanes>(fast, element, n, op)) return fast;
  } else if constexpr (lane_fold_v<Op, In, T>) {
    using L = lane_t<Op, T>;
    constexpr std::size_t lanes = lanes_v<T>;
    const auto element = [&in, b](std::size_t i) {
      return static_cast<L>(static_cast<T>(in[b + i]));
    };
    if (n >= 2 * lanes) {
      L lane[lanes];
      for (std::size_t j = 0; j < lanes; ++j) lane[j] = element(j);
      std::size_t i = lanes;
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j < lanes; ++j)
          lane[j] = static_cast<L>(op(lane[j], element(i + j)));
      L total = static_cast<L>(acc);
      for (std::size_t j = 0; j < lanes; ++j) total = static_cast<L>(op(total, lane[j]));
      for (; i < n; ++i) total = static_cast<L>(op(total, element(i)));
      return static_cast<T>(total);
    }
  }
  for (std::size_t i = 0; i < n; ++i) acc = static_cast<T>(op(acc, static_cast<T>(in[b + i])));
  return acc;
}

/// \brief `in[b] op ... op in[e - 1]` as a `T`, for b < e.
template <class T, class Input, class Op>
T fold_nonempty(const Input& in, std::size_t b, std::size_t e, Op op) {
  return fold(static_cast<T>(in[b]), in, b + 1, e - b - 1, op);
}

}  // namespace parprim::openmp::detail
