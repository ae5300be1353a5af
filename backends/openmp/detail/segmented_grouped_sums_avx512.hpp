#pragma once
/// \file
/// \brief The AVX-512 form of the float group tree of segmented_grouped_sums.hpp: two groups of
/// 8 floats a 512-bit vector, taken where segment_folds_avx512_usable(). The same tree, the
/// same running sums and the same operands in every addition as the AVX2 and portable forms, so
/// the same bits; the heads are mask bits, so each step of the tree is one permutation and one
/// masked addition (the AVX2 form spends two blends and the lane masks' own shuffles a step),
/// and the sums before the heads are packed by a compress instruction (no table of lane
/// permutations). The running sum still crosses the groups one at a time: the first group's
/// last sum is the second's running sum, as in the AVX2 form.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <parprim/backends/openmp/detail/grouped_sums.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/backends/openmp/detail/segmented_sums_avx2.hpp>
#include <parprim/detail/cpu_features.hpp>

namespace parprim::openmp::detail {

#if PARPRIM_HOST_AVX2

/// \brief The heads of the 16 elements from `i` (i >= 1 in the sequence) as bits: one-byte flags
/// not zero, or integer keys of 4 bytes different from the key before. `Half`: only the 8 from
/// `i` are read (the last group of a block; the upper bits are 0).
template <bool Half, class Flags>
PARPRIM_TARGET_AVX512 inline unsigned group_pair_heads(const Flags& flags, std::size_t i) {
  if constexpr (byte_flag_span_v<Flags>) {
    const auto* p = reinterpret_cast<const unsigned char*>(flags.data()) + i;
    __m128i bytes;
    if constexpr (Half) {
      std::int64_t w;
      std::memcpy(&w, p, 8);
      bytes = _mm_cvtsi64_si128(w);
    } else {
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    }
    const auto zero =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128())));
    return ~zero & (Half ? 0xffu : 0xffffu);
  } else {
    const auto* k = flags.data() + i;
    constexpr __mmask16 lanes = Half ? 0xff : 0xffff;
    return _mm512_mask_cmpneq_epi32_mask(lanes, _mm512_maskz_loadu_epi32(lanes, k),
                                         _mm512_maskz_loadu_epi32(lanes, k - 1));
  }
}

/// \brief The tree of two groups (lanes 0-7 and 8-15 of `x`), segmented_group_vector<float>::scan
/// with the heads `h` as bits: within each 4-lane quarter, lane k adds lane k - 1 unless lane k
/// is a head, then lane k - 2 unless a head lies in (k - 2, k]; the upper quarter of each group
/// adds its lower quarter's last lane unless a head lies between them. `f` receives the lanes
/// with a head at or below them in their group.
PARPRIM_TARGET_AVX512 inline __m512 segmented_group_pair_scan(__m512 x, unsigned h, unsigned& f) {
  const unsigned f1 = h | ((h << 1) & 0xEEEEu);
  const __m512 s1 = _mm512_mask_add_ps(x, static_cast<__mmask16>(~h & 0xEEEEu), x,
                                       _mm512_maskz_permute_ps(0xffff, x, _MM_SHUFFLE(2, 1, 0, 0)));
  const unsigned f2 = f1 | ((f1 << 2) & 0xCCCCu);
  const __m512 s2 =
      _mm512_mask_add_ps(s1, static_cast<__mmask16>(~f1 & 0xCCCCu), s1,
                         _mm512_maskz_permute_ps(0xffff, s1, _MM_SHUFFLE(1, 0, 0, 0)));
  const __m512 low_last = _mm512_maskz_permutexvar_ps(
      0xffff, _mm512_setr_epi32(3, 3, 3, 3, 3, 3, 3, 3, 11, 11, 11, 11, 11, 11, 11, 11), s2);
  f = f2 | (((f2 >> 3) & 0x0101u) * 0xF0u);
  return _mm512_mask_add_ps(s2, static_cast<__mmask16>(~f2 & 0xF0F0u), s2, low_last);
}

/// \brief The running sum before each element of a pair of groups: lane 0 the running sum
/// before the pair, lane 8 the one after the first group (`runs`: the first in lanes 0-7, the
/// second in 8-15), the other lanes the inclusive sum of the lane before.
PARPRIM_TARGET_AVX512 inline __m512 sums_before(__m512 incl, __m512 runs) {
  return _mm512_permutex2var_ps(
      incl, _mm512_setr_epi32(16, 0, 1, 2, 3, 4, 5, 6, 24, 8, 9, 10, 11, 12, 13, 14), runs);
}

