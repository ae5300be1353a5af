#pragma once
/// \file
/// \brief The per-segment reductions' driver, shared by segmented_reduce (head flags, offsets)
/// and reduce_by_key. The elements (never the segments) are split evenly over the threads, so
/// one segment of n elements and n segments of one element keep every thread equally busy:
/// 1. (plan, head flags and keys) each thread counts the heads in its block; the counts'
///    prefix says where each block's results go, and their sum is checked against the output
///    before anything is written (where the output has room for n results, a block whose heads
///    are sparse is reduced first, its results kept aside: reduce_segments_counting);
/// 2. each thread folds its block: the elements before its first head (the "lead", which
///    continues a segment begun in an earlier block), every segment that ends inside the
///    block (written at once) and the segment still open at its end (the "tail");
/// 3. the calling thread stitches the blocks in order: each lead is folded into the open tail
///    to its left, and each tail is written once the next one begins. O(threads) operator
///    applications, in sequence order, so non-commutative operators keep it.
/// Long segments are folded with the lane fold of fold.hpp (SIMD for commutative arithmetic);
/// integer sums over blocks dense in heads (head flags, keys), by running sums without a branch
/// on the heads (sum_block_by_prefix; a vector at a time where the processor has AVX2,
/// segment_sums_avx2.hpp); float and double sums by the segmented scans' group tree
/// (sum_block_by_scan);
/// the operators that combine exactly in any order (integer minimum, maximum, bit operators,
/// 4-byte products; float minimum and maximum on ordered keys) a vector at a time where the
/// processor has AVX2 (fold_block_by_vectors, segment_folds_avx2.hpp); the library's other
/// operators on arithmetic values in chains folded in step, without a branch on the heads either
/// (reduce_block_in_chains).

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/count_heads.hpp>
#include <parprim/backends/openmp/detail/first_exception.hpp>
#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx2.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx512.hpp>
#include <parprim/backends/openmp/detail/segmented_grouped_sums.hpp>
#include <parprim/backends/openmp/detail/select_without_branch.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/operators.hpp>
#include <parprim/policy.hpp>

