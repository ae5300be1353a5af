#pragma once
/// \file
/// \brief The fold of one range of values by AVX2 or AVX-512 vectors, for the operators that
/// combine exactly in any order (segment_fold_lanes: integer `minimum`, `maximum` and the bit
/// operators, 4-byte integer `multiplies`, float / double `minimum` and `maximum` on their
/// ordered keys). fold.hpp takes it for such ranges: the portable lane fold is compiled for the
/// baseline instruction set, where integer `minimum` / `maximum` take a compare and a select
/// each and float ones test every element for NaN and -0 (a range holding one is folded again
/// element by element), while here each is one instruction a vector. Four vectors of
/// accumulators, then one vector at a time, then the lanes and the last elements folded in the
/// lanes' form (fold_lanes_and_rest): the operators combine exactly, so the result is the
/// sequence-order fold's, bit for bit.

#include <cstddef>
#include <type_traits>

#include <parprim/backends/openmp/detail/segment_folds_avx2.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/detail/cpu_features.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether fold_by_vectors takes a fold of `Input` (a span, or a view with `data()`, of
/// `T` itself) into a `T` under `Op`.
template <class Op, class Input, class T>
constexpr bool fold_by_vectors_v() {
  using In = std::remove_cv_t<typename Input::value_type>;
  return PARPRIM_HOST_AVX2 && segment_fold_lanes<T, std::remove_cvref_t<Op>>::ok &&
         std::is_same_v<In, T> && requires(const Input& x) {
    x.data();
  };
}

/// \brief Elements from which fold_by_vectors folds a range: four vectors of AVX2 (32 of 4
/// bytes); shorter ranges keep the lane fold.
template <class T>
inline constexpr std::size_t fold_by_vectors_from = 4 * 32 / sizeof(T);

/// \brief `acc op lanes[0] op ... op lanes[w - 1] op rest[0] op ... op rest[m - 1]`, the lanes
/// in segment_fold_lanes' form: folded in that form (ordered keys: the unsigned minimum, no
/// branch and a short chain, where the float operators' own comparison takes about ten
/// instructions an element on the chain), then combined with `acc` once.
template <class T, class Op>
T fold_lanes_and_rest(T acc, const typename segment_fold_lanes<T, Op>::lane* lanes, std::size_t w,
                      const T* rest, std::size_t m, Op op) {
  using L = segment_fold_lanes<T, Op>;
  using U = typename L::lane;
  const auto combine = [op](U a, U b) {
    if constexpr (L::ordered_keys)
      return b < a ? b : a;
    else
      return L::of(parprim::detail::apply_wrapping<T>(op, L::value(a), L::value(b)));
  };
  U k = lanes[0];
  for (std::size_t j = 1; j < w; ++j) k = combine(k, lanes[j]);
  for (std::size_t i = 0; i < m; ++i) k = combine(k, L::of(rest[i]));
  return parprim::detail::apply_wrapping<T>(op, acc, L::value(k));
}

#if PARPRIM_HOST_AVX2

/// \brief `acc op p[0] op ... op p[n - 1]` by AVX2 vectors, n >= fold_by_vectors_from<T>: four
/// accumulators, then one vector at a time, then fewer than a vector's elements one by one.
template <class T, class Op>
PARPRIM_TARGET_AVX2 T fold_range_avx2(T acc, const T* p, std::size_t n, Op op) {
  using V = segment_fold_vectors<T, Op>;
  using U = typename V::U;
  constexpr std::size_t w = 32 / sizeof(U);
  __m256i a[4];
  for (std::size_t k = 0; k < 4; ++k)
    a[k] = V::load(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k * w)));
  std::size_t i = 4 * w;
  for (; i + 4 * w <= n; i += 4 * w)
    for (std::size_t k = 0; k < 4; ++k)
      a[k] = V::combine(
          a[k], V::load(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + k * w))));
  __m256i all = V::combine(V::combine(a[0], a[1]), V::combine(a[2], a[3]));
  for (; i + w <= n; i += w)
    all = V::combine(all, V::load(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i))));
  alignas(32) U lanes[w];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), all);
  return fold_lanes_and_rest<T>(acc, lanes, w, p + i, n - i, op);
}

/// \brief The same by AVX-512 vectors (16 elements of 4 bytes, 8 of 8), n >= 4 of them; where
/// fewer remain, fold_range_avx2.
template <class T, class Op>
PARPRIM_TARGET_AVX512 T fold_range_avx512(T acc, const T* p, std::size_t n, Op op) {
  using V = segment_fold_vectors512<T, Op>;
  using U = typename V::U;
  constexpr std::size_t w = V::width;
  if (n < 4 * w) return fold_range_avx2(acc, p, n, op);
  __m512i a[4];
  for (std::size_t k = 0; k < 4; ++k) a[k] = V::load(V::load_bits(p + k * w));
  std::size_t i = 4 * w;
  for (; i + 4 * w <= n; i += 4 * w)
    for (std::size_t k = 0; k < 4; ++k)
      a[k] = V::combine(a[k], V::full, a[k], V::load(V::load_bits(p + i + k * w)));
  const __m512i a01 = V::combine(a[0], V::full, a[0], a[1]);
  const __m512i a23 = V::combine(a[2], V::full, a[2], a[3]);
  __m512i all = V::combine(a01, V::full, a01, a23);
  for (; i + w <= n; i += w) all = V::combine(all, V::full, all, V::load(V::load_bits(p + i)));
  alignas(64) U lanes[w];
  _mm512_store_si512(lanes, all);
  return fold_lanes_and_rest<T>(acc, lanes, w, p + i, n - i, op);
}

#endif

/// \brief `acc op in[b] op ... op in[b + n - 1]` by vectors where fold_by_vectors_v holds, the
/// range has at least fold_by_vectors_from<T> elements and the processor has AVX2
/// (sums_tails_avx2_usable: `PARPRIM_SEGMENT_SIMD=portable` turns it off, `=avx2` keeps the
/// AVX2 form on an AVX-512 processor); false, with `acc` untouched, where it does not.
template <class T, class Input, class Op>
bool fold_by_vectors(T& acc, const Input& in, std::size_t b, std::size_t n, const Op& op) {
  if constexpr (fold_by_vectors_v<Op, Input, T>()) {
#if PARPRIM_HOST_AVX2
    using O = std::remove_cvref_t<Op>;
    if (n < fold_by_vectors_from<T> || !sums_tails_avx2_usable()) return false;
    acc = segment_folds_avx512_usable() ? fold_range_avx512<T, O>(acc, in.data() + b, n, op)
                                        : fold_range_avx2<T, O>(acc, in.data() + b, n, op);
    return true;
#endif
  }
  (void)acc, (void)in, (void)b, (void)n, (void)op;
  return false;
}

}  // namespace parprim::openmp::detail
