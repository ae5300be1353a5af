#pragma once
/// \file
/// \brief What a scan kernel reads and writes, apart from how it scans: the *problem*. Every
/// rung of the scan ladder scans values of `value_type` with `op_type` and hands each element's
/// results to the problem, which decides what to store. Two problems:
///
/// - `plain_problem`: inclusive or exclusive scan of `In` into `T` with `Op` (also used for the
///   scan of tile totals in the multi-pass rungs, where `In = T = value_type`);
/// - `segmented_problem`: the flag operator on `flagged<T>` pairs (detail/segmented.hpp):
///   (s_i, f_i) (+) (s_j, f_j) = (f_j ? s_j : s_i + s_j, f_i | f_j); the heads come from
///   one-byte flags (`byte_flag_heads`) or, for the scans by key, from the keys themselves
///   (`key_run_heads`: no flags in memory).
///
/// The shared-memory rungs (1-3) call `store(i, own_head, has_e, e, incl, final, tile)` for
/// element i, with
/// `incl` the fold of everything up to and including i and `e` the fold of everything before
/// i (absent only for the very first element when there is no prefix). `final == false` is
/// the first pass of the scan-then-add rungs (1-3): tiles other than tile 0 are scanned
/// without their carry, and `fix_up` later folds the carry in. A tile's elements are always a
/// prefix of its threads' slots, so no identity element is needed anywhere.
///
/// The register-blocked and shared-memory tiles (rungs 4-6) hold each element as an
/// `element_type` (the value without its head flag: a segmented tile keeps its heads apart, in a
/// bitmask) and move runs of consecutive elements: `load_run` (values and head bits),
/// `output_as<Exclusive>` (what `store` would write for a final tile, the kind known at compile
/// time) and `store_run`. `make` and `element_of` convert between an element with its head and
/// a `value_type`; `element_op` is the operator on elements.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/contiguous_io.cuh>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/backends/cuda/detail/convert.cuh>
#include <parprim/backends/cuda/warp/shuffle.cuh>
#include <parprim/detail/segmented.hpp>
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief Whether `Op` on `V` gives the same bits however the operands are grouped: integer
/// arithmetic and bitwise operators (wrapping), minimum and maximum on any arithmetic type, and
/// the flag operator over such an operator. Then the look-back may fold with a tree.
template <class Op, class V>
struct exact_grouping : std::false_type {};
template <class V>
struct exact_grouping<plus, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<multiplies, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_and, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_or, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<bit_xor, V> : std::is_integral<V> {};
template <class V>
struct exact_grouping<minimum, V> : std::is_arithmetic<V> {};
template <class V>
struct exact_grouping<maximum, V> : std::is_arithmetic<V> {};
template <class Op, class T>
struct exact_grouping<flag_op<Op>, flagged<T>> : exact_grouping<Op, T> {};
template <class Op, class V>
inline constexpr bool exact_grouping_v = exact_grouping<Op, V>::value;

/// \brief A value that may be absent (no identity element is assumed).
template <class V>
struct maybe {
  V value;
  bool has;
};

/// \brief `a op b` where either may be absent.
template <class V, class Op>
__device__ __forceinline__ maybe<V> combine(const maybe<V>& a, const maybe<V>& b, const Op& op) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {static_cast<V>(op(a.value, b.value)), true};
}

/// \brief The prefix folded in front of element 0: `a op b`, each optional (plain exclusive:
/// a = init, b = carry; plain inclusive: b = carry; segmented: a = (carry, no head)).
template <class V>
struct prefix_operands {
  V a;
  V b;
  bool has_a = false;
  bool has_b = false;

  template <class Op>
  __device__ maybe<V> get(const Op& op) const {
    return combine(maybe<V>{a, has_a}, maybe<V>{b, has_b}, op);
  }
};

/// \brief Scan of `In` into `T`: inclusive stores `incl`, exclusive stores `e` (the prefix
/// holds `init`, so `e` is present for every element; in the scan of tile totals with no
/// prefix element 0 is not stored, nobody reads it). Elements are read as `In` and become
/// values through `Convert`.
template <class In, class T, class Op, class Convert = static_convert<T>>
struct plain_problem {
  using value_type = T;
  using op_type = Op;
  static constexpr bool segmented = false;
  /// Whether values are computed from the elements (then the tile must not stage raw bytes).
  static constexpr bool transforms = !std::is_same_v<Convert, static_convert<T>>;

  const In* in;
  T* out;
  std::size_t n;
  Op op;
  bool exclusive;
  prefix_operands<T> prefix_ops;
  Convert convert = {};

  __device__ maybe<T> prefix() const { return prefix_ops.get(op); }
  __host__ __device__ op_type value_op() const { return op; }
  __device__ T load(std::size_t i) const { return convert(in[i]); }
  __device__ static bool is_head(const T&) { return false; }

