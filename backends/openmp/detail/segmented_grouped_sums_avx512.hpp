#pragma once
/// \file
/// \brief The AVX-512 form of the float and double group trees of segmented_grouped_sums.hpp:
/// two groups a 512-bit vector (8 floats or 4 doubles each), taken where
/// segment_folds_avx512_usable(). The same tree, the same running sums and the same operands in
/// every addition as the AVX2 and portable forms, so the same bits; the heads are mask bits, so
/// each step of the tree is one permutation and one masked addition (the AVX2 form spends two
/// blends and the lane masks' own shuffles a step), and the sums before the heads are packed by
/// a compress instruction (no table of lane permutations). The running sum still crosses the
/// groups one at a time: the first group's last sum is the second's running sum, as in the AVX2
/// form. The lane masks of 64 lanes' pairs are computed at once in 64-bit words and stored, and
/// each pair reads its masks into the mask registers by loads (pair_mask_block): moved from
/// general registers one by one, each mask took a slot of the vector port the permutations and
/// the compress need, and the per-pair scalar work filled the loop.

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

/// \brief The masks of the tree's masked additions (`tree`) and the lanes with no head at or
/// below them in their group (`open`: they add the running sum before the group), of as many
/// pairs of groups as 64 bits hold, each pair's masks in its 2 `width` bits.
struct pair_masks {
  std::uint64_t tree[3];
  std::uint64_t open;
};

/// \brief The vector operations of a pair of groups of `T` (float or double) in one 512-bit
/// vector: `width` elements a group, lane masks in mask registers (`Mask`), in memory as `Chunk`s
/// (pair_mask_block) and computed in 64-bit words (tree_masks). (The
/// permutations and extractions are the zero-masked forms with every lane kept: GCC 12 warns
/// that the unmasked forms' undefined source may be used uninitialized.)
template <class T>
struct group_pair_vector;

