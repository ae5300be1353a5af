#pragma once
/// \file
/// \brief A thread's block of a plain scan with `plus` of 4- or 8-byte arithmetic values read
/// as they are (float, double, int32, uint32, int64, uint64, ...), in *groups* of 32 bytes
/// (8 or 4 elements) from the block's first element, instead of one addition after another.
///
/// A scan that adds each element to the running sum is bound by that chain: one dependent
/// floating-point addition (its full latency, several cycles) per element. Here each group is first
/// scanned on its own, with a fixed tree that a 256-bit vector computes in three shuffled additions
/// (two for 8-byte values): within each 16-byte half, lane k adds lane k - 1, then (4-byte
/// values) lane k - 2; then the lanes of the upper half add the lower half's last lane. Only
/// the running sum before the group is then added to every lane, and the group's last output
/// is the next running sum: one addition of the chain per group.
///
/// The groups are a fixed function of the block (they start at its first element, whatever the
/// addresses), so a float scan still gives the same bits from run to run. It is another
/// association than the sequential left fold, within the same error bound (docs/guide.md,
/// "Floating point"): each output is a sum of its elements (and the carry into the block) in a
/// tree no deeper than the left fold's. Integer sums wrap in the unsigned type, so they equal
/// the left fold exactly.
///
/// Two forms, the same bits (NaN payloads aside: which of two NaN operands an addition returns
/// is the compiler's choice in portable code): the AVX2 one (`PARPRIM_TARGET_AVX2`, taken where
/// `avx2_supported()`), and the portable one, which computes the same tree element by element
/// (also for a block's last, partial group: a lane depends only on the lanes before it).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/detail/cpu_features.hpp>
#include <parprim/operators.hpp>

