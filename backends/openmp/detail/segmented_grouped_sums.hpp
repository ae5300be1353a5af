#pragma once
/// \file
/// \brief The block step of a segmented scan with `plus` of float or double values (heads from
/// one-byte flags or from integer keys of the values' size), in the 32-byte groups
/// of grouped_sums.hpp: each group from the block's first element takes the same fixed tree as a
/// plain scan's group, except that a lane never adds a lane before a head at or below it:
/// - within each 16-byte half, lane k adds lane k - 1 unless lane k is a head, then lane k - 2
///   unless a head lies in (k - 2, k]; the upper half adds the lower half's last lane unless a
///   head lies between them;
/// - the running sum before the group is added to the lanes before the group's first head, and
///   the last lane is the next running sum (an addition and a select on the running sum's chain
///   a group, not an addition and a select an element).
/// An exclusive scan adds `init` to each head's element before the tree (as the sequential loop
/// starts each segment from `init`) and writes each lane's running sum before its element
/// (`init` at a head). A group without a head is added exactly as a plain scan's group. The heads
/// change only which sums are taken, never a sign: no lane adds a zero in place of a lane it skips,
/// so a segment of -0 gives -0 as the sequential loop does. The groups depend only on where the
/// block starts, so the results keep their bits from run to run. Two forms compute the same tree:
/// the AVX2 one (branch-free: a head every few elements costs what long runs cost) and a portable
/// one (the tail of a block, and processors without AVX2, or `PARPRIM_SEGMENT_SIMD=portable`).
/// The per-segment float and double sums (segments.hpp, sum_block_by_scan) take the same tree
/// and keep, of each group's outputs, only the sums before its heads (segment_ends_store).

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <parprim/backends/openmp/detail/grouped_sums.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/backends/openmp/detail/segmented_grouped_sums_avx512.hpp>
#include <parprim/backends/openmp/detail/segmented_sums_avx2.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether a segmented scan with `Op` of `Input` into `Out`, heads given by `Flags`,
/// takes segmented_grouped_sum_scan: `plus` on float or double results, the input an
/// array of the results' own type, flags of one byte or integer keys of the results' size.
template <class Out, class Input, class Flags, class Op>
constexpr bool segmented_grouped_sums_ok() {
  if constexpr (!std::is_same_v<std::remove_cvref_t<Op>, plus> ||
                !(std::is_same_v<Out, float> || std::is_same_v<Out, double>) ||
                !requires(const Input& x) { x.data(); })
    return false;
  else {
    using U = std::conditional_t<sizeof(Out) == 4, std::uint32_t, std::uint64_t>;
    return std::is_same_v<std::remove_cv_t<typename Input::value_type>, Out> &&
           (byte_flag_span_v<Flags> || integer_key_heads_v<Flags, U>);
  }
}

/// \brief The portable form: the outputs of the group of `count` (1 to group_elements) elements
/// from element `k` (k >= 1 in the sequence) of `x` into `o` (which may be `x`), from the
/// running sum `acc`, which it advances. Inclusive, or `Exclusive`: a head's element enters as
/// `init + x`, and each output is the running sum before its element (`init` at a head).
/// (`Whole`: count is a whole group, so the compiler unrolls the loops.)
template <bool Exclusive, bool Whole, class T, class Flags>
void scan_segmented_group_portable_impl(const T* x, T* o, std::size_t k, unsigned count,
                                        const Flags& flags, T& acc, T init) {
  constexpr unsigned width = group_elements<T>;
  constexpr unsigned half = width / 2;
  if constexpr (Whole) count = width;
  T v[width];
  bool f[width];     // a head at or below the lane, among the lanes it has added
  bool head[width];  // the lane is a head
  for (unsigned j = 0; j < count; ++j) {
    head[j] = f[j] = parprim::detail::head_after_first(flags, k + j);
    v[j] = Exclusive && head[j] ? init + x[j] : x[j];
  }
  for (unsigned d = 1; d < half; d *= 2)  // within each half: lane j adds lane j - d
    for (unsigned j = count; j-- > 0;)
      if (j % half >= d) {
        if (!f[j]) v[j] = v[j] + v[j - d];
        f[j] = f[j] || f[j - d];
      }
  for (unsigned j = half; j < count; ++j) {
    if (!f[j]) v[j] = v[j] + v[half - 1];
    f[j] = f[j] || f[half - 1];
  }
  T before = acc;
  for (unsigned j = 0; j < count; ++j) {
    const T incl = f[j] ? v[j] : v[j] + acc;
    o[j] = Exclusive ? (head[j] ? init : before) : incl;
    before = incl;
  }
  acc = before;
}
template <bool Exclusive, class T, class Flags>
void scan_segmented_group_portable(const T* x, T* o, std::size_t k, unsigned count,
                                   const Flags& flags, T& acc, T init) {
  if (count == group_elements<T>)
    scan_segmented_group_portable_impl<Exclusive, true>(x, o, k, count, flags, acc, init);
  else
    scan_segmented_group_portable_impl<Exclusive, false>(x, o, k, count, flags, acc, init);
}