template <>
struct group_pair_vector<float> {
  using V = __m512;
  using Half = __m256;
  using Mask = __mmask16;
  using Chunk = std::uint16_t;  // a pair's lane mask in memory
  static constexpr unsigned width = 8;
  static constexpr unsigned all = 0xffffu;
  /// \brief The mask at `p`, read by the load unit (no move from a general register).
  PARPRIM_TARGET_AVX512 static Mask mask_at(const Chunk* p) {
    Mask m;
    asm("kmovw %1, %0" : "=k"(m) : "m"(*p));
    return m;
  }
  PARPRIM_TARGET_AVX512 static V load(const float* p, bool half) {
    return half ? _mm512_maskz_loadu_ps(0xff, p) : _mm512_loadu_ps(p);
  }
  PARPRIM_TARGET_AVX512 static V set1(float x) { return _mm512_set1_ps(x); }
  PARPRIM_TARGET_AVX512 static float first(V v) { return _mm512_cvtss_f32(v); }
  /// \brief a + b in the lanes of `m`, `src` in the others.
  PARPRIM_TARGET_AVX512 static V add(V src, Mask m, V a, V b) {
    return _mm512_mask_add_ps(src, m, a, b);
  }
  PARPRIM_TARGET_AVX512 static V add(V a, V b) { return _mm512_add_ps(a, b); }
  PARPRIM_TARGET_AVX512 static V mov(V src, Mask m, V a) { return _mm512_mask_mov_ps(src, m, a); }
  /// \brief Lane `k` of `v` in every lane.
  PARPRIM_TARGET_AVX512 static V lane(V v, int k) {
    return _mm512_maskz_permutexvar_ps(0xffff, _mm512_set1_epi32(k), v);
  }
  /// \brief The masks of the tree below for the heads `h`: as many pairs as 64 bits hold, each
  /// pair's masks in its 16 bits.
  static pair_masks tree_masks(std::uint64_t h) {
    constexpr auto c = [](std::uint64_t m) { return m * 0x0001000100010001ull; };
    const std::uint64_t f1 = h | ((h << 1) & c(0xEEEE));
    const std::uint64_t f2 = f1 | ((f1 << 2) & c(0xCCCC));
    const std::uint64_t f = f2 | (((f2 >> 3) & c(0x0101)) * 0xF0);
    return {{~h & c(0xEEEE), ~f1 & c(0xCCCC), ~f2 & c(0xF0F0)}, ~f & c(0xFFFF)};
  }
  /// \brief The tree of the two groups (segmented_group_vector<float>::scan with the heads as
  /// bits; `m` its masks, from tree_masks): within each 4-lane quarter, lane k adds lane k - 1
  /// unless lane k is a head, then lane k - 2 unless a head lies in (k - 2, k]; the upper quarter
  /// of each group adds its lower quarter's last lane unless a head lies between them.
  PARPRIM_TARGET_AVX512 static V scan(V x, const Mask* m) {
    const V s1 = add(x, m[0], x, _mm512_maskz_permute_ps(0xffff, x, _MM_SHUFFLE(2, 1, 0, 0)));
    const V s2 = add(s1, m[1], s1, _mm512_maskz_permute_ps(0xffff, s1, _MM_SHUFFLE(1, 0, 0, 0)));
    const V low_last = _mm512_maskz_permutexvar_ps(
        0xffff, _mm512_setr_epi32(3, 3, 3, 3, 3, 3, 3, 3, 11, 11, 11, 11, 11, 11, 11, 11), s2);
    return add(s2, m[2], s2, low_last);
  }
  /// \brief Lane 0 `runs`' lane 0, lane 8 its lane 8, every other lane k lane k - 1 of `incl`.
  PARPRIM_TARGET_AVX512 static V sums_before(V incl, V runs) {
    return _mm512_permutex2var_ps(
        incl, _mm512_setr_epi32(16, 0, 1, 2, 3, 4, 5, 6, 24, 8, 9, 10, 11, 12, 13, 14), runs);
  }
  PARPRIM_TARGET_AVX512 static Half group(V v, int which) {
    return which == 0 ? _mm512_maskz_extractf32x8_ps(0xff, v, 0)
                      : _mm512_maskz_extractf32x8_ps(0xff, v, 1);
  }
  /// \brief The lanes of `m` packed to the front, stored at `p` (`firsts`: a mask of the first
  /// lanes, as many as `m` has).
  PARPRIM_TARGET_AVX512 static void store_packed(float* p, Mask m, Mask firsts, V v) {
    _mm512_mask_storeu_ps(p, firsts, _mm512_maskz_compress_ps(m, v));
  }
  template <class K>
  PARPRIM_TARGET_AVX512 static void store_packed_keys(K* p, Mask m, Mask firsts, const K* k,
                                                      bool half) {
    const __m512i keys = _mm512_maskz_loadu_epi32(half ? 0xff : 0xffff, k);
    _mm512_mask_storeu_epi32(p, firsts, _mm512_maskz_compress_epi32(m, keys));
  }
};