namespace parprim::openmp::detail {

/// \brief Runs `body(blk)` for every block of `team` on a team of that many threads (a thread
/// takes blocks t, t + p, ...: every block runs even if the runtime starts fewer threads). The
/// first exception thrown by `body` is rethrown here.
template <class Body>
void for_each_block(int team, Body body) {
  first_exception error;
#pragma omp parallel num_threads(team)
  {
    const int p = omp_get_num_threads();
    for (int blk = omp_get_thread_num(); blk < team; blk += p) error.run([&] { body(blk); });
  }
  error.rethrow_if_failed();
}

/// \brief How many segments there are and, when `team > 1`, how many start before each of the
/// team's blocks (`before[team]` is the total).
struct segment_plan {
  std::size_t count = 0;
  int team = 1;
  std::vector<std::size_t> before;
  std::size_t segments() const noexcept { return count; }
};

/// \brief Counts the heads of `heads` (detail/heads.hpp) per block of the policy's team.
template <class Heads>
segment_plan plan_segments(const omp_policy& policy, const Heads& heads) {
  const std::size_t n = heads.size();
  segment_plan plan;
  plan.team = team_size(policy, n);
  if (plan.team <= 1) {
    plan.count = count_heads(heads, 0, n);
    return plan;
  }
  const auto team = static_cast<std::size_t>(plan.team);
  std::vector<cache_padded<std::size_t>> counts(team);
  for_each_block(plan.team, [&](int blk) {
    const block bl = block_of(n, plan.team, blk);
    counts[static_cast<std::size_t>(blk)].value = count_heads(heads, bl.begin, bl.end);
  });
  plan.before.assign(team + 1, 0);
  for (std::size_t t = 0; t < team; ++t) plan.before[t + 1] = plan.before[t] + counts[t].value;
  plan.count = plan.before[team];
  return plan;
}

/// \brief The last head in [first, e), `first` being one: searched element by element from
/// e - 1 (short where heads are dense, which is where its callers run).
template <class Heads>
std::size_t last_head(const Heads& heads, std::size_t first, std::size_t e) {
  std::size_t last = e - 1;
  while (last > first && !heads.inner(last)) --last;
  return last;
}

/// \brief What a block leaves for the stitching.
template <class T>
struct block_ends {
  std::optional<T> lead;         ///< fold of the elements before the block's first head
  std::optional<T> tail;         ///< the block's last segment, which may go on past its end
  std::size_t tail_segment = 0;  ///< that segment's index
  std::size_t tail_head = 0;     ///< and its first element
};

/// \brief A segment is folded element by element (as fast as it gets for short segments) until
/// this many elements have gone by without a head; then its end is searched for
/// (`heads.next`, 64 bytes of flags or keys a test) and the rest folded with the lane fold.
inline constexpr std::size_t short_segment = 16;

/// \brief Folds block [b, e) of `in`, segments given by `heads`: the lead, each segment that
/// ends in the block as `emit(s, head, value)` (s counting from `s`), and the tail. Each
/// segment's fold starts from `*init`, or from its first element when `init` is null.
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> reduce_block(const Input& in, const Heads& heads, std::size_t b, std::size_t e,
                           const T* init, const Op& op, std::size_t s, Emit& emit) {
  block_ends<T> r;
  std::size_t i = heads.next(b, e);
  if (i > b) r.lead = fold_nonempty<T>(in, b, i, op);
  if (i == e) return r;
  const auto start = [&](std::size_t k) {
    return init ? static_cast<T>(op(*init, static_cast<T>(in[k]))) : static_cast<T>(in[k]);
  };
  std::size_t head = i;
  T acc = start(i);
  std::size_t run = 0;  // elements since the head
  for (++i; i < e; ++i) {
    if (heads.inner(i)) {
      emit(s++, head, acc);
      if constexpr (requires { emit.full; })
        if (emit.full) return r;  // a block_results that took no more: the caller redoes it
      head = i;
      acc = start(i);
      run = 0;
      continue;
    }
    acc = static_cast<T>(op(acc, static_cast<T>(in[i])));
    if (++run == short_segment) {
      const std::size_t h = heads.next(i + 1, e);
      acc = fold(std::move(acc), in, i + 1, h - i - 1, op);
      i = h - 1;
      run = 0;
    }
  }
  r.tail = std::move(acc);
  r.tail_segment = s;
  r.tail_head = head;
  return r;
}

/// \brief Step 3 of the file comment, on the calling thread.
template <class T, class Op, class Emit>
void stitch(const std::vector<cache_padded<block_ends<T>>>& ends, const Op& op, Emit& emit) {
  std::optional<T> open;
  std::size_t open_segment = 0;
  std::size_t open_head = 0;
  for (const auto& slot : ends) {
    const block_ends<T>& r = slot.value;
    if (r.lead && open) open = static_cast<T>(op(*open, *r.lead));
    if (r.tail) {
      if (open) emit(open_segment, open_head, *open);
      open = r.tail;
      open_segment = r.tail_segment;
      open_head = r.tail_head;
    }
  }
  if (open) emit(open_segment, open_head, *open);
}

/// \brief Whether integer sums of segments may be taken as differences of running sums
/// (sum_block_by_prefix): `plus` on integer results, which wrap in the unsigned type as the lane
/// fold's do.
template <class Op, class In, class T>
inline constexpr bool sums_by_prefix_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_arithmetic_v<In> &&
    (std::is_same_v<Op, plus> || std::is_same_v<Op, exact_plus>);

/// \brief Whether a block of `length` elements with `heads` heads is summed by prefix: between
/// one head in 64 elements (sparser, reduce_block's lane fold is faster) and three in four
/// (denser, its branch on each head is predictable and it makes one pass, not two). In between
/// a branch on each head mispredicts every few elements: on one core of the 2-core development
/// machine, 2^24 int32 elements, the branch-free loop took 7.2 / 7.8 / 10.2 ms at one head in
/// 32 / 10 / 3 against 12.5 / 18.9 / 45.6 for an element-by-element loop with a branch.
/// With the AVX2 loop (`vectorized`, segment_sums_avx2.hpp) dense blocks take it too: it makes
/// no second pass there (16-core host, 2^28 int32, one head per element: 33-36 ms at 16
/// threads against 48-50 for the branchy fold).
inline bool dense_enough_for_prefix(std::size_t heads, std::size_t length, bool vectorized) {
  return heads * 64 >= length && (vectorized || !denser_than_three_in_four(heads, length));
}

/// \brief The `emit` of reduce_segments that only stores each result: `out[s] = value`.
template <class T>
struct store_results {
  T* out;
  void operator()(std::size_t s, std::size_t, const T& value) const { out[s] = value; }
  /// \brief What sum_block_by_prefix stores beside each result: nothing.
  struct key_cursor {
    void step(std::size_t, std::size_t, bool) {}
  };
  key_cursor keys_from(std::size_t, std::size_t) const { return {}; }
  /// \brief The keys the AVX2 loop (segment_sums_avx2.hpp) stores beside each result: none.
  using key_type = void;
  std::nullptr_t key_slots(std::size_t) const { return nullptr; }
};

/// \brief The `emit` of reduce_by_key: each run's key (read at its head) and its result.
template <class Key, class KeyOut, class T>
struct store_keyed_results {
  const Key* keys;
  KeyOut* keys_out;
  T* out;
  void operator()(std::size_t s, std::size_t head, const T& value) const {
    keys_out[s] = keys[head];
    out[s] = value;
  }
  /// \brief What sum_block_by_prefix stores beside each result: its run's key, the one at the
  /// head (keys equal by `==` may differ, as -0.0 and 0.0), carried from head to head without
  /// a branch and stored at every element of the run.
  struct key_cursor {
    const Key* keys;
    KeyOut* keys_out;
    Key key;
    void step(std::size_t s, std::size_t i, bool head) {
      key = select_without_branch(head, keys[i], key);
      keys_out[s] = key;
    }
  };
  /// \brief The cursor of the run with head `head`, its key stored at `keys_out[s]`.
  key_cursor keys_from(std::size_t s, std::size_t head) const {
    keys_out[s] = keys[head];
    return {keys, keys_out, keys[head]};
  }
  /// \brief The keys the AVX2 loop (segment_sums_avx2.hpp) stores beside each result, from
  /// segment s on.
  using key_type = Key;
  KeyOut* key_slots(std::size_t s) const { return keys_out + s; }
};

template <class Emit>
inline constexpr bool only_stores_v = false;
template <class T>
inline constexpr bool only_stores_v<store_results<T>> = true;
template <class Key, class KeyOut, class T>
inline constexpr bool only_stores_v<store_keyed_results<Key, KeyOut, T>> = true;

/// \brief The raw heads the AVX2 loop reads: one-byte flags (`flag_bytes`) or keys
/// (`heads_keys`), null for the other kind.
template <class Flag>
const unsigned char* flag_bytes(const parprim::detail::flag_heads<Flag>& heads) {
  return heads.data();
}
template <class Key>
std::nullptr_t flag_bytes(const parprim::detail::key_heads<Key>&) {
  return nullptr;
}
template <class Flag>
std::nullptr_t heads_keys(const parprim::detail::flag_heads<Flag>&) {
  return nullptr;
}
template <class Key>
const Key* heads_keys(const parprim::detail::key_heads<Key>& heads) {
  return heads.data();
}

/// \brief Whether sum_block_by_prefix takes the AVX2 loop (segment_sums_avx2.hpp): elements
/// in memory, integers of the sum type's size (so each is its own bits in the unsigned sum),
/// heads from flags with results alone, or from keys with the keys stored beside the results.
template <class U, class Input, class Heads, class Emit>
constexpr bool sums_tails_avx2_ok() {
  using In = std::remove_cv_t<typename Input::value_type>;
  using Key = typename Emit::key_type;
  using KeyOut = std::remove_pointer_t<decltype(std::declval<const Emit&>().key_slots(0))>;
  if constexpr (!requires(const Input& x) { x.data(); } || !std::is_integral_v<In> ||
                std::is_same_v<In, bool> || sizeof(In) != sizeof(U))
    return false;
  else if constexpr (is_flag_heads_v<Heads>)
    return std::is_void_v<Key> && sums_tails_avx2_v<U, void>;
  else if constexpr (!std::is_void_v<Key>)
    return std::is_same_v<Heads, parprim::detail::key_heads<Key>> &&
           sums_tails_avx2_v<U, Key, KeyOut>;
  else
    return false;
}

/// \brief reduce_block for integer sums (sums_by_prefix_v), the block's segments written to
/// `emit.out[s], emit.out[s + 1], ...` without a branch on the heads: every element adds itself
/// to a running sum (unsigned, wrapping) and stores it in its segment's slot (by key, the run's
/// key too: emit.keys_from), so each slot ends with the running sum at its segment's last
/// element; a second pass over the block's segments turns the slots into `init` plus the
/// difference of consecutive ones. The open segment's slot holds a partial sum until the
/// stitching writes it. Where the AVX2 loop applies (sums_tails_avx2_ok), it takes the block
/// while at least a vector's worth of heads remain (storing finished results itself in blocks
/// of more than three heads in four), and the portable loop the rest. `read_ahead` > 0: in
/// blocks of at most three heads in four the AVX2 loop asks the cache for the elements that
/// many further on (segments_in_rounds.hpp, segment_read_ahead).
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> sum_block_by_prefix(const Input& in, const Heads& heads, std::size_t b, std::size_t e,
                                  std::size_t heads_in_block, bool vectorized, const T& init,
                                  const Op& op, std::size_t s, const Emit& emit,
                                  std::size_t read_ahead) {
  using U = std::make_unsigned_t<T>;
  block_ends<T> r;
  const std::size_t first = heads.next(b, e);
  if (first > b) r.lead = fold_nonempty<T>(in, b, first, op);
  if (first == e) return r;
  U* slot = reinterpret_cast<U*>(emit.out + s);  // (a signed type's unsigned twin may alias it)
  U running = static_cast<U>(static_cast<T>(in[first]));
  slot[0] = running;
  auto keys = emit.keys_from(s, first);
  const auto base = static_cast<U>(init);
  std::size_t i = first + 1;
  std::size_t j = 0;         // the slot of the segment element i belongs to
  std::size_t finished = 0;  // slots [0, finished) hold their results (the AVX2 loop's)
  U closed = 0;              // the running sum at the end of segment finished - 1
#if PARPRIM_HOST_AVX2
  if constexpr (sums_tails_avx2_ok<U, Input, Heads, Emit>()) {
    if (vectorized) {
      const auto loop = [&]<bool Differences>() {
        return sum_tails_vectors<Differences, U, typename Emit::key_type>(
            reinterpret_cast<const U*>(in.data()), flag_bytes(heads), heads_keys(heads),
            emit.key_slots(s), slot, e, base, {i, running, closed, j, heads_in_block - 1},
            Differences ? 0 : read_ahead, in.size());
      };
      const bool dense = denser_than_three_in_four(heads_in_block, e - b);
      const tails_cursor<U> c =
          dense ? loop.template operator()<true>() : loop.template operator()<false>();
      i = c.i;
      running = c.running;
      j = c.j;
      if (dense) finished = c.j, closed = c.closed;
      slot[j] = running;  // the open segment's running sum, as the loop below keeps it
      keys = emit.keys_from(s + j, i - 1);  // (integer keys: the same bits as the run's head)
    }
  }
#else
  (void)heads_in_block, (void)vectorized, (void)read_ahead;
#endif
  for (; i < e; ++i) {
    const bool head = heads.inner(i);
    j += head ? 1 : 0;
    running = static_cast<U>(running + static_cast<U>(static_cast<T>(in[i])));
    slot[j] = running;
    keys.step(s + j, i, head);
  }
  // slots [finished, j) hold the running sums at their segments' ends: their differences
  const U before = j > finished ? slot[j - 1] : closed;  // the end before the open segment
  for (std::size_t q = j; q-- > finished + 1;)           // backwards, in place: vectorizes
    slot[q] = static_cast<U>(base + static_cast<U>(slot[q] - slot[q - 1]));
  if (j > finished) slot[finished] = static_cast<U>(base + static_cast<U>(slot[finished] - closed));
  const std::size_t last = last_head(heads, first, e);
  r.tail = static_cast<T>(static_cast<U>(base + static_cast<U>(running - before)));
  r.tail_segment = s + j;
  r.tail_head = last;
  return r;
}

/// \brief The heads as segmented_grouped_sum_scan reads them: a span of the one-byte flags, or
/// the keys' view itself.
template <class Flag>
std::span<const unsigned char> grouped_heads(const parprim::detail::flag_heads<Flag>& heads) {
  return {heads.data(), heads.size()};
}
template <class Key>
const parprim::detail::key_heads<Key>& grouped_heads(const parprim::detail::key_heads<Key>& heads) {
  return heads;
}

/// \brief Whether sum_block_by_scan takes a block: `plus` of float or double values read as
/// they are, results only stored, heads from one-byte flags or from integer keys of the values'
/// size (segmented_grouped_sums_ok). Double values take it on every processor, so their bits do
/// not depend on the processor's vectors; where it has AVX-512 the tree takes two groups of
/// four a vector and is 1.5-1.9x faster than the chains in sequence order (16-core host, 2^28,
/// 16 threads, heads one in ten: 70-90 -> 45-49 ms, by int64 key 123-137 -> 63-90); the AVX2
/// form alone is as fast as the chains there (72-80 ms, by key 90-116), slower with flags and
/// faster by key on one thread of the 2-core development machine (2^24: 28.0-28.6 -> 35.5-36.0
/// ms; by key 59.0-61.6 -> 51.2-52.0).
template <class T, class Input, class Heads, class Op, class Emit>
constexpr bool sums_by_scan_ok() {
  if constexpr (!only_stores_v<Emit> || !(std::is_same_v<T, float> || std::is_same_v<T, double>))
    return false;
  else
    return segmented_grouped_sums_ok<
        T, Input, std::remove_cvref_t<decltype(grouped_heads(std::declval<const Heads&>()))>, Op>();
}

/// \brief Whether sum_block_by_scan's AVX2 form packs the segments' ends (segment_ends_store):
/// results alone, or with keys stored as the same type as they are read.
template <class Emit>
inline constexpr bool packs_segment_ends_v = false;
template <class T>
inline constexpr bool packs_segment_ends_v<store_results<T>> = true;
template <class Key, class KeyOut, class T>
inline constexpr bool packs_segment_ends_v<store_keyed_results<Key, KeyOut, T>> =
    std::is_same_v<std::remove_cv_t<Key>, std::remove_cv_t<KeyOut>>;

/// \brief Elements per chunk of sum_block_by_scan: its running sums fit in a core's L1 (8 or 16
/// KiB).
inline constexpr std::size_t scan_sums_chunk = 2048;

/// \brief reduce_block for `plus` of float or double values (sums_by_scan_ok), the block's
/// segments written to `emit.out[s], emit.out[s + 1], ...` without a branch on the heads. The
/// block's elements after its first head are scanned by the segmented scans' group tree (an
/// addition and a select on the running sum's chain a group of 32 bytes, not an addition and a
/// branch an element). The vector form (segmented_grouped_sums.hpp, sum_segment_ends_vectors)
/// keeps, of each group's sums, only the sums before its heads, packed and stored as the
/// finished results of the segments that end there (`init` added; by key, the heads' keys beside
/// them). The rest of the block (the last partial group, or all of it in the portable form) is
/// scanned in chunks of scan_sums_chunk elements into a buffer in L1, from which every element
/// stores `init` plus its running sum in its segment's slot (by key, the run's key too), so each
/// slot ends with its segment's result. Both forms take the same tree (the same bits). Each
/// segment's sum is the group tree's, so the last bits differ from a fold in sequence order,
/// within the same bound (its tree is no deeper), and depend only on where the block's first
/// head lies. 2-core
/// development machine, 2^24 float32, heads one in ten: 34.6-42.4 -> 18.0-26.2 ms on one thread,
/// 18.0-25.3 -> 9.0-11.7 on two; 16-core host, 2^28, 16 threads: 52.9-62.5 -> 40.1-48.5.
/// `read_ahead` > 0: the vector forms ask the cache for the elements (and heads) that many
/// further on, as sum_block_by_prefix's AVX2 loop does.
template <class T, class Input, class Heads, class Emit>
block_ends<T> sum_block_by_scan(const Input& in, const Heads& heads, std::size_t b, std::size_t e,
                                const T* init, std::size_t s, const Emit& emit,
                                std::size_t read_ahead = 0) {
  block_ends<T> r;
  const std::size_t first = heads.next(b, e);
  if (first > b) r.lead = fold_nonempty<T>(in, b, first, plus{});
  if (first == e) return r;
  const T* x = in.data();
  T* slot = emit.out + s;
  // a segment's result from its sum: `init` added, or the sum itself (a sum of -0 stays -0)
  const auto result = [init](T sum) { return init != nullptr ? static_cast<T>(*init + sum) : sum; };
  T acc = x[first];
  slot[0] = result(acc);
  auto keys = emit.keys_from(s, first);
  const auto& flags = grouped_heads(heads);
  const bool avx2 = sums_tails_avx2_usable();
  alignas(32) T sums[scan_sums_chunk];
  std::size_t j = 0;  // the slot of the segment element i belongs to
  // the running sums of [c, end) into their slots, `init` added to each (With_init) or not (a
  // sum of -0 stays -0)
  const auto store_chunk = [&]<bool With_init>(std::size_t c, std::size_t end) {
    for (std::size_t i = c; i < end; ++i) {
      const bool head = heads.inner(i);
      j += head ? 1 : 0;
      slot[j] = With_init ? static_cast<T>(*init + sums[i - c]) : sums[i - c];
      keys.step(s + j, i, head);
    }
  };
  std::size_t c = first + 1;
  static_cast<void>(read_ahead);  // (the vector forms')
#if PARPRIM_HOST_AVX2
  if constexpr (packs_segment_ends_v<Emit>) {
    if (avx2) {  // the whole groups: only the segments' ends stored (segment_ends_store)
      const std::size_t groups = (e - c) / group_elements<T>;
      using Key = typename Emit::key_type;
      using Flags = std::remove_cvref_t<decltype(flags)>;
      acc = init != nullptr
                ? sum_segment_ends_vectors<true, T, Key, Flags>(x, slot, emit.key_slots(s), c,
                                                                groups, flags, acc, *init, j,
                                                                read_ahead, in.size())
                : sum_segment_ends_vectors<false, T, Key, Flags>(x, slot, emit.key_slots(s), c,
                                                                 groups, flags, acc, T{}, j,
                                                                 read_ahead, in.size());
      c += groups * group_elements<T>;
      // the open segment's running sum in its slot, as the loop below keeps it (a head at c
      // closes it)
      slot[j] = result(acc);
      if (c < e) keys = emit.keys_from(s + j, c - 1);  // (integer keys: the run head's bits)
    }
  }
#endif
  for (; c < e;) {
    const std::size_t end = e - c < scan_sums_chunk ? e : c + scan_sums_chunk;
    acc = segmented_grouped_sum_scan(x, sums, c, end, false, acc, flags, avx2);
    if (init != nullptr)
      store_chunk.template operator()<true>(c, end);
    else
      store_chunk.template operator()<false>(c, end);
    c = end;
  }
  const std::size_t last = last_head(heads, first, e);
  r.tail = result(acc);
  r.tail_segment = s + j;
  r.tail_head = last;
  return r;
}

/// \brief Whether reduce_block_in_chains takes a block: head flags (results only stored) or
/// integer keys (each run's key and result stored: equal integers have the same bits, so any
/// element of a run may give its key), values of an arithmetic type that select_without_branch
/// selects on their bits, and an operator of the library other than exact_plus (plus on
/// integers takes sum_block_by_prefix first, on float and double values sum_block_by_scan where
/// their heads allow it). Not user operators: the chains apply the operator at every element, a
/// head's element to the segment before it too, and keep one of two results, so they would run
/// user code on operands the sequence never combines. Not the floating-point minimum and
/// maximum, whose order of NaNs and zeros takes a dozen instructions an element: the chains,
/// bound by instructions, were slower there (float32 minimum, 2^24, one thread of the 2-core
/// development machine: 51-95 ms before, 91-101 in chains).
template <class T, class Heads, class Op, class Emit>
constexpr bool folds_in_chains_ok() {
  using O = std::remove_cvref_t<Op>;
  constexpr bool integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  constexpr bool op_ok = std::is_same_v<O, plus> || std::is_same_v<O, multiplies> ||
                         (integer && (std::is_same_v<O, minimum> || std::is_same_v<O, maximum> ||
                                      std::is_same_v<O, bit_and> || std::is_same_v<O, bit_or> ||
                                      std::is_same_v<O, bit_xor>));
  if constexpr (!selects_on_bits_v<T> || !(integer || std::is_floating_point_v<T>) || !op_ok)
    return false;
  else if constexpr (is_flag_heads_v<Heads>)
    return std::is_same_v<Emit, store_results<T>>;
  else if constexpr (only_stores_v<Emit>)
    return std::is_integral_v<std::remove_cv_t<typename Emit::key_type>> &&
           std::is_same_v<Heads, parprim::detail::key_heads<typename Emit::key_type>>;
  else
    return false;
}

/// \brief Elements each chain of reduce_block_in_chains takes in a chunk: the chains' elements
/// lie this far apart, so one index addresses them all.
inline constexpr std::size_t chain_elements = 512;
/// \brief The chains of a chunk of reduce_block_in_chains.
inline constexpr std::size_t chains = 4;
/// \brief Whether reduce_block_in_chains asks the cache for the next chunk while it folds one
/// (its four runs are four short streams, which the hardware prefetcher takes up late); a
/// compile-time knob for A/B runs (`PARPRIM_OMP_CHAINS_PREFETCH`).
#if defined(PARPRIM_OMP_CHAINS_PREFETCH)
inline constexpr bool chains_prefetch = PARPRIM_OMP_CHAINS_PREFETCH != 0;
#else
inline constexpr bool chains_prefetch = true;
#endif

/// \brief reduce_block for an operator of the library on arithmetic values where heads are
/// neither sparse nor dense (folds_in_chains_ok; one head in 24 elements to three in four), the
/// block's segments written to `emit.out[s], ...` without a branch on the heads. Each element
/// stores its segment's running value before it in the segment's slot, then starts a new
/// running value at a head (`init op x`, or `x`) or extends it (`acc op x`), one operator
/// application and a select either way, so each slot ends with its segment's result. One such
/// chain is bound by the latency of the operator and the select, so the block is taken in
/// chunks of `chains` runs of `chain_elements` elements folded in step (their chains overlap;
/// one index addresses them all). A run other than the first starts inside a segment: until
/// its first head it folds garbage into the slot of the segment the run before it ends in.
/// After the chunk that slot is written again, in order: the run before's last value with the
/// elements up to the head folded on, one by one. So each segment is folded in sequence order
/// from its head, as the sequential loop folds it (floating-point products too, where
/// reduce_block's lane fold of a long segment differs); only a segment that crosses blocks is
/// grouped by the stitching. By key, the chunk's heads are first compared into a byte each, and
/// each run's key goes to its slot in a loop of its own (in the chains' loop it left them short
/// of registers: int32 maximum by key, one run in ten, 50 -> 57 ms). The open segment's slot
/// holds a partial result until the stitching writes it.
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> reduce_block_in_chains(const Input& in, const Heads& heads, std::size_t b,
                                     std::size_t e, const T* init, const Op& op, std::size_t s,
                                     const Emit& emit) {
  block_ends<T> r;
  const std::size_t first = heads.next(b, e);
  if (first > b) r.lead = fold_nonempty<T>(in, b, first, op);
  if (first == e) return r;
  T* const out = emit.out;
  constexpr bool keyed = !is_flag_heads_v<Heads>;
  struct chain {
    T acc;           // the running value of the segment in slot `at`
    std::size_t at;  // that slot
  };
  const auto fold = [&]<bool With_init>() {
    const T base = With_init ? *init : T{};  // (a copy: the stores to `out` may alias *init)
    // element i of `c`'s run: the segment's value so far stored in its slot, then the value
    // after i: a new segment's start (`init op x`, or `x`) or the old one extended (`acc op x`)
    // (By key, `Key_too`: the run's key stored in its slot too.)
    const auto step = [&]<bool Key_too>(chain& c, std::size_t i, bool head) {
      const T x = static_cast<T>(in[i]);
      out[c.at] = c.acc;
      c.at += head ? 1 : 0;
      if constexpr (Key_too) emit.keys_out[c.at] = emit.keys[i];
      if constexpr (With_init)
        c.acc = parprim::detail::apply_wrapping<T>(op, select_without_branch(head, base, c.acc), x);
      else
        c.acc = select_without_branch(head, x, parprim::detail::apply_wrapping<T>(op, c.acc, x));
    };
    chain open{With_init ? parprim::detail::apply_wrapping<T>(op, base, static_cast<T>(in[first]))
                         : static_cast<T>(in[first]),
               s};
    if constexpr (keyed) emit.keys_out[s] = emit.keys[first];
    std::size_t c = first + 1;
    constexpr std::size_t chunk = chains * chain_elements;
    alignas(64) unsigned char run_heads[keyed ? chunk : 1];  // keys: the chunk's heads
    for (; e - c >= chunk; c += chunk) {
      // the chunk's heads, a byte an element: the flags themselves, or the keys compared
      const unsigned char* h;
      if constexpr (keyed) {
        const auto* keys = heads_keys(heads);
        for (std::size_t j = 0; j < chunk; ++j)  // (vectorizes)
          run_heads[j] = keys[c + j] == keys[c + j - 1] ? 0 : 1;
        h = run_heads;
      } else {
        h = flag_bytes(heads) + c;
      }
      chain run[chains];
      run[0] = open;
      std::size_t slot = open.at;
      if constexpr (keyed) {  // each run's key in its slot (any of its elements has its bits)
        std::size_t at = slot;
        for (std::size_t j = 0; j < chunk; ++j) {
          at += run_heads[j];
          emit.keys_out[at] = emit.keys[c + j];
        }
      }
      for (std::size_t q = 1; q < chains; ++q) {  // run q from the slot its first element is in
        slot += parprim::detail::count_set_bytes(h, (q - 1) * chain_elements, q * chain_elements);
        run[q] = {static_cast<T>(in[c + q * chain_elements]), slot};
      }
      // (the next chunk's lines asked for a line of each run's values every `line` steps, its
      // heads' lines every 64: only where the next chunk lies wholly in the block)
      constexpr std::size_t line = 64 / sizeof(T);  // (values of at most 8 bytes)
      const bool ahead = chains_prefetch && e - c >= 2 * chunk;
      for (std::size_t k0 = 0; k0 < chain_elements; k0 += line) {
        if constexpr (requires { in.data(); }) {
          if (ahead)
            for (std::size_t q = 0; q < chains; ++q) {
              const std::size_t j = c + chunk + q * chain_elements + k0;
              __builtin_prefetch(in.data() + j);
              if constexpr (keyed)
                __builtin_prefetch(heads_keys(heads) + j);
              else if (k0 % 64 == 0)
                __builtin_prefetch(flag_bytes(heads) + j);
            }
        }
        for (std::size_t k = k0; k < k0 + line; ++k)
          for (std::size_t q = 0; q < chains; ++q) {
            const std::size_t j = q * chain_elements + k;
            step.template operator()<false>(run[q], c + j, h[j] != 0);
          }
      }
      // the runs' first segments: each run's elements up to its first head folded on the value
      // before them; a run without a head leaves the segment open
      chain last = run[0];
      for (std::size_t q = 1; q < chains; ++q) {
        const std::size_t from = q * chain_elements, to = from + chain_elements;
        std::size_t j = from;
        for (; j < to && h[j] == 0; ++j)
          last.acc = parprim::detail::apply_wrapping<T>(op, last.acc, static_cast<T>(in[c + j]));
        if (j == to) continue;
        out[last.at] = last.acc;
        last = run[q];
      }
      open = last;
    }
    for (; c < e; ++c) step.template operator()<keyed>(open, c, heads.inner(c));
    return open;
  };
  const chain open =
      init != nullptr ? fold.template operator()<true>() : fold.template operator()<false>();
  const std::size_t last = last_head(heads, first, e);
  r.tail = open.acc;
  r.tail_segment = open.at;
  r.tail_head = last;
  return r;
}

/// \brief Whether fold_block_by_vectors takes a block: the AVX2 fold's operators and values
/// (segment_fold_lanes), the input the values' own type in memory, heads from flags with results
/// alone, or from integer keys of the values' size stored as they are read beside the results.
template <class T, class Input, class Heads, class Op, class Emit>
constexpr bool folds_by_vectors_ok() {
  using In = std::remove_cv_t<typename Input::value_type>;
  if constexpr (!PARPRIM_HOST_AVX2 || !segment_fold_lanes<T, std::remove_cvref_t<Op>>::ok ||
                !std::is_same_v<In, T> || !requires(const Input& x) { x.data(); } ||
                !only_stores_v<Emit>) {
    return false;
  } else if constexpr (is_flag_heads_v<Heads>) {
    return std::is_same_v<Emit, store_results<T>>;
  } else {
    using Key = typename Emit::key_type;
    using KeyOut = std::remove_pointer_t<decltype(std::declval<const Emit&>().key_slots(0))>;
    if constexpr (std::is_void_v<Key>)
      return false;
    else
      return std::is_same_v<Heads, parprim::detail::key_heads<Key>> && std::is_integral_v<Key> &&
             !std::is_same_v<Key, bool> && sizeof(Key) == sizeof(T) &&
             std::is_same_v<std::remove_cv_t<Key>, KeyOut>;
  }
}

/// \brief Blocks of T under Op with at least one head in this many elements take
/// fold_block_by_vectors. Sparser, the lane fold reads integers at memory speed (2-core
/// development machine, one thread, 2^24: int32 `maximum` at one head in 100 15.4-16.3 ms
/// against 18.8-19.6 by vectors), and 8-byte integers, four to a vector, gain only from one head
/// in about 16 on (one in 40: int64 `maximum` 27.0-28.2 ms in chains against 30.7-31.2; one in
/// ten 35.0-35.7 against 32.1-33.0); float `minimum` and `maximum` take vectors from one head in
/// 512 (measured while their lane fold went element by element: one in 300, float32 `minimum`
/// 28.8-30.5 ms against 20.9-22.0; one in 2000: 14.6-15.5 against 20.3-21.5; since the whole
/// ranges fold by vectors too (fold_vectors.hpp), one in 1000 takes 10.3-10.6 ms by reduce_block
/// and one in 100 13.9-14.3 by vectors, AVX-512). A compile-time
/// knob for A/B runs, `PARPRIM_OMP_FOLD_VECTORS_FROM` (0: never), sets one value for all.
template <class T, class Op>
constexpr std::size_t vectors_from() {
#if defined(PARPRIM_OMP_FOLD_VECTORS_FROM)
  return PARPRIM_OMP_FOLD_VECTORS_FROM;
#else
  if constexpr (segment_fold_lanes<T, Op>::ordered_keys)
    return 512;
  else
    return sizeof(T) == 8 ? 16 : 64;
#endif
}

/// \brief reduce_block for the operators and values of the AVX2 fold (folds_by_vectors_ok,
/// segment_folds_avx2.hpp; only where sums_tails_avx2_usable(); its AVX-512 form,
/// segment_folds_avx512.hpp, where the processor has that), the block's segments written to
/// `emit.out[s], ...`: the vector loop takes the block while at least a vector's worth of heads
/// remain, a loop element by element the rest. The operators combine exactly in any order, so each
/// result is the sequence-order fold's. The open segment's slot holds a partial result until the
/// stitching writes it. `read_ahead` > 0: the vector loop asks the cache for the elements (and
/// heads) that many further on, as sum_block_by_prefix's does.
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> fold_block_by_vectors(const Input& in, const Heads& heads, std::size_t b,
                                    std::size_t e, std::size_t heads_in_block, const T* init,
                                    const Op& op, std::size_t s, const Emit& emit,
                                    std::size_t read_ahead = 0) {
  using O = std::remove_cvref_t<Op>;
  using lanes = segment_fold_lanes<T, O>;
  block_ends<T> r;
  const std::size_t first = heads.next(b, e);
  if (first > b) r.lead = fold_nonempty<T>(in, b, first, op);
  if (first == e) return r;
  T* const slot = emit.out + s;
  const T base = init != nullptr ? *init : T{};  // (a copy: the stores may alias *init)
  const auto start = [&](const T& x) {
    return init != nullptr ? parprim::detail::apply_wrapping<T>(op, base, x) : x;
  };
  T open = static_cast<T>(in[first]);  // (the AVX2 loop carries the open value without init)
  auto keys = emit.keys_from(s, first);
  std::size_t i = first + 1;
  std::size_t j = 0;  // the slot of the segment element i belongs to
#if PARPRIM_HOST_AVX2
  {
    using Key = typename Emit::key_type;
    const fold_cursor<typename lanes::lane> from{i, lanes::of(open), j, heads_in_block - 1};
    const auto c = init != nullptr
                       ? fold_tails_vectors<true, T, O, Key>(
                             in.data(), flag_bytes(heads), heads_keys(heads), emit.key_slots(s),
                             slot, e, base, from, read_ahead, in.size())
                       : fold_tails_vectors<false, T, O, Key>(
                             in.data(), flag_bytes(heads), heads_keys(heads), emit.key_slots(s),
                             slot, e, base, from, read_ahead, in.size());
    i = c.i;
    j = c.j;
    open = lanes::value(c.open);
    keys = emit.keys_from(s + j, i - 1);  // (integer keys: the same bits as the run's head)
  }
#else
  (void)heads_in_block, (void)read_ahead;
#endif
  open = start(open);
  for (; i < e; ++i) {
    const bool head = heads.inner(i);
    const T x = static_cast<T>(in[i]);
    if (head) {
      slot[j++] = open;
      open = start(x);
    } else {
      open = parprim::detail::apply_wrapping<T>(op, open, x);
    }
    keys.step(s + j, i, head);
  }
  r.tail = open;
  r.tail_segment = s + j;
  r.tail_head = last_head(heads, first, e);
  return r;
}

/// \brief Block [b, e) of `in` with `count` heads, its segments numbered from `s`: by
/// sum_block_by_prefix where the segments are integer sums dense enough for it (see
/// reduce_segments), by sum_block_by_scan where they are float or double sums with between one
/// head in 64 elements and three in four (sparser, reduce_block's lane fold is as fast; denser, its
/// branch on each head is predicted: every element a head, 2^24 float32 on one thread of the 2-core
/// development machine, 19.5 ms against 27.4 for a first form without the packed stores), by
/// fold_block_by_vectors where folds_by_vectors_ok holds, the processor has AVX2 and the heads
/// are at least one in vectors_from (64 elements for 4-byte integers, 16 for 8-byte ones, 512
/// for float minimum and maximum),
/// by reduce_block_in_chains where folds_in_chains_ok holds and the heads are between one in 24
/// (sparser, reduce_block's lane fold is as fast: int32 maximum at one head in 64 on one
/// thread of the 2-core development machine, 18-21 ms against 24 in chains) and three in four,
/// else by reduce_block.
/// `read_ahead`: as sum_block_by_prefix's.
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> fold_counted_block(const Input& in, const Heads& heads, std::size_t b, std::size_t e,
                                 std::size_t s, std::size_t count, const T* init, const Op& op,
                                 Emit& emit, std::size_t read_ahead = 0) {
  if constexpr (only_stores_v<Emit> &&
                sums_by_prefix_v<std::remove_cvref_t<Op>, typename Input::value_type, T>) {
    const bool vectorized = sums_tails_avx2_ok<std::make_unsigned_t<T>, Input, Heads, Emit>() &&
                            sums_tails_avx2_usable();
    if (dense_enough_for_prefix(count, e - b, vectorized))
      return sum_block_by_prefix(in, heads, b, e, count, vectorized, init != nullptr ? *init : T{},
                                 op, s, emit, read_ahead);
  } else if constexpr (sums_by_scan_ok<T, Input, Heads, std::remove_cvref_t<Op>, Emit>()) {
    if (count * 64 >= e - b && !denser_than_three_in_four(count, e - b))
      return sum_block_by_scan(in, heads, b, e, init, s, emit, read_ahead);
  } else if constexpr (folds_by_vectors_ok<T, Input, Heads, Op, Emit>()) {
    if (count * vectors_from<T, std::remove_cvref_t<Op>>() >= e - b && sums_tails_avx2_usable())
      return fold_block_by_vectors(in, heads, b, e, count, init, op, s, emit, read_ahead);
  }
  if constexpr (folds_in_chains_ok<T, Heads, Op, Emit>()) {
    if (count * 24 >= e - b && !denser_than_three_in_four(count, e - b))
      return reduce_block_in_chains(in, heads, b, e, init, op, s, emit);
  }
  return reduce_block(in, heads, b, e, init, op, s, emit);
}

/// \brief Block `t` (`bl`) of reduce_segments: fold_counted_block from its planned segments.
template <class T, class Input, class Heads, class Op, class Emit>
block_ends<T> reduce_segments_block(const segment_plan& plan, const Input& in, const Heads& heads,
                                    const T* init, const Op& op, Emit& emit, const block& bl,
                                    std::size_t t) {
  return fold_counted_block(in, heads, bl.begin, bl.end, plan.before[t],
                            plan.before[t + 1] - plan.before[t], init, op, emit);
}

/// \brief Reduces every segment of `in` (heads as planned) and hands each result to
/// `emit(s, head, value)`, once per segment, from any thread. Where `emit` only stores
/// (store_results, store_keyed_results) and the segments are integer sums (sums_by_prefix_v),
/// blocks dense in heads are summed by sum_block_by_prefix, which writes the results' arrays
/// itself. Without `init` (reduce_by_key) a sum starts from zero, which is the same.
template <class T, class Input, class Heads, class Op, class Emit>
void reduce_segments(const segment_plan& plan, const Input& in, const Heads& heads, const T* init,
                     const Op& op, Emit emit) {
  const std::size_t n = in.size();
  if (plan.team <= 1) {
    const block_ends<T> r = fold_counted_block(in, heads, 0, n, 0, plan.count, init, op, emit);
    if (r.tail) emit(r.tail_segment, r.tail_head, *r.tail);
    return;
  }
  std::vector<cache_padded<block_ends<T>>> ends(static_cast<std::size_t>(plan.team));
  for_each_block(plan.team, [&](int blk) {
    const auto t = static_cast<std::size_t>(blk);
    ends[t].value =
        reduce_segments_block(plan, in, heads, init, op, emit, block_of(n, plan.team, blk), t);
  });
  stitch(ends, op, emit);
}

/// \brief A block's results kept while it is reduced before the blocks' counts are known
/// (reduce_segments_counting): each value and, by key, its run's key, at most `cap` of them;
/// `full` once one more came (reduce_block then stops).
template <class T, class Emit>
struct block_results {
  static constexpr bool keyed = !std::is_void_v<typename Emit::key_type>;
  using key_t = std::conditional_t<keyed, typename Emit::key_type, char>;
  const key_t* key_source = nullptr;
  std::size_t cap = 0;
  std::vector<T> values;
  std::vector<key_t> keys;
  bool full = false;

