#pragma once
/// \file
/// \brief OpenMP segmented reduce, head flags and CSR offsets, on the driver of
/// detail/segments.hpp: elements split evenly over the threads, one fold per block, the blocks
/// stitched in order on the calling thread. Head flags are counted per block first (that count
/// is checked against the output before anything is written, and places each block's
/// results), but where `out` has room for n results, which then reads them once: dense heads in
/// cache-sized rounds (detail/segments_in_rounds.hpp), sparse ones by reducing a block before
/// counting it (reduce_segments_counting); offsets are checked in parallel. T_P = n/p + p.

#include <cstddef>
#include <span>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/segments.hpp>
#include <parprim/backends/openmp/detail/segments_in_rounds.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/detail/offsets.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct segmented_reduce_impl<omp_policy> {
  template <class Flag>
  static openmp::detail::segment_plan plan_flags(const omp_policy& policy,
                                                 std::span<const Flag> flags) {
    return openmp::detail::plan_segments(policy, flag_heads<Flag>(flags));
  }

  template <class Input, class Flag, class Out, class Op>
  static void reduce_flags(const omp_policy&, const openmp::detail::segment_plan& plan,
                           const Input& in, std::span<const Flag> flags, std::span<Out> out,
                           Out init, Op op) {
    openmp::detail::reduce_segments<Out>(plan, in, flag_heads<Flag>(flags), &init, op,
                                         openmp::detail::store_results<Out>{out.data()});
  }

  /// \brief The front end calls this instead of plan_flags and reduce_flags when `out` has
  /// room for n results: the heads are then read once (reduce_segments_reading_once).
  static constexpr bool counts_while_reducing = true;

  template <class Input, class Flag, class Out, class Op>
  static std::size_t reduce_flags_counting(const omp_policy& policy, const Input& in,
                                           std::span<const Flag> flags, std::span<Out> out,
                                           Out init, Op op) {
    return openmp::detail::reduce_segments_reading_once<Out>(
        policy, in, flag_heads<Flag>(flags), &init, op,
        openmp::detail::store_results<Out>{out.data()});
  }

  template <class I>
  static void check_offsets(const omp_policy& policy, std::span<const I> offsets, std::size_t n,
                            const char* fn) {
    namespace od = openmp::detail;
    check_offset_ends(offsets, n, fn);
    const std::size_t pairs = offsets.size() - 1;  // offsets[i - 1] <= offsets[i], i = 1..pairs
    const int team = od::team_size(policy, pairs);
    std::size_t bad = offsets.size();
    if (team <= 1) {
      bad = first_decrease(offsets, 1, offsets.size());
    } else {
      std::vector<od::cache_padded<std::size_t>> first(static_cast<std::size_t>(team));
      od::for_each_block(team, [&](int blk) {
        const od::block bl = od::block_of(pairs, team, blk);
        const std::size_t i = first_decrease(offsets, bl.begin + 1, bl.end + 1);
        first[static_cast<std::size_t>(blk)].value = i <= bl.end ? i : offsets.size();
      });
      for (const auto& f : first) bad = f.value < bad ? f.value : bad;
    }
    if (bad < offsets.size()) throw_offsets_decrease(fn, bad, offsets[bad - 1], offsets[bad]);
  }

  template <class Input, class I, class Out, class Op>
  static void reduce_offsets(const omp_policy& policy, const Input& in, std::span<const I> offsets,
                             std::span<Out> out, Out init, Op op) {
    namespace od = openmp::detail;
    const std::size_t n = in.size();
    const od::store_results<Out> emit{out.data()};
    const int team = od::team_size(policy, n);
    if (team <= 1) {
      od::emit_whole_segments(in, offsets, 0, out.size(), init, op, emit);
      return;
    }
    std::vector<od::cache_padded<od::block_ends<Out>>> ends(static_cast<std::size_t>(team));
    od::for_each_block(team, [&](int blk) {
      const od::block bl = od::block_of(n, team, blk);
      ends[static_cast<std::size_t>(blk)].value =
          od::reduce_offsets_block(in, offsets, bl.begin, bl.end, blk + 1 == team, init, op, emit);
    });
    od::stitch(ends, op, emit);
  }
};

}  // namespace parprim::detail