template <>
struct group_pair_vector<double> {
  using V = __m512d;
  using Half = __m256d;
  using Mask = __mmask8;
  using Chunk = std::uint8_t;
  static constexpr unsigned width = 4;
  static constexpr unsigned all = 0xffu;
  PARPRIM_TARGET_AVX512 static Mask mask_at(const Chunk* p) {
    Mask m;
    asm("kmovb %1, %0" : "=k"(m) : "m"(*p));
    return m;
  }
  PARPRIM_TARGET_AVX512 static V load(const double* p, bool half) {
    return half ? _mm512_maskz_loadu_pd(0x0f, p) : _mm512_loadu_pd(p);
  }
  PARPRIM_TARGET_AVX512 static V set1(double x) { return _mm512_set1_pd(x); }
  PARPRIM_TARGET_AVX512 static double first(V v) { return _mm512_cvtsd_f64(v); }
  PARPRIM_TARGET_AVX512 static V add(V src, Mask m, V a, V b) {
    return _mm512_mask_add_pd(src, m, a, b);
  }
  PARPRIM_TARGET_AVX512 static V add(V a, V b) { return _mm512_add_pd(a, b); }
  PARPRIM_TARGET_AVX512 static V mov(V src, Mask m, V a) { return _mm512_mask_mov_pd(src, m, a); }
  PARPRIM_TARGET_AVX512 static V lane(V v, int k) {
    return _mm512_maskz_permutexvar_pd(0xff, _mm512_set1_epi64(k), v);
  }
  static pair_masks tree_masks(std::uint64_t h) {
    constexpr auto c = [](std::uint64_t m) { return m * 0x0101010101010101ull; };
    const std::uint64_t f1 = h | ((h << 1) & c(0xAA));
    const std::uint64_t f = f1 | (((f1 >> 1) & c(0x11)) * 0x0C);
    return {{~h & c(0xAA), ~f1 & c(0xCC), 0}, ~f & c(0xFF)};
  }
  /// \brief The tree of the two groups (segmented_group_vector<double>::scan with the heads as
  /// bits; `m` its masks): within each 2-lane half, lane 1 adds lane 0 unless it is a head; the
  /// upper half of each group adds its lower half's last lane unless a head lies between them.
  PARPRIM_TARGET_AVX512 static V scan(V x, const Mask* m) {
    const V s1 = add(x, m[0], x, _mm512_maskz_permute_pd(0xff, x, 0x00));
    const V low_last =
        _mm512_maskz_permutexvar_pd(0xff, _mm512_setr_epi64(1, 1, 1, 1, 5, 5, 5, 5), s1);
    return add(s1, m[1], s1, low_last);
  }
  /// \brief Lane 0 `runs`' lane 0, lane 4 its lane 4, every other lane k lane k - 1 of `incl`.
  PARPRIM_TARGET_AVX512 static V sums_before(V incl, V runs) {
    return _mm512_permutex2var_pd(incl, _mm512_setr_epi64(8, 0, 1, 2, 12, 4, 5, 6), runs);
  }
  PARPRIM_TARGET_AVX512 static Half group(V v, int which) {
    return which == 0 ? _mm512_maskz_extractf64x4_pd(0xf, v, 0)
                      : _mm512_maskz_extractf64x4_pd(0xf, v, 1);
  }
  PARPRIM_TARGET_AVX512 static void store_packed(double* p, Mask m, Mask firsts, V v) {
    _mm512_mask_storeu_pd(p, firsts, _mm512_maskz_compress_pd(m, v));
  }
  template <class K>
  PARPRIM_TARGET_AVX512 static void store_packed_keys(K* p, Mask m, Mask firsts, const K* k,
                                                      bool half) {
    const __m512i keys = _mm512_maskz_loadu_epi64(half ? 0x0f : 0xff, k);
    _mm512_mask_storeu_epi64(p, firsts, _mm512_maskz_compress_epi64(m, keys));
  }
};

/// \brief The heads of the 2 `width` elements of a pair of groups of `T` from `i` (i >= 1 in the
/// sequence) as bits: one-byte flags not zero, or integer keys of the values' size different
/// from the key before. `Half`: only the `width` from `i` are read (the last group of a block;
/// the upper bits are 0).
template <class T, bool Half, class Flags>
PARPRIM_TARGET_AVX512 inline unsigned group_pair_heads(const Flags& flags, std::size_t i) {
  constexpr unsigned count = (Half ? 1 : 2) * group_pair_vector<T>::width;
  constexpr unsigned lanes = (1u << count) - 1;
  if constexpr (byte_flag_span_v<Flags>) {
    const auto* p = reinterpret_cast<const unsigned char*>(flags.data()) + i;
    __m128i bytes;
    if constexpr (count == 16) {
      bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    } else if constexpr (count == 8) {
      std::int64_t w;
      std::memcpy(&w, p, 8);
      bytes = _mm_cvtsi64_si128(w);
    } else {
      std::int32_t w;
      std::memcpy(&w, p, 4);
      bytes = _mm_cvtsi32_si128(w);
    }
    const auto zero =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128())));
    return ~zero & lanes;
  } else {
    const auto* k = flags.data() + i;
    if constexpr (sizeof(T) == 4)
      return _mm512_mask_cmpneq_epi32_mask(static_cast<__mmask16>(lanes),
                                           _mm512_maskz_loadu_epi32(lanes, k),
                                           _mm512_maskz_loadu_epi32(lanes, k - 1));
    else
      return _mm512_mask_cmpneq_epi64_mask(static_cast<__mmask8>(lanes),
                                           _mm512_maskz_loadu_epi64(lanes, k),
                                           _mm512_maskz_loadu_epi64(lanes, k - 1));
  }
}