#if PARPRIM_HOST_AVX2
/// \brief The AVX2 tree of one group, float (8 lanes) and double (4 lanes), and its lane masks
/// and selects (loads and additions: group_vector).
template <class T>
struct segmented_group_vector;

template <>
struct segmented_group_vector<float> {
  using V = __m256;
  /// \brief The group's sums within its segments (`f`: the heads as a lane mask; on return, a
  /// head at or below each lane).
  PARPRIM_TARGET_AVX2 static V scan(V x, V& f) {
    // within each half, lane k + lane k - 1 (lanes 0 and 4, and the heads, keep x) ...
    const V f1 =
        _mm256_blend_ps(_mm256_or_ps(f, _mm256_permute_ps(f, _MM_SHUFFLE(2, 1, 0, 0))), f, 0x11);
    const V t1 = _mm256_add_ps(x, _mm256_permute_ps(x, _MM_SHUFFLE(2, 1, 0, 0)));
    const V s1 = _mm256_blendv_ps(_mm256_blend_ps(t1, x, 0x11), x, f);
    // ... + lane k - 2 (lanes 0, 1, 4 and 5 keep s1, as do lanes with a head in (k - 2, k])
    const V f2 =
        _mm256_blend_ps(_mm256_or_ps(f1, _mm256_permute_ps(f1, _MM_SHUFFLE(1, 0, 0, 0))), f1, 0x33);
    const V t2 = _mm256_add_ps(s1, _mm256_permute_ps(s1, _MM_SHUFFLE(1, 0, 0, 0)));
    const V s2 = _mm256_blendv_ps(_mm256_blend_ps(t2, s1, 0x33), s1, f1);
    // the upper half + the lower half's last lane, where no head lies between them
    const V sl = _mm256_permute_ps(s2, _MM_SHUFFLE(3, 3, 3, 3));
    const V fl = _mm256_permute_ps(f2, _MM_SHUFFLE(3, 3, 3, 3));
    const V t3 = _mm256_add_ps(s2, _mm256_permute2f128_ps(sl, sl, 0x00));
    const V s3 = _mm256_blend_ps(s2, _mm256_blendv_ps(t3, s2, f2), 0xF0);
    f = _mm256_blend_ps(f2, _mm256_or_ps(f2, _mm256_permute2f128_ps(fl, fl, 0x00)), 0xF0);
    return s3;
  }
  PARPRIM_TARGET_AVX2 static V mask(__m256i m) { return _mm256_castsi256_ps(m); }
  PARPRIM_TARGET_AVX2 static V select(V no, V yes, V m) { return _mm256_blendv_ps(no, yes, m); }
};

