#pragma once
/// \file
/// \brief A thread's run of `Items` consecutive elements, loaded or stored with 16-byte
/// accesses when the run is 16-byte aligned and a whole number of 16-byte words, with scalar
/// accesses otherwise. (A warp's 16-byte accesses then cover 32 runs side by side; the
/// sectors a first access leaves half-used are completed by the next, from L1.)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace parprim::detail::cuda {

/// \brief Whether `U` moves as raw words: arithmetic types, and trivially copyable structs
/// smaller than 16 bytes (a 4- or 8-byte struct, 2 or 4 to a 16-byte word). A 16-byte struct
/// stays a struct: the compiler moves it as its members (two 8-byte words for {double, double}),
/// and one 16-byte word copied into it made rung 5's scans 10 % slower (H200, 2^27 affine maps).
template <class U>
inline constexpr bool raw_words_v = std::is_arithmetic_v<U> ||
                                    (std::is_trivially_copyable_v<U> && sizeof(U) < 16);
/// \brief Whether a run of `Items` values of `U` can move as 16-byte words (the accesses check
/// the address: a struct aligned below its size takes the scalar path where a run is not
/// 16-byte aligned).
template <class U, unsigned Items>
inline constexpr bool vector_run_v = raw_words_v<U> && 16 % sizeof(U) == 0 &&
                                     (Items * sizeof(U)) % 16 == 0;
/// \brief Whether a run of `Items` values of `U` is exactly one 4- or 8-byte word.
template <class U, unsigned Items>
inline constexpr bool word_run_v = raw_words_v<U> &&
                                   (Items * sizeof(U) == 4 || Items * sizeof(U) == 8);
/// \brief The word type of a 4- or 8-byte run.
template <unsigned Bytes>
using run_word_t = std::conditional_t<Bytes == 4, unsigned, unsigned long long>;

template <unsigned Items, class U>
__device__ __forceinline__ void load_contiguous(const U* p, U (&x)[Items]) {
  if constexpr (vector_run_v<U, Items>) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      constexpr unsigned words = Items * sizeof(U) / 16;
      uint4 w[words];
#pragma unroll
      for (unsigned k = 0; k < words; ++k) w[k] = reinterpret_cast<const uint4*>(p)[k];
      memcpy(x, w, sizeof(x));
      return;
    }
  } else if constexpr (word_run_v<U, Items>) {
    using word = run_word_t<Items * sizeof(U)>;
    if (reinterpret_cast<std::uintptr_t>(p) % sizeof(word) == 0) {
      const word w = *reinterpret_cast<const word*>(p);
      memcpy(x, &w, sizeof(x));
      return;
    }
  }
#pragma unroll
  for (unsigned k = 0; k < Items; ++k) x[k] = p[k];
}

template <unsigned Items, class U>
__device__ __forceinline__ void store_contiguous(U* p, const U (&x)[Items]) {
  if constexpr (vector_run_v<U, Items>) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      constexpr unsigned words = Items * sizeof(U) / 16;
      uint4 w[words];
      memcpy(w, x, sizeof(x));
#pragma unroll
      for (unsigned k = 0; k < words; ++k) reinterpret_cast<uint4*>(p)[k] = w[k];
      return;
    }
  } else if constexpr (word_run_v<U, Items>) {
    using word = run_word_t<Items * sizeof(U)>;
    if (reinterpret_cast<std::uintptr_t>(p) % sizeof(word) == 0) {
      word w;
      memcpy(&w, x, sizeof(x));
      *reinterpret_cast<word*>(p) = w;
      return;
    }
  }
#pragma unroll
  for (unsigned k = 0; k < Items; ++k) p[k] = x[k];
}

/// \brief The first `count` (<= Items) elements of a run: the whole run as load_contiguous,
/// a shorter one element by element (unrolled and predicated, so `x` stays in registers; the
/// elements past `count` are left as they were).
template <unsigned Items, class U>
__device__ __forceinline__ void load_contiguous_first(const U* p, U (&x)[Items], unsigned count) {
  if (count == Items) {
    load_contiguous<Items>(p, x);
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < Items; ++k)
    if (k < count) x[k] = p[k];
}

/// \brief The first `count` (<= Items) elements of a run, as load_contiguous_first.
template <unsigned Items, class U>
__device__ __forceinline__ void store_contiguous_first(U* p, const U (&x)[Items], unsigned count) {
  if (count == Items) {
    store_contiguous<Items>(p, x);
    return;
  }
#pragma unroll
  for (unsigned k = 0; k < Items; ++k)
    if (k < count) p[k] = x[k];
}

}  // namespace parprim::detail::cuda