  using element_type = T;
  __host__ __device__ Op element_op() const { return op; }
  __device__ static T make(const T& x, bool) { return x; }
  __device__ static const T& element_of(const T& v) { return v; }
  __device__ T load_element(std::size_t i, bool& head) const {
    head = false;
    return load(i);
  }
  /// \brief Elements [i, i + Items); `heads` gets no bits.
  template <unsigned Items>
  __device__ void load_run(std::size_t i, T (&v)[Items], unsigned& heads) const {
    In x[Items];
    load_contiguous<Items>(in + i, x);
#pragma unroll
    for (unsigned k = 0; k < Items; ++k) v[k] = convert(x[k]);
    heads = 0;
  }
  template <bool Exclusive>
  __device__ T output_as(bool, bool, const T& e, const T& incl) const {
    return Exclusive ? e : incl;
  }
  template <unsigned Items>
  __device__ void store_run(std::size_t i, const T (&o)[Items]) const {
    store_contiguous<Items>(out + i, o);
  }
  __device__ void store_one(std::size_t i, const T& o) const {
    out[i] = o;
  }

  __device__ void store(std::size_t i, bool /*own_head*/, bool has_e, const T& e, const T& incl,
                        bool /*final*/, std::size_t /*tile*/) const {
    if (!exclusive)
      out[i] = incl;
    else if (has_e)
      out[i] = e;
  }
  /// \brief Scan-then-add, pass 3: the first element of tile `tile` >= 1 is `tile_first`;
  /// `carry` is the fold of everything before it.
  __device__ std::size_t fix_up_end(std::size_t, std::size_t tile_end, const T&) const {
    return tile_end;
  }
  __device__ void fix_up(std::size_t i, bool tile_head, const T& carry) const {
    out[i] = exclusive && tile_head ? carry : static_cast<T>(op(carry, out[i]));
  }
};

/// \brief Bit k (k < 4) set where byte k of `w` is 1, every byte of `w` being 0 or 1: one
/// multiplication gathers them (b_k << 8k times 2^(24 - 7k) lands on bit 24 + k; the other
/// products fall below bit 24 on distinct bits, or above bit 31).
__device__ __forceinline__ unsigned unit_byte_bits(unsigned w) {
  return (w * 0x01020408u) >> 24;
}

/// \brief Bit k set where byte k is not zero. Four bytes at a time: each byte's bits are ORed
/// into its lowest bit (shifts within the byte), and unit_byte_bits gathers the four low bits.
template <unsigned Items>
__device__ __forceinline__ unsigned nonzero_byte_bits(const std::uint8_t (&f)[Items]) {
  unsigned bits = 0;
  if constexpr (Items % 4 == 0) {
#pragma unroll
    for (unsigned w = 0; w < Items / 4; ++w) {
      unsigned x;
      memcpy(&x, f + 4 * w, 4);
      x |= x >> 4;
      x |= x >> 2;
      x |= x >> 1;
      x &= 0x01010101u;
      bits |= unit_byte_bits(x) << (4 * w);
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < Items; ++k) bits |= (f[k] != 0 ? 1u : 0u) << k;
  }
  return bits;
}

/// \brief Segmented pairs move as their value's words and one word for the head (a pair of an
/// 8-byte value is 16 bytes with its padding: three shuffles instead of four, and no byte of a
/// word to pick out; see shuffle_parts).
template <class T, class Move>
__device__ __forceinline__ flagged<T> shuffle_parts(const flagged<T>& v, const Move& move) {
  return {shuffle_parts(v.value, move), move(v.head ? 1u : 0u) != 0};
}

/// \brief Heads given as one-byte flags (non-zero: element i starts a segment); rung 6 stages
/// them in shared memory beside the values (`staged`).
struct byte_flag_heads {
  static constexpr bool staged = true;
  const std::uint8_t* flags;
  __device__ bool at(std::size_t i) const { return flags[i] != 0; }
  /// \brief Bit k set where element i + k (k < Items) starts a segment.
  template <unsigned Items>
  __device__ unsigned run(std::size_t i) const {
    std::uint8_t f[Items];
    load_contiguous<Items>(flags + i, f);
    return nonzero_byte_bits(f);
  }
  /// \brief Asks L2 for the flags of elements [i, i + count) (whole 16-byte words only).
  __device__ void prefetch_l2(std::size_t i, unsigned count) const {
    if (reinterpret_cast<std::uintptr_t>(flags + i) % 16 == 0 && count % 16 == 0)
      bulk_prefetch_l2(flags + i, count);
  }
};

