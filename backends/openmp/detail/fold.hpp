#pragma once
/// \file
/// \brief The per-thread sequential fold. For commutative operators on arithmetic types it
/// keeps `lanes` independent accumulators (element i goes to lane i % lanes), which the
/// compiler turns into SIMD code; the lanes are combined in a fixed order, so the result is
/// deterministic. Other operators fold strictly left to right.

#include <cstddef>
#include <type_traits>

#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether `fold` may use several accumulators for `Op` on these types.
template <class Op, class In, class T>
inline constexpr bool lane_fold_v =
    is_commutative_v<Op>&& std::is_arithmetic_v<In>&& std::is_arithmetic_v<T>;

/// \brief 128 bytes of accumulators: 32 int32 lanes, 16 double lanes.
template <class T>
inline constexpr std::size_t lanes_v = 128 / sizeof(T) < 4 ? 4 : 128 / sizeof(T);

/// \brief `acc op first[0] op ... op first[n-1]`.
template <class T, class In, class Op>
T fold(T acc, const In* first, std::size_t n, Op op) {
  if constexpr (lane_fold_v<Op, In, T>) {
    constexpr std::size_t lanes = lanes_v<T>;
    if (n >= 2 * lanes) {
      T lane[lanes];
      for (std::size_t j = 0; j < lanes; ++j) lane[j] = static_cast<T>(first[j]);
      std::size_t i = lanes;
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j < lanes; ++j) lane[j] = static_cast<T>(op(lane[j], first[i + j]));
      for (std::size_t j = 0; j < lanes; ++j) acc = static_cast<T>(op(acc, lane[j]));
      for (; i < n; ++i) acc = static_cast<T>(op(acc, first[i]));
      return acc;
    }
  }
  for (std::size_t i = 0; i < n; ++i) acc = static_cast<T>(op(acc, first[i]));
  return acc;
}

/// \brief `first[0] op ... op first[n-1]` as a `T`, for n >= 1.
template <class T, class In, class Op>
T fold_nonempty(const In* first, std::size_t n, Op op) {
  return fold(static_cast<T>(first[0]), first + 1, n - 1, op);
}

/// \brief Whether the parallel path can run: block results start from an element converted
/// to `T` and are combined with `op(T, T)`. Otherwise the backend folds sequentially.
template <class Op, class In, class T>
inline constexpr bool splittable_v =
    std::is_constructible_v<T, const In&>&& std::is_invocable_v<const Op&, const T&, const T&>;

}  // namespace parprim::openmp::detail