/// \brief One step of scan_segmented_group_pairs_avx512: groups `g` and `g + 1` (`Half`: group
/// `g` alone) from the running sum `run` (in every lane), which it advances.
template <bool Exclusive, bool Half, bool Ahead, class Sink, class Flags>
PARPRIM_TARGET_AVX512 inline void scan_segmented_group_pair(const float* in, Sink& sink,
                                                            std::size_t first, std::size_t g,
                                                            const Flags& flags, __m512& run,
                                                            __m512 inits, std::size_t ahead,
                                                            std::size_t n) {
  const std::size_t at = first + g * 8;
  if constexpr (Ahead) read_ahead_element(in, flags.data(), at, ahead, n);
  const unsigned h = group_pair_heads<Half>(flags, at);
  __m512 x = Half ? _mm512_maskz_loadu_ps(0xff, in + at) : _mm512_loadu_ps(in + at);
  if constexpr (Exclusive) x = _mm512_mask_add_ps(x, static_cast<__mmask16>(h), inits, x);
  unsigned f;
  const __m512 s = segmented_group_pair_scan(x, h, f);
  // each group's last sum plus the running sum before it, unless a head lies in the group (the
  // AVX2 form's `run`; the broadcasts off the chain)
  const __m512 last_a = _mm512_maskz_permutexvar_ps(0xffff, _mm512_set1_epi32(7), s);
  const __m512 run_a = _mm512_mask_add_ps(last_a, (f & 0x80u) != 0 ? 0 : 0xffff, last_a, run);
  const __m512 runs = _mm512_mask_mov_ps(run, 0xff00, run_a);
  const __m512 incl = _mm512_mask_add_ps(s, static_cast<__mmask16>(~f), s, runs);
  sink(g, at, incl, runs, h, Half);
  if constexpr (Half) {
    run = run_a;
  } else {
    const __m512 last_b = _mm512_maskz_permutexvar_ps(0xffff, _mm512_set1_epi32(15), s);
    run = _mm512_mask_add_ps(last_b, (f & 0x8000u) != 0 ? 0 : 0xffff, last_b, run_a);
  }
}

/// \brief The loop of scan_segmented_group_pairs_avx512 (`Ahead`: with the read-ahead).
template <bool Exclusive, bool Ahead, class Sink, class Flags>
PARPRIM_TARGET_AVX512 __m512 scan_segmented_group_pairs_loop(const float* in, Sink& sink,
                                                             std::size_t first, std::size_t groups,
                                                             const Flags& flags, __m512 run,
                                                             __m512 inits, std::size_t ahead,
                                                             std::size_t n) {
  std::size_t g = 0;
  for (; g + 2 <= groups; g += 2)
    scan_segmented_group_pair<Exclusive, false, Ahead>(in, sink, first, g, flags, run, inits, ahead,
                                                       n);
  if (g < groups)
    scan_segmented_group_pair<Exclusive, true, Ahead>(in, sink, first, g, flags, run, inits, ahead,
                                                      n);
  return run;
}

/// \brief The AVX-512 form over whole groups of 8 floats: the `groups` groups from element
/// `first` (>= 1 in the sequence) of `in`, two at a time (an odd last one alone), from the
/// running sum `acc`. Each pair's inclusive sums (`incl`), the running sums before its groups
/// (`runs`, as sums_before takes them) and its heads go to `sink(g, at, incl, runs, heads,
/// half)`: `g` its first group, `at` its first element, `half` true for a last group alone (lanes
/// 8-15 then hold nothing). `Exclusive`: a head's element enters as `init + x` (the sink writes
/// the sums before the elements). `ahead` > 0: each pair asks the cache for the element that
/// many further on and its head (read_ahead_element; `n` the input's size). Returns the running
/// sum after the last group.
template <bool Exclusive, class Sink, class Flags>
PARPRIM_TARGET_AVX512 float scan_segmented_group_pairs_avx512(const float* in, Sink& sink,
                                                              std::size_t first, std::size_t groups,
                                                              const Flags& flags, float acc,
                                                              float init, std::size_t ahead = 0,
                                                              std::size_t n = 0) {
  const __m512 run = _mm512_set1_ps(acc);
  const __m512 inits = _mm512_set1_ps(init);
  return _mm512_cvtss_f32(ahead > 0 ? scan_segmented_group_pairs_loop<Exclusive, true>(
                                          in, sink, first, groups, flags, run, inits, ahead, n)
                                    : scan_segmented_group_pairs_loop<Exclusive, false>(
                                          in, sink, first, groups, flags, run, inits, 0, 0));
}