template <>
struct segmented_group_vector<double> {
  using V = __m256d;
  PARPRIM_TARGET_AVX2 static V scan(V x, V& f) {
    // lane 1 + lane 0 and lane 3 + lane 2 (lanes 0 and 2, and the heads, keep x)
    const V f1 = _mm256_blend_pd(_mm256_or_pd(f, _mm256_permute_pd(f, 0x0)), f, 0x5);
    const V t1 = _mm256_add_pd(x, _mm256_permute_pd(x, 0x0));
    const V s1 = _mm256_blendv_pd(_mm256_blend_pd(t1, x, 0x5), x, f);
    // the upper half + lane 1, where no head lies between them
    const V sl = _mm256_permute_pd(s1, 0xF);
    const V fl = _mm256_permute_pd(f1, 0xF);
    const V t2 = _mm256_add_pd(s1, _mm256_permute2f128_pd(sl, sl, 0x00));
    const V s2 = _mm256_blend_pd(s1, _mm256_blendv_pd(t2, s1, f1), 0xC);
    f = _mm256_blend_pd(f1, _mm256_or_pd(f1, _mm256_permute2f128_pd(fl, fl, 0x00)), 0xC);
    return s2;
  }
  PARPRIM_TARGET_AVX2 static V mask(__m256i m) { return _mm256_castsi256_pd(m); }
  PARPRIM_TARGET_AVX2 static V select(V no, V yes, V m) { return _mm256_blendv_pd(no, yes, m); }
};

/// \brief Groups a chunk of the AVX2 form holds. A chunk that held at most one head in
/// `sparse_from_one_in` elements is followed by one that tests each group for a head and adds a
/// group without one as a plain scan's group (the same operations without the selects, so the
/// same bits); denser chunks are followed by the loop without that branch, which a head in every
/// other group would mispredict.
inline constexpr std::size_t segmented_group_chunk = 64;
inline constexpr std::size_t sparse_from_one_in = 64;

/// \brief One group of the AVX2 form with its heads' lane mask: the segmented tree, stored as
/// group `g`; advances the running sum `run` (`Exclusive`: as the portable form, `init` in
/// every lane).
template <bool Exclusive, class T, class Store>
PARPRIM_TARGET_AVX2 inline void scan_segmented_group_avx2(
    Store& store, std::size_t g, typename segmented_group_vector<T>::V x, __m256i heads,
    typename segmented_group_vector<T>::V& run, typename segmented_group_vector<T>::V init) {
  using G = segmented_group_vector<T>;
  using P = group_vector<T>;
  const auto head = G::mask(heads);
  auto f = head;
  if constexpr (Exclusive) x = G::select(x, P::add(init, x), head);
  const auto s = G::scan(x, f);
  const auto incl = G::select(P::add(s, run), s, f);
  if constexpr (Exclusive)
    store.put(g, G::select(P::shift_in(incl, run), init, head));
  else
    store.put(g, incl);
  // the last lane's output again, as the same addition and select, the shuffles off the chain
  run = G::select(P::add(P::last(s), run), P::last(s), P::last(f));
}

/// \brief The AVX2 form over whole groups: the `groups` groups from element `first` (>= 1 in
/// the sequence) of `in`, each group's outputs given to `store.put(g, v)` in turn, from the
/// running sum `acc`. Returns the running sum after the last group. `Ahead`: each group asks the
/// cache for the element `ahead` further on and its head (read_ahead_element; `n` the input's
/// size).
template <bool Exclusive, class T, class Store, class Flags, bool Ahead = false>
PARPRIM_TARGET_AVX2 T scan_segmented_groups_into(const T* in, Store& store, std::size_t first,
                                                 std::size_t groups, const Flags& flags, T acc,
                                                 T init, std::size_t ahead = 0, std::size_t n = 0) {
  using G = segmented_group_vector<T>;
  using P = group_vector<T>;
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  using V = typename G::V;
  constexpr std::size_t width = group_elements<T>;
  V run = P::broadcast(acc);
  const V inits = P::broadcast(init);
  bool sparse = true;  // the first chunk tests each group
  for (std::size_t c = 0; c < groups; c += segmented_group_chunk) {
    const std::size_t end = groups - c < segmented_group_chunk ? groups : c + segmented_group_chunk;
    // heads counted lane by lane (a head's lanes are all ones: subtracting adds one)
    __m256i counts = _mm256_setzero_si256();
    if (sparse) {
      for (std::size_t g = c; g < end; ++g) {
        const std::size_t at = first + g * width;
        if constexpr (Ahead) read_ahead_element(in, flags.data(), at, ahead, n);
        const __m256i heads = heads_mask_avx2<U>(flags, at);
        const V x = P::load(in + at);
        if (_mm256_testz_si256(heads, heads)) {  // no head: a plain scan's group
          scan_group_avx2<Exclusive, T>(store, g, x, run);
        } else {
          counts = _mm256_sub_epi32(counts, heads);
          scan_segmented_group_avx2<Exclusive, T>(store, g, x, heads, run, inits);
        }
      }
    } else {
      for (std::size_t g = c; g < end; ++g) {
        const std::size_t at = first + g * width;
        if constexpr (Ahead) read_ahead_element(in, flags.data(), at, ahead, n);
        const __m256i heads = heads_mask_avx2<U>(flags, at);
        counts = _mm256_sub_epi32(counts, heads);
        scan_segmented_group_avx2<Exclusive, T>(store, g, P::load(in + at), heads, run, inits);
      }
    }
    alignas(32) std::uint32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), counts);
    std::size_t heads = 0;
    for (const std::uint32_t k : lanes) heads += k;
    if constexpr (sizeof(T) == 8) heads /= 2;  // an 8-byte lane is two 32-bit lanes
    sparse = heads * sparse_from_one_in <= (end - c) * width;
  }
  T lanes[width];
  P::store(lanes, run);
  return lanes[0];
}

