#pragma once
/// \file
/// \brief Warp shuffles for any trivially copyable type, moved as 32-bit words.

#include <cstring>
#include <type_traits>

namespace parprim::detail::cuda {

/// \brief Threads in a warp.
inline constexpr unsigned warp_threads = 32;
/// \brief Every lane of the warp takes part.
inline constexpr unsigned full_warp_mask = 0xffffffffu;

/// \brief How a 32-bit word moves across the warp: from lane `lane + delta`, from lane
/// `lane - delta` (the caller's own word where that lane is outside the warp), from lane `src`.
struct word_from_below {
  unsigned delta;
  __device__ unsigned operator()(unsigned w) const {
    return __shfl_down_sync(full_warp_mask, w, delta);
  }
};
struct word_from_above {
  unsigned delta;
  __device__ unsigned operator()(unsigned w) const {
    return __shfl_up_sync(full_warp_mask, w, delta);
  }
};
struct word_from_lane {
  unsigned src;
  __device__ unsigned operator()(unsigned w) const { return __shfl_sync(full_warp_mask, w, src); }
};

/// \brief `v` moved word by word by `move` (one of the above): any trivially copyable type.
///
/// The customisation point of the shuffles below: a struct whose members share words with
/// padding (a `bool` beside an 8-byte value) overloads `shuffle_parts` for its own type, moving
/// each member by `shuffle_parts` and a flag as one word; argument-dependent lookup finds the
/// overload (through `Move`, declared here). Through the copy to words a 16-byte (double, bool)
/// pair kept byte-level copies live in ptxas: the fixed-tree look-back's ordered warp
/// reductions of float64 segmented pairs held 94 registers uncapped, moved by members 48.
template <class T, class Move>
__device__ __forceinline__ T shuffle_parts(const T& v, const Move& move) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words];
  w[words - 1] = 0;  // the padding bytes of the last word
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (unsigned i = 0; i < words; ++i) w[i] = move(w[i]);
  T r = v;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// \brief The value `v` of lane `lane + delta` (the caller's own value where that lane is past
/// the end of the warp). Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, unsigned delta) {
  return shuffle_parts(v, word_from_below{delta});
}

/// \brief The value `v` of lane `lane - delta` (the caller's own value where that lane is
/// before the start of the warp). Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_up(const T& v, unsigned delta) {
  return shuffle_parts(v, word_from_above{delta});
}

/// \brief The value `v` of lane `src`. Every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T shuffle_from(const T& v, unsigned src) {
  return shuffle_parts(v, word_from_lane{src});
}

}  // namespace parprim::detail::cuda