/// \brief Heads where a key differs (`==`) from the one before it, and at element 0: the scans
/// by key read their keys where other scans read flags, and no flag is written anywhere. Each
/// thread reads its run's keys (and the key before its run) itself.
template <class K>
struct key_run_heads {
  static constexpr bool staged = false;
  using key_type = K;
  const K* keys;
  __device__ bool at(std::size_t i) const { return i == 0 || !(keys[i] == keys[i - 1]); }
  template <unsigned Items>
  __device__ unsigned run(std::size_t i) const {
    return run_first<Items>(i, Items);
  }
  /// \brief Bit k set where element i + k (k < count <= Items) starts a segment. A whole run
  /// of whole 16-byte words is read a word at a time, each word's keys compared as it comes
  /// (fewer registers than the run's keys at once).
  template <unsigned Items>
  __device__ unsigned run_first(std::size_t i, unsigned count) const {
    if (count == 0) return 0;
    const K* p = keys + i;
    K prev = i > 0 ? keys[i - 1] : K{};
    unsigned b = i == 0 ? 1u : 0u;  // element 0 starts the first segment
    const auto compare = [&](const K& key, unsigned k) {
      if ((i > 0 || k > 0) && !(key == prev)) b |= 1u << k;
      prev = key;
    };
    if constexpr (vector_run_v<K, Items>) {
      if (count == Items && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        constexpr unsigned per_word = 16 / sizeof(K);
#pragma unroll
        for (unsigned w = 0; w < Items / per_word; ++w) {
          const uint4 word = reinterpret_cast<const uint4*>(p)[w];
          K key[per_word];
          memcpy(key, &word, sizeof word);
#pragma unroll
          for (unsigned j = 0; j < per_word; ++j) compare(key[j], w * per_word + j);
        }
        return b;
      }
    }
#pragma unroll
    for (unsigned k = 0; k < Items; ++k)
      if (k < count) compare(p[k], k);
    return b;
  }

  /// Whether a warp may read runs of `Items` keys together (`warp_run`): whole 16-byte words.
  template <unsigned Items>
  static constexpr bool warp_reads = vector_run_v<K, Items>;
  /// \brief Whether a warp's keys from element i lie in whole 16-byte words (`warp_run`).
  __device__ bool warp_aligned(std::size_t i) const {
    return reinterpret_cast<std::uintptr_t>(keys + i) % 16 == 0;
  }
  /// \brief Lane l's `run_first<Items>(i + l * Items, Items)`, read by the whole warp together:
  /// lane l reads 16-byte words l, l + 32, ... of the warp's keys (each load instruction one
  /// contiguous 512 bytes, where a lane reading its own run touches 32 runs' lines at once),
  /// packs each word's head bits, and gets its own run's bits from the lanes holding them by
  /// shuffles. Every lane of the warp calls it, with `warp_aligned(i)` and all 32 x Items
  /// elements in the input.
  template <unsigned Items>
  __device__ unsigned warp_run(std::size_t i, unsigned lane) const {
    static_assert(warp_reads<Items>, "key_run_heads::warp_run: runs of whole 16-byte words");
    constexpr unsigned per_word = 16 / sizeof(K);  // keys (head bits) per word
    constexpr unsigned words = Items / per_word;   // words per run
    constexpr unsigned word_bits = (1u << per_word) - 1;
    const uint4* w = reinterpret_cast<const uint4*>(keys + i);
    // the key before word `lane` of the first row: lane 0's is before the warp's keys
    K before = lane == 0 && i > 0 ? keys[i - 1] : K{};
    unsigned packed = 0;  // bits of word lane + 32 j at j * per_word
#pragma unroll
    for (unsigned j = 0; j < words; ++j) {
      const uint4 word = w[lane + warp_threads * j];
      K key[per_word];
      memcpy(key, &word, sizeof word);
      // the last key of the word before: lane - 1's in this row, lane 31's of the row before
      const K up = shuffle_up(key[per_word - 1], 1);
      const K wrap = shuffle_from(key[per_word - 1], warp_threads - 1);
      K prev = lane > 0 ? up : before;
      unsigned bits = 0;
#pragma unroll
      for (unsigned m = 0; m < per_word; ++m) {
        if (!(key[m] == prev)) bits |= 1u << m;
        prev = key[m];
      }
      packed |= bits << (j * per_word);
      before = wrap;
    }
    if (i == 0 && lane == 0) packed |= 1u;  // element 0 starts the first segment, whatever its key
    // lane l's word k is the warp's word q = l * words + k: lane q % 32's row q / 32
    unsigned b = 0;
#pragma unroll
    for (unsigned k = 0; k < words; ++k) {
      const unsigned q = lane * words + k;
      const unsigned v = __shfl_sync(full_warp_mask, packed, q % warp_threads);
      b |= ((v >> (q / warp_threads * per_word)) & word_bits) << (k * per_word);
    }
    return b;
  }
  /// \brief Asks L2 for the keys of elements [i, i + count) (whole 16-byte words only).
  __device__ void prefetch_l2(std::size_t i, unsigned count) const {
    if (reinterpret_cast<std::uintptr_t>(keys + i) % 16 == 0 && (count * sizeof(K)) % 16 == 0)
      bulk_prefetch_l2(keys + i, count * static_cast<unsigned>(sizeof(K)));
  }
};