namespace parprim::openmp::detail {

/// \brief Whether a plain scan with `Op` of `Input` into `Out` takes the grouped block scan:
/// `plus` on 4- or 8-byte arithmetic results, the input an array of the results' own type.
template <class Out, class Input, class Op>
constexpr bool grouped_sums_ok() {
  if constexpr (!std::is_same_v<std::remove_cvref_t<Op>, plus> || !std::is_arithmetic_v<Out> ||
                std::is_same_v<Out, bool> || (sizeof(Out) != 4 && sizeof(Out) != 8) ||
                !requires(const Input& x) { x.data(); })
    return false;
  else
    return std::is_same_v<std::remove_cv_t<typename Input::value_type>, Out>;
}

/// \brief Elements of a group: 32 bytes.
template <class T>
inline constexpr unsigned group_elements = 32 / sizeof(T);

/// \brief a + b in the lane fold's type (fold.hpp's lane_t: signed integers in the unsigned
/// type, wrapping, as the left fold's result).
template <class T>
inline T group_add(T a, T b) {
  using L = lane_t<plus, T>;
  return static_cast<T>(static_cast<L>(static_cast<L>(a) + static_cast<L>(b)));
}

/// \brief No read-ahead (the prefetch callable of grouped_sum_scan and scan_groups_avx2).
struct no_read_ahead {
  void operator()(std::size_t) const {}
};

/// \brief The running sum between groups: absent only before the first element of an inclusive
/// scan with no carry.
template <class T>
struct group_carry {
  T value{};
  bool has = false;
};

/// \brief The portable form: the outputs of the group of `count` (1 to group_elements)
/// elements at `x` into `o` (`o` may be `x`), inclusive or exclusive (lane k: the inclusive
/// output of lane k - 1, lane 0 the running sum), from the running sum `c`, which it advances.
template <bool Exclusive, class T>
void scan_group_portable(const T* x, T* o, unsigned count, group_carry<T>& c) {
  constexpr unsigned width = group_elements<T>;
  constexpr unsigned half = width / 2;
  T v[width];
  for (unsigned k = 0; k < count; ++k) v[k] = x[k];
  for (unsigned d = 1; d < half; d *= 2)  // within each half: lane k adds lane k - d
    for (unsigned k = count; k-- > 0;)
      if (k % half >= d) v[k] = group_add(v[k], v[k - d]);
  for (unsigned k = half; k < count; ++k) v[k] = group_add(v[k], v[half - 1]);
  const group_carry<T> before = c;
  for (unsigned k = 0; k < count; ++k) {
    const T incl = before.has ? group_add(v[k], before.value) : v[k];
    if constexpr (Exclusive) o[k] = c.value;  // exclusive scans always have a running sum
    if constexpr (!Exclusive) o[k] = incl;
    c.value = incl;
  }
  c.has = true;
}

#if PARPRIM_HOST_AVX2
/// \brief The AVX2 operations on a vector of 4-byte (`__m256`) or 8-byte (`__m256d`) elements
/// of type T: loads, stores and additions of T on the vector's bits, the group's tree.
template <class T, std::size_t Size = sizeof(T)>
struct group_vector;

template <class T>
struct group_vector<T, 4> {
  using V = __m256;
  PARPRIM_TARGET_AVX2 static V load(const T* p) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
  }
  PARPRIM_TARGET_AVX2 static void store(T* p, V v) {
    _mm256_storeu_ps(reinterpret_cast<float*>(p), v);
  }
  PARPRIM_TARGET_AVX2 static V add(V a, V b) {
    if constexpr (std::is_floating_point_v<T>)
      return _mm256_add_ps(a, b);
    else
      return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
  }
  PARPRIM_TARGET_AVX2 static V broadcast(T x) {
    return _mm256_castsi256_ps(_mm256_set1_epi32(__builtin_bit_cast(std::int32_t, x)));
  }
  /// \brief The group's inclusive sums (the tree of the file comment).
  PARPRIM_TARGET_AVX2 static V scan(V x) {
    // within each half, lane k + lane k - 1 (lanes 0 and 4 keep x) ...
    const V s1 = _mm256_blend_ps(add(x, _mm256_permute_ps(x, _MM_SHUFFLE(2, 1, 0, 0))), x, 0x11);
    // ... + lane k - 2 (lanes 0, 1, 4 and 5 keep s1)
    const V s2 = _mm256_blend_ps(add(s1, _mm256_permute_ps(s1, _MM_SHUFFLE(1, 0, 0, 0))), s1, 0x33);
    // the upper half + the lower half's last lane
    const V low_last = _mm256_permute_ps(s2, _MM_SHUFFLE(3, 3, 3, 3));
    return _mm256_blend_ps(s2, add(s2, _mm256_permute2f128_ps(low_last, low_last, 0x00)), 0xF0);
  }
  /// \brief The last lane in every lane.
  PARPRIM_TARGET_AVX2 static V last(V v) {
    const V t = _mm256_permute_ps(v, _MM_SHUFFLE(3, 3, 3, 3));
    return _mm256_permute2f128_ps(t, t, 0x11);
  }
  /// \brief Lane k - 1 of `v` in lane k, lane 0 of `first` in lane 0.
  PARPRIM_TARGET_AVX2 static V shift_in(V v, V first) {
    const V r = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6));
    return _mm256_blend_ps(r, first, 0x01);
  }
};

