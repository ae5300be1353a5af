#pragma once
/// \file
/// \brief OpenMP segmented scans: the tiled three-phase driver with the flag operator as the
/// carry combiner. A block's total folds only from its last head, and a block starting with
/// a head ignores its carry. Integer sums with one-byte flags or integer keys take an AVX2 block
/// step where the processor has it (segmented_sums_avx2.hpp), integer minimum, maximum, bit
/// operators and 4-byte products and float minimum and maximum an AVX2 segmented scan of each
/// vector (segment_folds_avx2.hpp; AVX-512 where the processor has it, segment_folds_avx512.hpp);
/// float and double sums with such heads scan 32-byte groups (segmented_grouped_sums.hpp).

#include <cstddef>
#include <span>
#include <type_traits>

#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx2.hpp>
#include <parprim/backends/openmp/detail/segment_folds_avx512.hpp>
#include <parprim/backends/openmp/detail/segment_sums_avx2.hpp>
#include <parprim/backends/openmp/detail/segmented_grouped_sums.hpp>
#include <parprim/backends/openmp/detail/segmented_sequence.hpp>
#include <parprim/backends/openmp/detail/segmented_sums_avx2.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/segmented.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct segmented_scan_impl<omp_policy> {
  template <class Input, class Flags, class Out, class Op>
  static void inclusive(const omp_policy& policy, const Input& in, const Flags& flags,
                        std::span<Out> out, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const int team =
        openmp::detail::scan_team_size(policy, in.size(), sizeof(typename Input::value_type));
    const bool stream = openmp::detail::use_streaming(team, out.size_bytes());
    const auto scan_block = [&](std::size_t b, std::size_t e, const flagged<Acc>* carry) {
      const bool restart = b == 0 || flags[b] || !carry;
      if constexpr (accumulating_operator<Op>) {
        op.scan_block(in, b, e, restart ? nullptr : &carry->value, nullptr, &flags, false,
                      openmp::detail::sequence_store<Out>{out.data(), stream});
      } else {
        const Out first = restart ? static_cast<Out>(in[b]) : carry->value;
        std::size_t i = b;
        if (restart) out[i++] = first;
#if PARPRIM_HOST_AVX2
        if constexpr (openmp::detail::segmented_sums_avx2_ok<Out, Input, Flags, Op>()) {
          if (openmp::detail::sums_tails_avx2_usable()) {
            using U = std::make_unsigned_t<Out>;
            openmp::detail::segmented_sums_avx2<false, U>(
                reinterpret_cast<U*>(out.data()), i, e, stream, static_cast<U>(first),
                reinterpret_cast<const U*>(in.data()), flags);
            return;
          }
        }
        if constexpr (openmp::detail::segmented_folds_avx2_ok<Out, Input, Flags, Op>()) {
          if (openmp::detail::sums_tails_avx2_usable()) {
            openmp::detail::segmented_folds_vectors<false>(out.data(), i, e, stream, first,
                                                           in.data(), flags, first, op);
            return;
          }
        }
#endif
        if constexpr (openmp::detail::segmented_grouped_sums_ok<Out, Input, Flags, Op>()) {
          openmp::detail::segmented_grouped_sum_scan(in.data(), out.data() + i, i, e, stream, first,
                                                     flags,
                                                     openmp::detail::sums_tails_avx2_usable());
          return;
        }
        if constexpr (openmp::detail::branch_free_select_v<Out>) {
          openmp::detail::write_segmented_sequence(out.data(), i, e, stream, first, in, flags, op);
        } else {
          openmp::detail::write_sequence(
              out.data(), i, e, stream, [acc = first, &in, &flags, op](std::size_t k) mutable {
                acc = flags[k] ? static_cast<Out>(in[k])
                               : static_cast<Out>(op(acc, static_cast<Out>(in[k])));
                return acc;
              });
        }
      }
    };
    run<Acc>(team, policy, in, flags, op, scan_block);
  }

  template <class Input, class Flags, class Out, class Op>
  static void exclusive(const omp_policy& policy, const Input& in, const Flags& flags,
                        std::span<Out> out, accumulator_t<Op, Out> init, Op op) {
    using Acc = accumulator_t<Op, Out>;
    const int team =
        openmp::detail::scan_team_size(policy, in.size(), sizeof(typename Input::value_type));
    const bool stream = openmp::detail::use_streaming(team, out.size_bytes());
    const auto scan_block = [&](std::size_t b, std::size_t e, const flagged<Acc>* carry) {
      // acc = init op (the segment's elements before k)
      const Acc first = (b > 0 && carry) ? static_cast<Acc>(op(init, carry->value)) : init;
      if constexpr (accumulating_operator<Op>) {
        op.scan_block(in, b, e, &first, &init, &flags, true,
                      openmp::detail::sequence_store<Out>{out.data(), stream});
      } else {
#if PARPRIM_HOST_AVX2
        if constexpr (openmp::detail::segmented_sums_avx2_ok<Out, Input, Flags, Op>()) {
          if (openmp::detail::sums_tails_avx2_usable()) {
            using U = std::make_unsigned_t<Out>;
            auto* o = reinterpret_cast<U*>(out.data());
            const auto* x = reinterpret_cast<const U*>(in.data());
            U acc = static_cast<U>(first);
            std::size_t i = b;
            if (b == 0) {  // element 0 starts a segment (read before written: out may be in)
              acc = static_cast<U>(static_cast<U>(init) + x[0]);
              o[0] = static_cast<U>(init);
              i = 1;
            }
            openmp::detail::segmented_sums_avx2<true, U>(o, i, e, stream, acc, x, flags,
                                                         static_cast<U>(init));
            return;
          }
        }
        if constexpr (openmp::detail::segmented_folds_avx2_ok<Out, Input, Flags, Op>()) {
          if (openmp::detail::sums_tails_avx2_usable()) {
            const Out* x = in.data();
            Out acc = static_cast<Out>(first);
            std::size_t i = b;
            if (b == 0) {  // element 0 starts a segment (read before written: out may be in)
              acc = parprim::detail::apply_wrapping<Out>(op, static_cast<Out>(init), x[0]);
              out[0] = static_cast<Out>(init);
              i = 1;
            }
            openmp::detail::segmented_folds_vectors<true>(out.data(), i, e, stream, acc, x, flags,
                                                          static_cast<Out>(init), op);
            return;
          }
        }
#endif
        if constexpr (openmp::detail::segmented_grouped_sums_ok<Out, Input, Flags, Op>()) {
          const Out* x = in.data();
          Out acc = first;
          std::size_t i = b;
          if (b == 0) {  // element 0 starts a segment (read before written: out may be in)
            acc = static_cast<Out>(init + x[0]);
            out[0] = init;
            i = 1;
          }
          openmp::detail::segmented_grouped_sum_scan<true>(
              x, out.data() + i, i, e, stream, acc, flags, openmp::detail::sums_tails_avx2_usable(),
              static_cast<Out>(init));
          return;
        }
        openmp::detail::write_sequence(out.data(), b, e, stream,
                                       [acc = first, init, &in, &flags, op](std::size_t k) mutable {
                                         if (k == 0 || flags[k]) acc = init;
                                         const Out before = acc;
                                         acc = static_cast<Out>(op(acc, static_cast<Out>(in[k])));
                                         return before;
                                       });
      }
    };
    run<Acc>(team, policy, in, flags, op, scan_block);
  }

 private:
  /// The carry into a block is the inclusive segmented value of the element before it, as a
  /// flagged pair; a block's total folds from its last head (or its start) to its end.
  template <class Acc, class Input, class Flags, class Op, class ScanBlock>
  static void run(int team, const omp_policy& policy, const Input& in, const Flags& flags, Op op,
                  ScanBlock scan_block) {
    namespace od = openmp::detail;
    const auto total = [&](std::size_t b, std::size_t e) {
      std::size_t h = e;
      while (h > b && !flags[h - 1]) --h;
      const bool head = h > b || b == 0;  // a flag at h - 1, or the global first element
      const std::size_t from = h > b ? h - 1 : b;
      return flagged<Acc>{od::fold_nonempty<Acc>(in, from, e, op), head};
    };
    od::tiled_scan<flagged<Acc>>(in.size(), team, od::scan_tile_elements<Input, Op>(policy, team),
                                 static_cast<const flagged<Acc>*>(nullptr), total, flag_op<Op>{op},
                                 scan_block);
  }
};

}  // namespace parprim::detail