/// \brief Segmented scan of `In` (values) into `T`, the heads from `Heads` (byte_flag_heads:
/// one-byte head flags; key_run_heads<K>: runs of equal keys).
///
/// In the first pass of rungs 1-3 (`final == false`) a tile's elements before its first head
/// get their in-tile fold only (without `init` for exclusive); `first_head[tile]` records
/// where that run ends, and `fix_up` completes those elements with the carry.
template <class In, class T, class Op, class Heads = byte_flag_heads>
struct segmented_problem {
  using value_type = flagged<T>;
  using op_type = flag_op<Op>;
  using heads_type = Heads;
  static constexpr bool segmented = true;
  static constexpr bool transforms = false;

  const In* in;
  Heads heads;
  T* out;
  std::size_t n;
  Op op;
  bool exclusive;
  T init;
  prefix_operands<flagged<T>> prefix_ops;  // a = (carry, no head) when there is a carry
  std::size_t* first_head;                 // rungs 1-3 only: per tile

  __device__ maybe<flagged<T>> prefix() const { return prefix_ops.get(value_op()); }
  __host__ __device__ op_type value_op() const { return op_type{op}; }
  __device__ flagged<T> load(std::size_t i) const { return {static_cast<T>(in[i]), heads.at(i)}; }
  __device__ static bool is_head(const flagged<T>& v) { return v.head; }

  using element_type = T;
  __host__ __device__ Op element_op() const { return op; }
  __device__ static flagged<T> make(const T& x, bool head) { return {x, head}; }
  __device__ static const T& element_of(const flagged<T>& v) { return v.value; }
  __device__ T load_element(std::size_t i, bool& head) const {
    head = heads.at(i);
    return static_cast<T>(in[i]);
  }
  /// \brief Elements [i, i + Items): the values, and in `bits` bit k for a head at i + k.
  template <unsigned Items>
  __device__ void load_run(std::size_t i, T (&v)[Items], unsigned& bits) const {
    In x[Items];
    load_contiguous<Items>(in + i, x);
    bits = heads.template run<Items>(i);
#pragma unroll
    for (unsigned k = 0; k < Items; ++k) v[k] = static_cast<T>(x[k]);
  }
  template <bool Exclusive>
  __device__ T output_as(bool own_head, bool has_e, const T& e, const T& incl) const {
    if constexpr (!Exclusive)
      return incl;
    else
      return own_head || !has_e ? init : static_cast<T>(op(init, e));
  }
  template <unsigned Items>
  __device__ void store_run(std::size_t i, const T (&o)[Items]) const {
    store_contiguous<Items>(out + i, o);
  }
  __device__ void store_one(std::size_t i, const T& o) const {
    out[i] = o;
  }

  __device__ void store(std::size_t i, bool own_head, bool has_e, const flagged<T>& e,
                        const flagged<T>& incl, bool final, std::size_t tile) const {
    if (!final && own_head && !(has_e && e.head)) first_head[tile] = i;
    if (!exclusive) {
      out[i] = incl.value;
    } else if (own_head || (final && !has_e)) {
      out[i] = init;
    } else if (has_e) {
      // final, or a head came earlier in this tile: complete; else the in-tile fold only
      out[i] = final || e.head ? static_cast<T>(op(init, e.value)) : e.value;
    }
  }
  __device__ std::size_t fix_up_end(std::size_t tile, std::size_t tile_end,
                                    const flagged<T>& tile_total) const {
    return tile_total.head ? first_head[tile] : tile_end;
  }
  __device__ void fix_up(std::size_t i, bool tile_head, const flagged<T>& carry) const {
    if (!exclusive)
      out[i] = static_cast<T>(op(carry.value, out[i]));
    else
      out[i] = tile_head ? static_cast<T>(op(init, carry.value))
                         : static_cast<T>(op(init, static_cast<T>(op(carry.value, out[i]))));
  }
};

/// \brief The problem that scans tile totals (multi-pass rungs): an exclusive scan of
/// `value_type` values with the parent's prefix, into `carries`.
template <class Problem>
using totals_problem_t = plain_problem<typename Problem::value_type, typename Problem::value_type,
                                       typename Problem::op_type>;

}  // namespace parprim::detail::cuda