/// \brief The masks of 64 lanes' pairs of groups (4 pairs of float groups, 8 of double ones) in
/// memory, where each pair's masks reach the mask registers through the load unit: computed
/// for all the pairs at once in 64-bit words, then moved from general registers one by one,
/// they took one of the two vector ports a mask. `words[0]` the heads, `words[1..3]` the tree's
/// masks, `words[4]` the open lanes, `words[5]` and `words[6]` all lanes or none: whether group
/// a, and group b, of the pair add the running sum before them (no head in them).
template <class T>
struct pair_mask_block {
  using P = group_pair_vector<T>;
  using Chunk = typename P::Chunk;
  static constexpr unsigned pairs = 64 / (2 * P::width);
  alignas(64) Chunk words[7][pairs];

  /// \brief The masks of the heads `h` (pair i's in bits [2 i width, 2 (i + 1) width)).
  void fill(std::uint64_t h) {
    const pair_masks m = P::tree_masks(h);
    constexpr std::uint64_t ones = ~std::uint64_t{0} / P::all;  // bit 0 of each pair
    const std::uint64_t last = m.open >> (P::width - 1);        // each group's last lane
    const std::uint64_t w[7] = {h,
                                m.tree[0],
                                m.tree[1],
                                m.tree[2],
                                m.open,
                                (last & ones) * P::all,
                                ((last >> P::width) & ones) * P::all};
    static_assert(sizeof w == sizeof words);
    std::memcpy(words, w, sizeof w);
  }
  PARPRIM_TARGET_AVX512 typename P::Mask mask(unsigned kind, unsigned i) const {
    return P::mask_at(&words[kind][i]);
  }
  unsigned heads(unsigned i) const { return words[0][i]; }
};

/// \brief Masks of the first `c` lanes of 2 `width`, for each c, in memory (the sinks' stores).
template <class T>
struct first_lanes {
  using Chunk = typename group_pair_vector<T>::Chunk;
  static constexpr unsigned lanes = 2 * group_pair_vector<T>::width;
  Chunk m[lanes + 1] = {};
  constexpr first_lanes() {
    for (unsigned c = 0; c <= lanes; ++c) m[c] = static_cast<Chunk>((1u << c) - 1);
  }
};
template <class T>
inline constexpr first_lanes<T> first_lanes_of{};

/// \brief One step of scan_segmented_group_pairs_avx512: groups `g` and `g + 1` (`Half`: group
/// `g` alone), pair `i` of the masks `mb`, from the running sum `run` (in every lane), which it
/// advances.
template <bool Exclusive, bool Half, bool Ahead, class T, class Sink, class Flags>
PARPRIM_TARGET_AVX512 inline void scan_segmented_group_pair(
    const T* in, Sink& sink, std::size_t first, std::size_t g, const Flags& flags,
    const pair_mask_block<T>& mb, unsigned i, typename group_pair_vector<T>::V& run,
    typename group_pair_vector<T>::V inits, std::size_t ahead, std::size_t n) {
  using P = group_pair_vector<T>;
  constexpr unsigned w = P::width;
  const std::size_t at = first + g * w;
  if constexpr (Ahead) read_ahead_element(in, flags.data(), at, ahead, n);
  auto x = P::load(in + at, Half);
  if constexpr (Exclusive) x = P::add(x, mb.mask(0, i), inits, x);
  const typename P::Mask tree[3] = {mb.mask(1, i), mb.mask(2, i), mb.mask(3, i)};
  const auto s = P::scan(x, tree);
  // each group's last sum plus the running sum before it, unless a head lies in the group (the
  // AVX2 form's `run`; the broadcasts off the chain)
  const auto last_a = P::lane(s, w - 1);
  const auto run_a = P::add(last_a, mb.mask(5, i), last_a, run);
  const auto runs = P::mov(run, static_cast<typename P::Mask>(P::all & ~((1u << w) - 1)), run_a);
  const auto incl = P::add(s, mb.mask(4, i), s, runs);
  sink(g, at, incl, runs, mb, i, Half);
  if constexpr (Half) {
    run = run_a;
  } else {
    const auto last_b = P::lane(s, 2 * w - 1);
    run = P::add(last_b, mb.mask(6, i), last_b, run_a);
  }
}