/// \brief scan_segmented_groups_into with the outputs in `out` (element `first`'s output:
/// `out` may be `in + first`); with `Stream`, through group_stream (the caller fences), else
/// group_store. Where segment_folds_avx512_usable(), the AVX-512 form
/// (segmented_grouped_sums_avx512.hpp) runs instead: the same bits.
template <bool Exclusive, bool Stream, class T, class Flags>
PARPRIM_TARGET_AVX2 T scan_segmented_groups_vectors(const T* in, T* out, std::size_t first,
                                                    std::size_t groups, const Flags& flags, T acc,
                                                    T init) {
  std::conditional_t<Stream, group_stream<T>, group_store<T>> store(out);
  if (segment_folds_avx512_usable())  // (the same bits, two groups a vector)
    acc = scan_segmented_groups_avx512<Exclusive>(in, store, first, groups, flags, acc, init);
  else
    acc = scan_segmented_groups_into<Exclusive>(in, store, first, groups, flags, acc, init);
  store.finish(groups);
  return acc;
}

/// \brief A store for scan_segmented_groups_into (inclusive, float or double) that keeps only
/// the sums of the segments that end: each head's lane takes the running sum before it (the
/// lane before, or the group before's last lane), those of a group are packed to the front by
/// the table of lane permutations of segment_sums_avx2.hpp and stored (masked: only theirs) at
/// the next free slots, plus `init` where `With_init`; by key (`Key` not void, of the values'
/// size), each head's key goes beside the segment it starts, one slot further on. `slot[0]`: the
/// segment open before group 0.
template <bool With_init, class T, class Key, class Flags>
struct segment_ends_store {
  using P = group_vector<T>;
  using V = typename P::V;
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static constexpr std::size_t width = group_elements<T>;
  const Flags& flags;
  std::size_t first;  // element of group 0
  T* slot;
  Key* keys_out;  // by key: the key of the segment in slot[q] at keys_out[q]
  V before;       // the running sum before the group, in every lane
  V init;
  std::size_t j = 0;  // slots written

  PARPRIM_TARGET_AVX2 void put(std::size_t g, V v) {
    const std::size_t at = first + g * width;
    const __m256i mask = heads_mask_avx2<U>(flags, at);
    // lane k: the sum before element k of the group
    V shifted;
    unsigned heads;
    if constexpr (sizeof(T) == 4) {
      heads = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(mask)));
      shifted = _mm256_blend_ps(
          _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)), before, 0x01);
    } else {
      heads = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(mask)));
      shifted = _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), before, 0x01);
    }
    const __m256i pack = _mm256_load_si256(
        reinterpret_cast<const __m256i*>(packing_table_v<sizeof(T)>[heads].data()));
    const auto met = static_cast<unsigned>(_mm_popcnt_u32(heads));
    // the 32-bit lanes of the first `met` elements
    const __m256i keep =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(met * (sizeof(T) / 4))),
                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    V ends;
    if constexpr (sizeof(T) == 4)
      ends = _mm256_permutevar8x32_ps(shifted, pack);
    else
      ends = _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(shifted), pack));
    if constexpr (With_init) ends = P::add(init, ends);
    if constexpr (sizeof(T) == 4)
      _mm256_maskstore_ps(slot + j, keep, ends);
    else
      _mm256_maskstore_pd(slot + j, keep, ends);
    if constexpr (!std::is_void_v<Key>) {
      const __m256i keys = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(flags.data() + at));
      _mm256_maskstore_epi32(reinterpret_cast<int*>(keys_out + j + 1), keep,
                             _mm256_permutevar8x32_epi32(keys, pack));
    }
    j += met;
    if constexpr (sizeof(T) == 4)
      before = _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(7));
    else
      before = _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 3, 3));
  }
};