template <class T>
struct group_vector<T, 8> {
  using V = __m256d;
  PARPRIM_TARGET_AVX2 static V load(const T* p) {
    return _mm256_loadu_pd(reinterpret_cast<const double*>(p));
  }
  PARPRIM_TARGET_AVX2 static void store(T* p, V v) {
    _mm256_storeu_pd(reinterpret_cast<double*>(p), v);
  }
  PARPRIM_TARGET_AVX2 static V add(V a, V b) {
    if constexpr (std::is_floating_point_v<T>)
      return _mm256_add_pd(a, b);
    else
      return _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(a), _mm256_castpd_si256(b)));
  }
  PARPRIM_TARGET_AVX2 static V broadcast(T x) {
    return _mm256_castsi256_pd(_mm256_set1_epi64x(__builtin_bit_cast(long long, x)));
  }
  PARPRIM_TARGET_AVX2 static V scan(V x) {
    // lane 1 + lane 0 and lane 3 + lane 2 (lanes 0 and 2 keep x)
    const V s1 = _mm256_blend_pd(add(x, _mm256_permute_pd(x, 0x0)), x, 0x5);
    // the upper half + lane 1
    const V low_last = _mm256_permute_pd(s1, 0xF);
    return _mm256_blend_pd(s1, add(s1, _mm256_permute2f128_pd(low_last, low_last, 0x00)), 0xC);
  }
  PARPRIM_TARGET_AVX2 static V last(V v) {
    const V t = _mm256_permute_pd(v, 0xF);
    return _mm256_permute2f128_pd(t, t, 0x11);
  }
  PARPRIM_TARGET_AVX2 static V shift_in(V v, V first) {
    return _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 3)), first, 0x1);
  }
};

/// \brief Writes a block's group outputs with streaming (non-temporal) stores, which need
/// 32-byte aligned addresses, while the groups start at the block's first element: where that
/// lies `r` 32-bit lanes past a 32-byte boundary, each aligned vector is the last r lanes of one
/// group's outputs and the first 8 - r of the next (two lane permutations and a blend); the
/// lanes before the first boundary and after the last go through the cache.
template <class T>
struct group_stream {
  float* dst;        // the block's first output, as 32-bit lanes
  unsigned r;        // lanes past a 32-byte boundary (0 to 7; even for 8-byte elements)
  __m256i index;     // lane j: (j - r) mod 8
  __m256 from_next;  // lanes j >= r: the sign bit
  __m256 previous;   // the outputs of the group before

  PARPRIM_TARGET_AVX2 explicit group_stream(T* out)
      : dst(reinterpret_cast<float*>(out)),
        r(static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) % 32) / 4),
        index(_mm256_sub_epi32(_mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15),
                               _mm256_set1_epi32(static_cast<int>(r)))),
        from_next(
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                                   _mm256_set1_epi32(static_cast<int>(r) - 1)))),
        previous(_mm256_setzero_ps()) {
    index = _mm256_and_si256(index, _mm256_set1_epi32(7));
  }
  /// \brief The outputs of group g (0, 1, 2, ... in turn), as 32-bit lanes.
  PARPRIM_TARGET_AVX2 void put(std::size_t g, __m256d v) { put(g, _mm256_castpd_ps(v)); }
  PARPRIM_TARGET_AVX2 void put(std::size_t g, __m256 v) {
    if (r == 0) {
      _mm256_stream_ps(dst + 8 * g, v);
      return;
    }
    if (g == 0) {
      std::memcpy(dst, &v, 4 * (8 - r));  // before the first boundary
    } else {
      const __m256 joined = _mm256_blendv_ps(_mm256_permutevar8x32_ps(previous, index),
                                             _mm256_permutevar8x32_ps(v, index), from_next);
      _mm256_stream_ps(dst + 8 * g - r, joined);
    }
    previous = v;
  }
  /// \brief After the last of `groups` groups: its lanes past the last boundary.
  PARPRIM_TARGET_AVX2 void finish(std::size_t groups) {
    if (r == 0 || groups == 0) return;
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, previous);
    std::memcpy(dst + 8 * groups - r, lanes + (8 - r), 4 * r);
  }
};

/// \brief The cached stores of a block's group outputs (group_stream's interface).
template <class T>
struct group_store {
  T* dst;  // the block's first output
  PARPRIM_TARGET_AVX2 explicit group_store(T* out) : dst(out) {}
  template <class V>
  PARPRIM_TARGET_AVX2 void put(std::size_t g, V v) {
    group_vector<T>::store(dst + g * group_elements<T>, v);
  }
  PARPRIM_TARGET_AVX2 void finish(std::size_t) {}
};

