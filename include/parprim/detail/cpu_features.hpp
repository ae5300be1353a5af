#pragma once
/// \file
/// \brief What the host processor offers beyond the translation unit's target, asked at run
/// time: the host backends compile a few loops for AVX2 (`PARPRIM_TARGET_AVX2`) and take them
/// only where `avx2_supported()` says yes. Compiled only for x86-64 host code by GCC or Clang,
/// never by nvcc (`PARPRIM_HOST_AVX2` is 0 elsewhere, and the portable loops run).

#if defined(__x86_64__) && !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PARPRIM_HOST_AVX2 1
/// The functions compiled for AVX2 whatever the translation unit's target (taken only after
/// `avx2_supported()` said yes).
#define PARPRIM_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
/// The functions compiled for AVX-512 (F, DQ, VL) whatever the translation unit's target (taken
/// only after `avx512_supported()` said yes).
#define PARPRIM_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx2,popcnt")))
#else
#define PARPRIM_HOST_AVX2 0
#endif

namespace parprim::detail {

/// \brief Whether this processor runs AVX2 code (known at compile time under -mavx2; false
/// where the AVX2 forms are not compiled).
inline bool avx2_supported() {
#if PARPRIM_HOST_AVX2 && defined(__AVX2__)
  return true;
#elif PARPRIM_HOST_AVX2
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return supported;
#else
  return false;
#endif
}

/// \brief Whether this processor runs the AVX-512 code (F, DQ and VL; known at compile time
/// where the translation unit's target has them; false where the AVX2 forms are not compiled).
inline bool avx512_supported() {
#if PARPRIM_HOST_AVX2 && defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
  return true;
#elif PARPRIM_HOST_AVX2
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512dq") != 0 &&
           __builtin_cpu_supports("avx512vl") != 0 && __builtin_cpu_supports("avx2") != 0;
  }();
  return supported;
#else
  return false;
#endif
}

}  // namespace parprim::detail
