#pragma once
/// \file
/// \brief The per-segment reductions in cache-sized rounds (the scans' driver, tiled_scan.hpp),
/// for outputs with room for n results and heads dense enough that counting them first would
/// read them twice. In each round a thread counts the heads of its block (reading them from
/// memory into its cache) and folds the segment still open at the block's end; those make the
/// block's total, an `open_segment`. The carry into a block (the totals before it, combined in
/// order) says how many segments start before it, so where its results go, and holds the fold
/// of the segment it continues. The block's reduction then reads the heads from cache and the
/// elements once from memory: the segment the block continues is finished by its lead (the
/// elements before its first head), the segments between its first and last head are written
/// as reduce_segments writes them (fold_counted_block), and the segment open at its end is left
/// to the block that finishes it (the last block writes its own). Each result is written by one
/// thread, once. Heads and elements are read from memory once, against twice for the heads
/// where they are counted in a pass of their own (reduce_segments). Where a block's integer
/// sums run over at most three heads in four, its thread also asks the cache for its block of
/// the next round (segment_read_ahead).

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/segments.hpp>
#include <parprim/backends/openmp/detail/tiled_scan.hpp>

namespace parprim::openmp::detail {

/// \brief Whether the integer sums of the rounds' blocks with at most three heads in four (the
/// AVX2 loop of sum_block_by_prefix) ask the cache, element by element, for the same thread's
/// block of the next round, which then reads from cache while that loop's arithmetic runs.
/// 16-core host, 2^28 int32, 16 threads, two calls of three and six rounds, the rounds' medians
/// (single rounds spread by up to a third) without -> with: head flags one in ten 17.8-19.1 ->
/// 13.4-17.5 ms, `reduce_by_key` runs one in ten 30.1-31.7 -> 22.1-27.4; 2-core development
/// machine, 2^26, 2 threads: 26.1 -> 20.4 ms and 42.9 -> 37.3. Denser blocks would too (runs of
/// one at 16 threads 52.3-54.8 -> 46.8-48.9 ms), but lost 3-10 % at 2 threads on the 2-core
/// machine, so they do not. The knob stays for A/B runs (docs/results/h100/cpu-16core/read-ahead/).
#if defined(PARPRIM_OMP_SEGMENT_READ_AHEAD)
inline constexpr bool segment_read_ahead = PARPRIM_OMP_SEGMENT_READ_AHEAD != 0;
#else
inline constexpr bool segment_read_ahead = true;
#endif

/// \brief A block's total in reduce_segments_in_rounds, and the carry into a block: `heads`
/// segments start in it (or before it); the last of them starts at element `head` and folds to
/// `value` up to its end (from `init` where there is one). Without heads, `value` is the fold of
/// the block's elements.
template <class T>
struct open_segment {
  std::size_t heads = 0;
  std::size_t head = 0;
  T value;
};

/// \brief reduce_segments_counting's work for outputs with room for n results, in rounds of
/// `tile` elements a thread (see the file comment): `emit(s, head, value)` once for every
/// segment, from any thread; returns the number of segments. The first exception thrown by `op`
/// or `emit` is rethrown here.
template <class T, class Input, class Heads, class Op, class Emit>
std::size_t reduce_segments_in_rounds(int team, std::size_t tile, const Input& in,
                                      const Heads& heads, const T* init, const Op& op, Emit emit) {
  const std::size_t n = in.size();
  if (n == 0) return 0;
  const auto start = [&](std::size_t k) {
    return init ? static_cast<T>(op(*init, static_cast<T>(in[k]))) : static_cast<T>(in[k]);
  };
  // the segment from head `h` to e
  const auto open_fold = [&](std::size_t h, std::size_t e) {
    return fold(start(h), in, h + 1, e - h - 1, op);
  };
  // what a thread's fold of a block found, which the block's reduction (next, on the same
  // thread) reads instead of searching the heads again
  struct survey {
    std::size_t b = 0, e = 0;         // the block
    std::size_t first = 0, last = 0;  // its first and last head
    std::size_t count = 0;            // its heads
  };
  std::vector<cache_padded<survey>> surveys(static_cast<std::size_t>(team > 1 ? team : 1));
  const auto total = [&](std::size_t b, std::size_t e) {
    survey& mine = surveys[static_cast<std::size_t>(omp_get_thread_num())].value;
    const std::size_t count = count_heads(heads, b, e);
    mine = {b, e, e, e, count};
    if (count == 0) return open_segment<T>{0, 0, fold_nonempty<T>(in, b, e, op)};
    mine.first = heads.next(b, e);
    mine.last = count == 1 ? mine.first : last_head(heads, mine.first, e);
    return open_segment<T>{count, mine.last, open_fold(mine.last, e)};
  };
  const auto combine = [&](const open_segment<T>& a, const open_segment<T>& b) {
    if (b.heads > 0) return open_segment<T>{a.heads + b.heads, b.head, b.value};
    return open_segment<T>{a.heads, a.head, static_cast<T>(op(a.value, b.value))};
  };
  std::size_t segments = 0;  // written by the block that holds element n - 1
  const auto reduce_block = [&](std::size_t b, std::size_t e, const open_segment<T>* carry) {
    Emit out = emit;
    survey seen = surveys[static_cast<std::size_t>(omp_get_thread_num())].value;
    if (seen.b != b || seen.e != e) {  // (one thread: no folds)
      seen = {b, e, heads.next(b, e), e, 0};
      if (seen.first < e) {
        seen.last = last_head(heads, seen.first, e);
        seen.count = count_heads(heads, seen.first, e);
      }
    }
    const std::size_t first = seen.first;
    if (carry) {  // (null only for the block at element 0, which is a head)
      const T value = first > b
                          ? static_cast<T>(op(carry->value, fold_nonempty<T>(in, b, first, op)))
                          : carry->value;
      if (first < e || e == n) out(carry->heads - 1, carry->head, value);
      if (first == e) {
        if (e == n) segments = carry->heads;
        return;
      }
    }
    std::size_t s = carry ? carry->heads : 0;  // the segment that starts at `first`
    const std::size_t last = seen.last;
    if (last > first) {  // the segments that end before `last`, all of them the block's
      const block_ends<T> r = fold_counted_block(in, heads, first, last, s, seen.count - 1, init,
                                                 op, out, segment_read_ahead ? tile * team : 0);
      out(r.tail_segment, r.tail_head, *r.tail);
      s = r.tail_segment + 1;
    }
    if (e == n) {
      out(s, last, open_fold(last, e));
      segments = s + 1;
    }
  };
  tiled_scan<open_segment<T>>(n, team, tile, static_cast<const open_segment<T>*>(nullptr), total,
                              combine, reduce_block);
  return segments;
}

/// \brief reduce_segments_counting's contract (outputs with room for n results; returns the
/// number of segments), heads read from memory once where that pays: in rounds
/// (reduce_segments_in_rounds) where several threads share the work and every block starts with
/// heads denser than sparse_from (one in 64; float minimum and maximum one in 512) (and, for
/// flags, no denser than three in four: there the 16-core
/// host ran 3-7 % faster counting them first, a byte an element beside the four of a result),
/// else reduce_segments_counting, which then reduces sparse blocks before counting them.
template <class T, class Input, class Heads, class Op, class Emit>
std::size_t reduce_segments_reading_once(const omp_policy& policy, const Input& in,
                                         const Heads& heads, const T* init, const Op& op,
                                         Emit emit) {
  const std::size_t n = in.size();
  const int team = team_size(policy, n);
  bool rounds = team > 1;
  std::optional<bool> start_sparse;  // the first block's sample, where it is the input's first
  for (int t = 0; t < team && rounds; ++t) {
    const block bl = block_of(n, team, t);
    const std::size_t m = std::min(bl.end - bl.begin, density_sample);
    const std::size_t count = count_heads(heads, bl.begin, bl.begin + m);
    const bool sparse = sparse_sample(count, m, sparse_from<T, Input, Heads, Op, Emit>());
    if (t == 0 && m == std::min(n, density_sample)) start_sparse = sparse;
    // (flags denser than three in four: a count of its own costs little beside the results)
    rounds =
        m == 0 || (!sparse && !(is_flag_heads_v<Heads> && denser_than_three_in_four(count, m)));
  }
  if (rounds)
    return reduce_segments_in_rounds(  // (rounds of the scans' size: scan_tile)
        team, scan_tile(policy.grain_size(), sizeof(typename Input::value_type), team), in, heads,
        init, op, emit);
  return reduce_segments_counting(policy, in, heads, init, op, emit, start_sparse);
}

}  // namespace parprim::openmp::detail