/// \brief One group of the AVX2 form: the outputs of `x` from the running sum `run` (in every
/// lane), stored as group `g`; advances `run`.
template <bool Exclusive, class T, class Store>
PARPRIM_TARGET_AVX2 inline void scan_group_avx2(Store& store, std::size_t g,
                                                typename group_vector<T>::V x,
                                                typename group_vector<T>::V& run) {
  using G = group_vector<T>;
  const auto s = G::scan(x);
  const auto incl = G::add(s, run);
  store.put(g, Exclusive ? G::shift_in(incl, run) : incl);
  // the last lane's output again, as the same addition (the same operands in the same order),
  // with the shuffles off the chain: one addition a group
  run = G::add(G::last(s), run);
}

/// \brief The AVX2 form over whole groups: the `groups` groups from element `first` of `in`
/// into `out` (which may be `in`), from the running sum `c`, which it advances; with `Stream`,
/// through group_stream (the caller fences), else group_store. `read_ahead(k)` is called with
/// each group's first element k (next_round_prefetch: a request to the cache).
template <bool Exclusive, bool Stream, class T, class ReadAhead = no_read_ahead>
PARPRIM_TARGET_AVX2 void scan_groups_avx2(const T* in, T* out, std::size_t first,
                                          std::size_t groups, group_carry<T>& c,
                                          const ReadAhead& read_ahead = {}) {
  using G = group_vector<T>;
  using V = typename G::V;
  constexpr std::size_t width = group_elements<T>;
  if (groups == 0) return;
  std::conditional_t<Stream, group_stream<T>, group_store<T>> store(out + first);
  std::size_t g = 0;
  V run;
  if (c.has) {
    run = G::broadcast(c.value);
  } else {  // the first group of an inclusive scan with no carry: its sums are its outputs
    const V s = G::scan(G::load(in + first));
    store.put(0, s);
    run = G::last(s);
    g = 1;
  }
  for (; g < groups; ++g) {
    const std::size_t at = first + g * width;
    read_ahead(at);
    scan_group_avx2<Exclusive, T>(store, g, G::load(in + at), run);
  }
  store.finish(groups);
  alignas(32) T lanes[width];
  G::store(lanes, run);
  c.value = lanes[0];
  c.has = true;
}
#endif

/// \brief Whether the AVX2 form runs (`avx2_supported()`).
inline bool grouped_sums_avx2_usable() {
#if PARPRIM_HOST_AVX2
  return parprim::detail::avx2_supported();
#else
  return false;
#endif
}

/// \brief The grouped scan of elements [b, e) of `in` into `out` (which may be `in`), from
/// `carry` (null: none; an exclusive scan always has one). `stream`: streaming stores for the
/// whole groups (write_sequence.hpp; the AVX2 form only, the portable one writes through the
/// cache). `read_ahead(k)` for each group's first element k (next_round_prefetch).
template <bool Exclusive, class T, class ReadAhead = no_read_ahead>
void grouped_sum_scan(const T* in, T* out, std::size_t b, std::size_t e, const T* carry,
                      bool stream, const ReadAhead& read_ahead = {}) {
  constexpr std::size_t width = group_elements<T>;
  group_carry<T> c;
  if (carry) c = {*carry, true};
  std::size_t i = b;
#if PARPRIM_HOST_AVX2
  if (grouped_sums_avx2_usable()) {
    const std::size_t groups = (e - b) / width;
    if (stream) {
      scan_groups_avx2<Exclusive, true>(in, out, b, groups, c, read_ahead);
      _mm_sfence();
    } else {
      scan_groups_avx2<Exclusive, false>(in, out, b, groups, c, read_ahead);
    }
    i += groups * width;
  }
#else
  static_cast<void>(stream);
#endif
  for (; i < e; i += width) {
    read_ahead(i);
    scan_group_portable<Exclusive>(in + i, out + i,
                                   static_cast<unsigned>(e - i < width ? e - i : width), c);
  }
}

}  // namespace parprim::openmp::detail