/// \brief One block of the loop below from group `g`: `pairs` whole pairs and (`half`) a last
/// group alone, their masks first (inlined, so that a whole block's `pairs` is a constant).
template <bool Exclusive, bool Ahead, class T, class Sink, class Flags>
[[gnu::always_inline]] PARPRIM_TARGET_AVX512 inline void scan_segmented_group_pair_block(
    const T* in, Sink& sink, std::size_t first, std::size_t g, unsigned pairs, bool half,
    const Flags& flags, pair_mask_block<T>& mb, typename group_pair_vector<T>::V& run,
    typename group_pair_vector<T>::V inits, std::size_t ahead, std::size_t n) {
  using P = group_pair_vector<T>;
  constexpr unsigned bits = 2 * P::width;
  std::uint64_t h = 0;
  for (unsigned i = 0; i < pairs; ++i)
    h |= std::uint64_t{group_pair_heads<T, false>(flags, first + (g + 2 * i) * P::width)}
         << (i * bits);
  if (half)
    h |= std::uint64_t{group_pair_heads<T, true>(flags, first + (g + 2 * pairs) * P::width)}
         << (pairs * bits);
  mb.fill(h);
  for (unsigned i = 0; i < pairs; ++i)
    scan_segmented_group_pair<Exclusive, false, Ahead>(in, sink, first, g + 2 * i, flags, mb, i,
                                                       run, inits, ahead, n);
  if (half)
    scan_segmented_group_pair<Exclusive, true, Ahead>(in, sink, first, g + 2 * pairs, flags, mb,
                                                      pairs, run, inits, ahead, n);
}

/// \brief The loop of scan_segmented_group_pairs_avx512 (`Ahead`: with the read-ahead): blocks
/// of pair_mask_block<T>::pairs pairs, then the pairs and the group left.
template <bool Exclusive, bool Ahead, class T, class Sink, class Flags>
PARPRIM_TARGET_AVX512 typename group_pair_vector<T>::V scan_segmented_group_pairs_loop(
    const T* in, Sink& sink, std::size_t first, std::size_t groups, const Flags& flags,
    typename group_pair_vector<T>::V run, typename group_pair_vector<T>::V inits, std::size_t ahead,
    std::size_t n) {
  using B = pair_mask_block<T>;
  B mb;
  std::size_t g = 0;
  for (; g + 2 * B::pairs <= groups; g += 2 * B::pairs)
    scan_segmented_group_pair_block<Exclusive, Ahead>(in, sink, first, g, B::pairs, false, flags,
                                                      mb, run, inits, ahead, n);
  if (g < groups)
    scan_segmented_group_pair_block<Exclusive, Ahead>(
        in, sink, first, g, static_cast<unsigned>((groups - g) / 2), (groups - g) % 2 != 0, flags,
        mb, run, inits, ahead, n);
  return run;
}

/// \brief The AVX-512 form over whole groups of 32 bytes: the `groups` groups from element
/// `first` (>= 1 in the sequence) of `in`, two at a time (an odd last one alone), from the
/// running sum `acc`. Each pair's inclusive sums (`incl`), the running sums before its groups
/// (`runs`, as group_pair_vector<T>::sums_before takes them) and its masks go to `sink(g, at,
/// incl, runs, mb, i, half)`: `g` its first group, `at` its first element, pair `i` of the
/// pair_mask_block `mb` its masks (`mb.mask(0, i)` and `mb.heads(i)` its heads), `half` true
/// for a last group alone (the upper half of the vectors then holds nothing). `Exclusive`: a head's
/// element enters as `init + x` (the sink writes the sums before the elements). `ahead` > 0:
/// each pair asks the cache for the element that many further on and its head
/// (read_ahead_element; `n` the input's size). Returns the running sum after the last group.
template <bool Exclusive, class T, class Sink, class Flags>
PARPRIM_TARGET_AVX512 T scan_segmented_group_pairs_avx512(const T* in, Sink& sink,
                                                          std::size_t first, std::size_t groups,
                                                          const Flags& flags, T acc, T init,
                                                          std::size_t ahead = 0,
                                                          std::size_t n = 0) {
  using P = group_pair_vector<T>;
  const auto run = P::set1(acc);
  const auto inits = P::set1(init);
  return P::first(ahead > 0 ? scan_segmented_group_pairs_loop<Exclusive, true>(
                                  in, sink, first, groups, flags, run, inits, ahead, n)
                            : scan_segmented_group_pairs_loop<Exclusive, false>(
                                  in, sink, first, groups, flags, run, inits, 0, 0));
}