/// \brief The `groups` whole groups of 32 bytes from element `first` (>= 1 in the sequence) of
/// `in`, from the running sum `acc`, through segment_ends_store: the sums of the segments that
/// end in them (plus `init` where `With_init`) at `slot[0], slot[1], ...` (by key, their
/// successors' keys at `keys_out[1], ...`); `ends` receives how many. Returns the running sum
/// after the last group. Where segment_folds_avx512_usable(), the AVX-512 form
/// (segmented_grouped_sums_avx512.hpp) runs instead, with the same results. `ahead` > 0: each
/// group asks the cache for the element that many further on (scan_segmented_groups_into).
template <bool With_init, class T, class Key, class Flags>
PARPRIM_TARGET_AVX2 T sum_segment_ends_vectors(const T* in, T* slot, Key* keys_out,
                                               std::size_t first, std::size_t groups,
                                               const Flags& flags, T acc, T init, std::size_t& ends,
                                               std::size_t ahead = 0, std::size_t n = 0) {
  if (segment_folds_avx512_usable())  // (the same bits, two groups a vector)
    return sum_segment_ends_avx512<With_init, T, Key, Flags>(in, slot, keys_out, first, groups,
                                                             flags, acc, init, ends, ahead, n);
  segment_ends_store<With_init, T, Key, Flags> store{flags,
                                                     first,
                                                     slot,
                                                     keys_out,
                                                     group_vector<T>::broadcast(acc),
                                                     group_vector<T>::broadcast(init)};
  acc = ahead > 0 ? scan_segmented_groups_into<false, T, decltype(store), Flags, true>(
                        in, store, first, groups, flags, acc, T{}, ahead, n)
                  : scan_segmented_groups_into<false>(in, store, first, groups, flags, acc, T{});
  ends = store.j;
  return acc;
}
#endif

/// \brief `out[k - b]` for k in [b, e) (b >= 1 in the sequence) of the inclusive segmented sum
/// whose running value before element b is `acc`, or (`Exclusive`) of the exclusive one whose
/// segments start from `init`, in groups from element b (`out` is element b's output: `in + b`
/// for a scan in place); `stream`: streaming stores for the whole groups (the AVX2 form; then a
/// store fence). `avx2`: the AVX2 form (where the processor has it); both forms give the same
/// bits. Returns the running value after element e - 1.
template <bool Exclusive = false, class T, class Flags>
T segmented_grouped_sum_scan(const T* in, T* out, std::size_t b, std::size_t e, bool stream, T acc,
                             const Flags& flags, bool avx2, T init = T{}) {
  constexpr std::size_t width = group_elements<T>;
  std::size_t i = b;
#if PARPRIM_HOST_AVX2
  if (avx2) {
    const std::size_t groups = (e - b) / width;
    if (groups > 0) {
      if (stream) {
        acc = scan_segmented_groups_vectors<Exclusive, true>(in, out, b, groups, flags, acc, init);
        _mm_sfence();
      } else {
        acc = scan_segmented_groups_vectors<Exclusive, false>(in, out, b, groups, flags, acc, init);
      }
    }
    i += groups * width;
  }
#else
  static_cast<void>(stream);
  static_cast<void>(avx2);
#endif
  for (; i < e; i += width)
    scan_segmented_group_portable<Exclusive>(in + i, out + (i - b), i,
                                             static_cast<unsigned>(e - i < width ? e - i : width),
                                             flags, acc, init);
  return acc;
}

}  // namespace parprim::openmp::detail