  void operator()(std::size_t, std::size_t head, const T& value) {
    if (values.size() == cap) {
      full = true;
      return;
    }
    values.push_back(value);
    if constexpr (keyed) keys.push_back(key_source[head]);
  }
  /// \brief Stores the results as segments s, s + 1, ... through `emit`'s arrays.
  void store(const Emit& emit, std::size_t s) const {
    std::copy(values.begin(), values.end(), emit.out + s);
    if constexpr (keyed) std::copy(keys.begin(), keys.end(), emit.key_slots(s));
  }
};

/// \brief Elements at a block's start whose heads reduce_segments_counting counts to guess the
/// block's density.
inline constexpr std::size_t density_sample = 4096;

/// \brief One head in this many elements or fewer is sparse: the density below which a block is
/// reduced before its heads are counted (reduce_block), 64, or where fold_counted_block takes
/// the block by vectors from sparser heads than that (float `minimum` and `maximum`:
/// vectors_from), that density, where the vectors are faster than reduce_block (2-core
/// development machine, 2^24 float32 `minimum`, one head in 100, one thread: 39-45 ms by
/// reduce_block, 13-14 by vectors).
template <class T, class Input, class Heads, class Op, class Emit>
constexpr std::size_t sparse_from() {
  if constexpr (folds_by_vectors_ok<T, Input, Heads, Op, Emit>())
    return std::max<std::size_t>(vectors_from<T, std::remove_cvref_t<Op>>(), 64);
  else
    return 64;
}

/// \brief Whether `count` heads in a sample of `m` elements are sparse: at most one in
/// `one_in` (sparse_from).
inline bool sparse_sample(std::size_t count, std::size_t m, std::size_t one_in) {
  return count * one_in <= m;
}

/// \brief Results of reduced blocks that reduce_segments_counting stores on the calling thread
/// (more are stored by the team).
inline constexpr std::size_t kept_stored_here = std::size_t{1} << 14;

/// \brief Grains of elements a thread of reduce_segments_counting takes where the heads at the
/// input's start are sparse (at most one in 64): 4 with one-byte flags, 2 with keys, whose
/// elements take about twice as long (a key beside each value; the 16-core host, 2^16 int32,
/// heads one in 1000: flags 7.3-7.6 us on one thread against 7.9-9.6 on a team, keys 15.9-16.1
/// on one thread against 11.1-15.4 on a team).
template <class Heads>
inline constexpr std::size_t sparse_grains = is_flag_heads_v<Heads> ? 4 : 2;

/// \brief reduce_segments for outputs with room for n results, without counting the heads
/// first where they are sparse: a block whose first `density_sample` elements hold at most one
/// head in sparse_from (64, or 512 for float minimum and maximum) is reduced at once
/// (reduce_block), its results kept aside (block_results, up to one in 64 of its elements) and
/// stored once the blocks before it are counted; a denser block, or one whose results outgrow that,
/// is counted, then reduced as reduce_segments does. So sparse heads are read once instead of
/// twice. Returns the number of segments. `start_sparse`: whether the input's first
/// `density_sample` elements are sparse, where the caller has counted them (else they are counted
/// here).
template <class T, class Input, class Heads, class Op, class Emit>
std::size_t reduce_segments_counting(const omp_policy& policy, const Input& in, const Heads& heads,
                                     const T* init, const Op& op, Emit emit,
                                     std::optional<bool> start_sparse = std::nullopt) {
  const std::size_t n = in.size();
  if (n == 0) return 0;
  const auto sparse = [&](std::size_t b, std::size_t e) {
    const std::size_t m = e - b < density_sample ? e - b : density_sample;
    return sparse_sample(count_heads(heads, b, b + m), m, sparse_from<T, Input, Heads, Op, Emit>());
  };
  // sparse heads fold at the lane fold's pace, several elements a nanosecond: a thread takes
  // sparse_grains grains of them, else the team's start costs more than it saves (2 threads
  // at 2^15 and 2^16 elements, heads one in 1000: 0.65-0.9x one thread's time on the 2-core
  // development machine; the plain reduce at 2^15 0.83x)
  const bool sparse_start = start_sparse ? *start_sparse : sparse(0, n);
  const int team = team_size(policy, sparse_start ? n / sparse_grains<Heads> : n);
  if (team <= 1 && sparse_start) {  // one block: its results go straight to their places
    const block_ends<T> r = reduce_block(in, heads, 0, n, init, op, 0, emit);
    emit(r.tail_segment, r.tail_head, *r.tail);  // (element 0 is a head: there is a tail)
    return r.tail_segment + 1;
  }
  if (team <= 1) {
    segment_plan plan;
    plan.count = count_heads(heads, 0, n);
    reduce_segments(plan, in, heads, init, op, emit);
    return plan.count;
  }
  const auto blocks = static_cast<std::size_t>(team);
  using kept_t = block_results<T, Emit>;
  std::vector<cache_padded<std::optional<kept_t>>> kept(blocks);
  std::vector<cache_padded<block_ends<T>>> ends(blocks);
  std::vector<cache_padded<std::size_t>> counts(blocks);
  for_each_block(team, [&](int blk) {
    const block bl = block_of(n, team, blk);
    const auto t = static_cast<std::size_t>(blk);
    if (bl.begin < bl.end && sparse(bl.begin, bl.end)) {
      kept_t k;
      if constexpr (kept_t::keyed) k.key_source = heads_keys(heads);
      k.cap = (bl.end - bl.begin) / 64 + 64;
      block_ends<T> r = reduce_block(in, heads, bl.begin, bl.end, init, op, 0, k);
      if (!k.full) {
        counts[t].value = k.values.size() + (r.tail ? 1 : 0);
        ends[t].value = std::move(r);
        kept[t].value.emplace(std::move(k));
        return;
      }
    }
    counts[t].value = count_heads(heads, bl.begin, bl.end);
  });
  segment_plan plan;
  plan.team = team;
  plan.before.assign(blocks + 1, 0);
  for (std::size_t t = 0; t < blocks; ++t) plan.before[t + 1] = plan.before[t] + counts[t].value;
  plan.count = plan.before[blocks];
  const auto place = [&](int blk) {
    const auto t = static_cast<std::size_t>(blk);
    if (kept[t].value) {
      kept[t].value->store(emit, plan.before[t]);
      ends[t].value.tail_segment += plan.before[t];
    } else {
      const block bl = block_of(n, team, blk);
      ends[t].value = reduce_segments_block(plan, in, heads, init, op, emit, bl, t);
    }
  };
  // every block reduced and its results few: stored here, without a second team (whose start
  // and join cost more than the copy: 2 threads at 2^15 elements, heads one in 1000, took 1.4x
  // one thread's time with it on the 2-core development machine)
  const bool all_kept =
      std::all_of(kept.begin(), kept.end(), [](const auto& k) { return k.value.has_value(); });
  if (all_kept && plan.count <= kept_stored_here) {
    for (int blk = 0; blk < team; ++blk) place(blk);
  } else {
    for_each_block(team, place);
  }
  stitch(ends, op, emit);
  return plan.count;
}

/// \brief `emit(s, offsets[s], init op in[offsets[s]] op ...)` for the segments s of [lo, hi) of
/// CSR `offsets` (checked), all of which end by the block's end. Built-in values and operators
/// take a one-element segment followed by 7 more (9 offsets a step apart) as one step of 8
/// independent results, which the compiler vectorizes, instead of 8 folds of one element.
template <class T, class Input, class I, class Op, class Emit>
void emit_whole_segments(const Input& in, std::span<const I> offsets, std::size_t lo,
                         std::size_t hi, const T& init, const Op& op, Emit& emit) {
  using In = typename Input::value_type;
  constexpr bool grouped = std::is_arithmetic_v<T> && std::is_arithmetic_v<In> &&
                           !parprim::detail::accumulating_operator<Op>;
  constexpr std::size_t group = 8;
  std::size_t s = lo;
  while (s < hi) {
    const auto begin = static_cast<std::size_t>(offsets[s]);
    const auto end = static_cast<std::size_t>(offsets[s + 1]);
    if constexpr (grouped) {
      if (end == begin + 1 && s + group <= hi) {
        bool unit = true;
        for (std::size_t j = 2; j <= group; ++j)
          unit &= static_cast<std::size_t>(offsets[s + j]) == begin + j;
        if (unit) {
          T v[group];
          for (std::size_t j = 0; j < group; ++j)
            v[j] = static_cast<T>(op(init, static_cast<T>(in[begin + j])));
          for (std::size_t j = 0; j < group; ++j) emit(s + j, begin + j, v[j]);
          s += group;
          continue;
        }
      }
    }
    emit(s, begin, fold(init, in, begin, end - begin, op));
    ++s;
  }
}

/// \brief Folds block [b, e) of `in` with the segments of CSR `offsets` (k + 1, checked): those
/// starting in [b, e) (the last block also takes the empty ones starting at n) are this
/// block's; `emit(s, begin, value)` for those that end in it.
template <class T, class Input, class I, class Op, class Emit>
block_ends<T> reduce_offsets_block(const Input& in, std::span<const I> offsets, std::size_t b,
                                   std::size_t e, bool last, const T& init, const Op& op,
                                   Emit& emit) {
  const std::size_t k = offsets.size() - 1;
  const auto below = [](const I& offset, std::size_t x) { return std::cmp_less(offset, x); };
  const auto first_at_or_after = [&](std::size_t x) {
    return static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(k), x,
                         below) -
        offsets.begin());
  };
  const std::size_t lo = first_at_or_after(b);
  const std::size_t hi = last ? k : first_at_or_after(e);
  block_ends<T> r;
  const std::size_t first_begin = lo < hi ? static_cast<std::size_t>(offsets[lo]) : e;
  if (first_begin > b) r.lead = fold_nonempty<T>(in, b, first_begin, op);
  // only the last of them may end past e (each other ends where the next one starts)
  const std::size_t whole = lo < hi && std::cmp_greater(offsets[hi], e) ? hi - 1 : hi;
  emit_whole_segments(in, offsets, lo, whole, init, op, emit);
  if (whole < hi) {
    const auto begin = static_cast<std::size_t>(offsets[whole]);
    r.tail = fold(init, in, begin, e - begin, op);
    r.tail_segment = whole;
    r.tail_head = begin;
  }
  return r;
}

}  // namespace parprim::openmp::detail