/// \brief A sink of scan_segmented_group_pairs_avx512 that hands each group's outputs to an AVX2
/// form's store (group_store, group_stream): the inclusive sums, or (`Exclusive`) the sums before
/// the elements, `init` at the heads.
template <bool Exclusive, class T, class Store>
struct group_pair_outputs {
  using P = group_pair_vector<T>;
  Store& store;
  typename P::V inits;
  PARPRIM_TARGET_AVX512 void operator()(std::size_t g, std::size_t, typename P::V incl,
                                        typename P::V runs, const pair_mask_block<T>& mb,
                                        unsigned i, bool half) {
    auto v = incl;
    if constexpr (Exclusive) v = P::mov(P::sums_before(incl, runs), mb.mask(0, i), inits);
    store.put(g, P::group(v, 0));
    if (!half) store.put(g + 1, P::group(v, 1));
  }
};

/// \brief A sink of scan_segmented_group_pairs_avx512 that keeps only the sums of the segments
/// that end (segment_ends_store's contract): each head's running sum before it, packed to the
/// front by a compress and stored (masked: only theirs) at the next free slots, plus `init`
/// where `With_init`; by key (`Key` not void), each head's key one slot further on.
template <bool With_init, class T, class Key, class Flags>
struct segment_ends_pairs {
  using P = group_pair_vector<T>;
  const Flags& flags;
  T* slot;
  Key* keys_out;
  typename P::V init;
  std::size_t j = 0;  // slots written

  PARPRIM_TARGET_AVX512 void operator()(std::size_t, std::size_t at, typename P::V incl,
                                        typename P::V runs, const pair_mask_block<T>& mb,
                                        unsigned i, bool half) {
    auto before = P::sums_before(incl, runs);
    if constexpr (With_init) before = P::add(init, before);
    const auto met = static_cast<unsigned>(std::popcount(mb.heads(i)));
    const auto heads = mb.mask(0, i);
    const auto firsts = P::mask_at(&first_lanes_of<T>.m[met]);
    P::store_packed(slot + j, heads, firsts, before);
    if constexpr (!std::is_void_v<Key>)
      P::store_packed_keys(keys_out + j + 1, heads, firsts, flags.data() + at, half);
    j += met;
  }
};

/// \brief scan_segmented_groups_into (segmented_grouped_sums.hpp) in the AVX-512 form: the same
/// outputs to the same store, the same running sum returned.
template <bool Exclusive, class T, class Store, class Flags>
PARPRIM_TARGET_AVX512 T scan_segmented_groups_avx512(const T* in, Store& store, std::size_t first,
                                                     std::size_t groups, const Flags& flags, T acc,
                                                     T init) {
  group_pair_outputs<Exclusive, T, Store> sink{store, group_pair_vector<T>::set1(init)};
  return scan_segmented_group_pairs_avx512<Exclusive>(in, sink, first, groups, flags, acc, init);
}

/// \brief sum_segment_ends_vectors (segmented_grouped_sums.hpp) in the AVX-512 form: the same
/// slots, keys, count and running sum.
template <bool With_init, class T, class Key, class Flags>
PARPRIM_TARGET_AVX512 T sum_segment_ends_avx512(const T* in, T* slot, Key* keys_out,
                                                std::size_t first, std::size_t groups,
                                                const Flags& flags, T acc, T init,
                                                std::size_t& ends, std::size_t ahead = 0,
                                                std::size_t n = 0) {
  segment_ends_pairs<With_init, T, Key, Flags> sink{flags, slot, keys_out,
                                                    group_pair_vector<T>::set1(init)};
  acc =
      scan_segmented_group_pairs_avx512<false>(in, sink, first, groups, flags, acc, T{}, ahead, n);
  ends = sink.j;
  return acc;
}

#endif

}  // namespace parprim::openmp::detail