/// \brief A sink of scan_segmented_group_pairs_avx512 that hands each group's outputs to an AVX2
/// form's store (group_store, group_stream): the inclusive sums, or (`Exclusive`) the sums before
/// the elements, `init` at the heads.
template <bool Exclusive, class Store>
struct group_pair_outputs {
  Store& store;
  __m512 inits;
  PARPRIM_TARGET_AVX512 void operator()(std::size_t g, std::size_t, __m512 incl, __m512 runs,
                                        unsigned h, bool half) {
    __m512 v = incl;
    if constexpr (Exclusive)
      v = _mm512_mask_mov_ps(sums_before(incl, runs), static_cast<__mmask16>(h), inits);
    store.put(g, _mm512_maskz_extractf32x8_ps(0xff, v, 0));
    if (!half) store.put(g + 1, _mm512_maskz_extractf32x8_ps(0xff, v, 1));
  }
};

/// \brief A sink of scan_segmented_group_pairs_avx512 that keeps only the sums of the segments
/// that end (segment_ends_store's contract): each head's running sum before it, packed to the
/// front by a compress and stored (masked: only theirs) at the next free slots, plus `init`
/// where `With_init`; by key (`Key` not void), each head's key one slot further on.
template <bool With_init, class Key, class Flags>
struct segment_ends_pairs {
  const Flags& flags;
  float* slot;
  Key* keys_out;
  __m512 init;
  std::size_t j = 0;  // slots written

  PARPRIM_TARGET_AVX512 void operator()(std::size_t, std::size_t at, __m512 incl, __m512 runs,
                                        unsigned h, bool half) {
    const auto heads = static_cast<__mmask16>(h);
    __m512 ends = _mm512_maskz_compress_ps(heads, sums_before(incl, runs));
    if constexpr (With_init) ends = _mm512_add_ps(init, ends);
    const auto met = static_cast<unsigned>(std::popcount(h));
    const auto keep = static_cast<__mmask16>((1u << met) - 1);
    _mm512_mask_storeu_ps(slot + j, keep, ends);
    if constexpr (!std::is_void_v<Key>) {
      const __m512i keys = _mm512_maskz_loadu_epi32(half ? 0xff : 0xffff, flags.data() + at);
      _mm512_mask_storeu_epi32(keys_out + j + 1, keep, _mm512_maskz_compress_epi32(heads, keys));
    }
    j += met;
  }
};

/// \brief scan_segmented_groups_into (segmented_grouped_sums.hpp) in the AVX-512 form, float:
/// the same outputs to the same store, the same running sum returned.
template <bool Exclusive, class Store, class Flags>
PARPRIM_TARGET_AVX512 float scan_segmented_groups_avx512(const float* in, Store& store,
                                                         std::size_t first, std::size_t groups,
                                                         const Flags& flags, float acc,
                                                         float init) {
  group_pair_outputs<Exclusive, Store> sink{store, _mm512_set1_ps(init)};
  return scan_segmented_group_pairs_avx512<Exclusive>(in, sink, first, groups, flags, acc, init);
}

/// \brief sum_segment_ends_vectors (segmented_grouped_sums.hpp) in the AVX-512 form: the same
/// slots, keys, count and running sum.
template <bool With_init, class Key, class Flags>
PARPRIM_TARGET_AVX512 float sum_segment_ends_avx512(const float* in, float* slot, Key* keys_out,
                                                    std::size_t first, std::size_t groups,
                                                    const Flags& flags, float acc, float init,
                                                    std::size_t& ends, std::size_t ahead = 0,
                                                    std::size_t n = 0) {
  segment_ends_pairs<With_init, Key, Flags> sink{flags, slot, keys_out, _mm512_set1_ps(init)};
  acc =
      scan_segmented_group_pairs_avx512<false>(in, sink, first, groups, flags, acc, 0.0f, ahead, n);
  ends = sink.j;
  return acc;
}

#endif

}  // namespace parprim::openmp::detail
