#pragma once
/// \file
/// \brief CUDA segmented scans: `segmented_scan_impl<basic_cuda_policy<R, S>>`. The flag
/// operator (detail/segmented.hpp) runs through scan rung `S`; flags are one byte each.
/// parprim::exact_plus on float or double runs the exact per-segment passes instead
/// (kernels/segments_exact_sum.cuh), whatever the rung.

#include <cstdint>
#include <span>

#include <parprim/backends/cuda/detail/exact_segments_entry.hpp>
#include <parprim/backends/cuda/scan.hpp>
#include <parprim/detail/exact_sum.hpp>

#if defined(__CUDACC__)
#include <parprim/backends/cuda/detail/exact_segments_launch.cuh>
#endif

namespace parprim::detail {

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct segmented_scan_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  template <class In, class F, class T, class Op>
  static void inclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const F> flags, device_span<T> out, Op op) {
    check_cuda_scan_types<In, T, Op>();
    cuda::segmented_scan<S, In, T, Op>(
        cuda::options_of(policy), in.data(), reinterpret_cast<const std::uint8_t*>(flags.data()),
        out.data(), in.size(), cuda::scan_kind::inclusive, nullptr, nullptr, op);
  }

  template <class In, class F, class T, class Op>
  static void exclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const F> flags, device_span<T> out, T init, Op op) {
    check_cuda_scan_types<In, T, Op>();
    cuda::segmented_scan<S, In, T, Op>(
        cuda::options_of(policy), in.data(), reinterpret_cast<const std::uint8_t*>(flags.data()),
        out.data(), in.size(), cuda::scan_kind::exclusive, &init, nullptr, op);
  }

  /// \brief parprim::exact_plus on float or double (`F`, the output's type): every output is
  /// the exact sum of its segment's operands so far, rounded once. The exclusive scan's `init`
  /// comes as the superaccumulator of it (detail/exact_dispatch.hpp).
  template <class In, class Fl, class F>
  static void inclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const Fl> flags, device_span<F> out, exact_sum<F>) {
    static_assert(sizeof(Fl) == 1, "parprim: head flags are one byte each (std::uint8_t)");
    check_cuda_exact_segment_types<void, In, F>();
    cuda::exact_segmented_scan<In, F>(cuda::options_of(policy), in.data(),
                                      reinterpret_cast<const std::uint8_t*>(flags.data()),
                                      out.data(), in.size(), cuda::scan_kind::inclusive, nullptr);
  }
  template <class In, class Fl, class F>
  static void exclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const Fl> flags, device_span<F> out, exact_accumulator<F> init,
                        exact_sum<F>) {
    static_assert(sizeof(Fl) == 1, "parprim: head flags are one byte each (std::uint8_t)");
    check_cuda_exact_segment_types<void, In, F>();
    cuda::exact_segmented_scan<In, F>(cuda::options_of(policy), in.data(),
                                      reinterpret_cast<const std::uint8_t*>(flags.data()),
                                      out.data(), in.size(), cuda::scan_kind::exclusive, &init);
  }

  /// \brief Host ranges are a compile error.
  template <class In, class F, class Out, class... Rest>
  static void inclusive(const policy_type&, std::span<const In>, std::span<const F>, std::span<Out>,
                        Rest&&...) {
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim segmented scans with parprim::cuda read device memory: pass "
                  "parprim::device_span values, flags and output, not host ranges.");
  }
  template <class In, class F, class Out, class... Rest>
  static void exclusive(const policy_type&, std::span<const In>, std::span<const F>, std::span<Out>,
                        Rest&&...) {
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim segmented scans with parprim::cuda read device memory: pass "
                  "parprim::device_span values, flags and output, not host ranges.");
  }
};

}  // namespace parprim::detail
