#pragma once
/// \file
/// \brief Warp shuffles for any trivially copyable type, moved as 32-bit words.

#include <cstring>
#include <type_traits>

#include <parprim/detail/segmented.hpp>

namespace parprim::detail::cuda {

/// \brief Threads in a warp.
inline constexpr unsigned warp_threads = 32;
/// \brief Every lane of the warp takes part.
inline constexpr unsigned full_warp_mask = 0xffffffffu;

/// \brief The value `v` of lane `lane + delta` (the caller's own value where that lane is past
/// the end of the warp). Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, unsigned delta) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words];
  w[words - 1] = 0;  // the padding bytes of the last word
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (unsigned i = 0; i < words; ++i) w[i] = __shfl_down_sync(full_warp_mask, w[i], delta);
  T r = v;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// \brief The value `v` of lane `lane - delta` (the caller's own value where that lane is
/// before the start of the warp). Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_up(const T& v, unsigned delta) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words];
  w[words - 1] = 0;
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (unsigned i = 0; i < words; ++i) w[i] = __shfl_up_sync(full_warp_mask, w[i], delta);
  T r = v;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// \brief The value `v` of lane `src`. Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_from(const T& v, unsigned src) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words];
  w[words - 1] = 0;
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (unsigned i = 0; i < words; ++i) w[i] = __shfl_sync(full_warp_mask, w[i], src);
  T r = v;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// \brief Segmented pairs move as their value's words and one word for the head: a pair of an
/// 8-byte value is 16 bytes with its padding, so three shuffles instead of four, and no byte of
/// a word to pick out. Through the generic copy to words, the fixed-tree look-back's ordered
/// warp reductions of float64 pairs held 94 registers (uncapped, ptxas); with these, 48.
template <class T>
__device__ __forceinline__ flagged<T> shuffle_down(const flagged<T>& v, unsigned delta) {
  return {shuffle_down(v.value, delta),
          __shfl_down_sync(full_warp_mask, v.head ? 1u : 0u, delta) != 0};
}
template <class T>
__device__ __forceinline__ flagged<T> shuffle_up(const flagged<T>& v, unsigned delta) {
  return {shuffle_up(v.value, delta), __shfl_up_sync(full_warp_mask, v.head ? 1u : 0u, delta) != 0};
}
template <class T>
__device__ __forceinline__ flagged<T> shuffle_from(const flagged<T>& v, unsigned src) {
  return {shuffle_from(v.value, src), __shfl_sync(full_warp_mask, v.head ? 1u : 0u, src) != 0};
}

}  // namespace parprim::detail::cuda
