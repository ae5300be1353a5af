#pragma once
/// \file
/// \brief CUDA inclusive and exclusive scan: `scan_impl<basic_cuda_policy<R, S>>`, running scan
/// rung `S` (docs/kernels.md). Compile-time checks as in reduce.hpp: device spans only, and a
/// g++ translation unit may only use the combinations precompiled in `parprim::cuda`.

#include <span>
#include <type_traits>

#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_sum.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/device_span.hpp>
#include <parprim/operators.hpp>

#if defined(__CUDACC__)
#include <parprim/backends/cuda/detail/scan_dispatch.cuh>
#endif

namespace parprim::detail {

template <class>
inline constexpr bool cuda_scan_always_false_v = false;

/// \brief The compile-time requirements of every CUDA scan.
template <class In, class T, class Op>
constexpr void check_cuda_scan_types() {
  static_assert(std::is_trivially_copyable_v<In> && std::is_trivially_copyable_v<T>,
                "parprim CUDA scans: element and output types must be trivially copyable");
  static_assert(std::is_default_constructible_v<T> && alignof(T) <= 16,
                "parprim CUDA scans: the output type must be default constructible and aligned "
                "to at most 16 bytes");
  static_assert(
      std::is_constructible_v<T, const In&> && std::is_invocable_v<const Op&, const T&, const T&>,
      "parprim CUDA scans: the output type must be constructible from the element type and "
      "op(T, T) must be valid");
#if !defined(__CUDACC__)
  static_assert(cuda::precompiled_scan_v<In, T, Op>,
                "parprim CUDA scans from a translation unit not compiled by nvcc: only the "
                "combinations precompiled in the parprim::cuda library are available here "
                "(element type = output type = int32_t, uint32_t, int64_t, uint64_t, float or "
                "double, with parprim::plus, minimum or maximum). For other types or "
                "operators, make this a .cu file compiled by nvcc; the operator must then be "
                "callable on the device.");
#endif
}

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct scan_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  template <class In, class T, class Op>
  static void inclusive(const policy_type& policy, device_span<const In> in, device_span<T> out,
                        Op op) {
    check_cuda_scan_types<In, T, Op>();
    cuda::scan<S, In, T, Op>(cuda::options_of(policy), in.data(), out.data(), in.size(),
                             cuda::scan_kind::inclusive, nullptr, nullptr, op);
  }

  template <class In, class T, class Op>
  static void exclusive(const policy_type& policy, device_span<const In> in, device_span<T> out,
                        T init, Op op) {
    check_cuda_scan_types<In, T, Op>();
    cuda::scan<S, In, T, Op>(cuda::options_of(policy), in.data(), out.data(), in.size(),
                             cuda::scan_kind::exclusive, &init, nullptr, op);
  }

  /// \brief parprim::exact_plus on float or double (`F`, the output's type): every output is
  /// the exact prefix rounded once (kernels/scan_exact_sum.cuh), whatever the rung. The
  /// exclusive scan's `init` comes as the superaccumulator of it (detail/exact_dispatch.hpp).
  template <class In, class F>
  static void inclusive(const policy_type& policy, device_span<const In> in, device_span<F> out,
                        exact_sum<F>) {
    check_exact_scan_types<In, F>();
    cuda::exact_scan<In, F>(cuda::options_of(policy), in.data(), out.data(), in.size(),
                            cuda::scan_kind::inclusive, nullptr, nullptr);
  }
  template <class In, class F>
  static void exclusive(const policy_type& policy, device_span<const In> in, device_span<F> out,
                        exact_accumulator<F> init, exact_sum<F>) {
    check_exact_scan_types<In, F>();
    cuda::exact_scan<In, F>(cuda::options_of(policy), in.data(), out.data(), in.size(),
                            cuda::scan_kind::exclusive, &init, nullptr);
  }

  /// \brief parprim::transform_inclusive_scan / transform_exclusive_scan: rung `S` reading
  /// `T(f(in[i]))` where it reads elements (rung 6 stages raw bytes: a transform runs rung 5's
  /// tile). `f` is device code: nvcc translation units only.
  template <class In, class F, class T, class Op>
  static void inclusive(const policy_type& policy,
                        const unary_transform_view<device_span<const In>, F>& in,
                        device_span<T> out, Op op) {
    transform(policy, in, out, cuda::scan_kind::inclusive, static_cast<const T*>(nullptr), op);
  }
  template <class In, class F, class T, class Op>
  static void exclusive(const policy_type& policy,
                        const unary_transform_view<device_span<const In>, F>& in,
                        device_span<T> out, T init, Op op) {
    transform(policy, in, out, cuda::scan_kind::exclusive, &init, op);
  }

  template <class In, class Fn, class F>
  static void inclusive(const policy_type& policy,
                        const unary_transform_view<device_span<const In>, Fn>& in,
                        device_span<F> out, exact_sum<F>) {
    transform_exact(policy, in, out, cuda::scan_kind::inclusive,
                    static_cast<const exact_accumulator<F>*>(nullptr));
  }
  template <class In, class Fn, class F>
  static void exclusive(const policy_type& policy,
                        const unary_transform_view<device_span<const In>, Fn>& in,
                        device_span<F> out, exact_accumulator<F> init, exact_sum<F>) {
    transform_exact(policy, in, out, cuda::scan_kind::exclusive, &init);
  }

  /// \brief Host ranges are a compile error.
  template <class In, class Out, class... Rest>
  static void inclusive(const policy_type&, std::span<const In>, std::span<Out>, Rest&&...) {
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim scans with parprim::cuda read and write device memory: pass "
                  "parprim::device_span<T> (e.g. parprim::device_buffer<T>::span()), not host "
                  "ranges, or use a host policy (parprim::seq, parprim::omp).");
  }
  template <class In, class Out, class... Rest>
  static void exclusive(const policy_type&, std::span<const In>, std::span<Out>, Rest&&...) {
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim scans with parprim::cuda read and write device memory: pass "
                  "parprim::device_span<T> (e.g. parprim::device_buffer<T>::span()), not host "
                  "ranges, or use a host policy (parprim::seq, parprim::omp).");
  }

 private:
  template <class In, class F>
  static constexpr void check_exact_scan_types() {
    static_assert(std::is_convertible_v<const In&, F>,
                  "parprim exact_plus scans on parprim::cuda: the elements must convert to the "
                  "output's float or double type");
#if !defined(__CUDACC__)
    static_assert(cuda::precompiled_exact_scan_v<In, F>,
                  "parprim exact_plus scans on parprim::cuda from a translation unit not compiled "
                  "by nvcc: the parprim::cuda library holds them for float and double elements "
                  "into outputs of the same type. For other element types, make this a .cu file "
                  "compiled by nvcc.");
#endif
  }

  template <class In, class Fn, class F>
  static void transform_exact(const policy_type& policy,
                              const unary_transform_view<device_span<const In>, Fn>& in,
                              device_span<F> out, cuda::scan_kind kind,
                              const exact_accumulator<F>* init) {
#if defined(__CUDACC__)
    cuda::exact_transform_scan(cuda::options_of(policy), in.base().data(), out.data(), in.size(),
                               kind, init, in.function());
#else
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim::transform_*_scan(parprim::cuda, ...): the transform runs on the GPU, "
                  "so this call must be compiled by nvcc (a .cu file), with f callable on the "
                  "device (__host__ __device__ or __device__)");
    (void)policy, (void)in, (void)out, (void)kind, (void)init;
#endif
  }

  template <class In, class F, class T, class Op>
  static void transform(const policy_type& policy,
                        const unary_transform_view<device_span<const In>, F>& in,
                        device_span<T> out, cuda::scan_kind kind, const T* init, Op op) {
#if defined(__CUDACC__)
    static_assert(
        std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> && alignof(T) <= 16,
        "parprim CUDA scans: the output type must be trivially copyable, default "
        "constructible and aligned to at most 16 bytes");
    cuda::transform_scan<S>(cuda::options_of(policy), in.base().data(), out.data(), in.size(), kind,
                            init, op, in.function());
#else
    static_assert(cuda_scan_always_false_v<In>,
                  "parprim::transform_*_scan(parprim::cuda, ...): the transform runs on the GPU, "
                  "so this call must be compiled by nvcc (a .cu file), with f callable on the "
                  "device (__host__ __device__ or __device__)");
    (void)policy, (void)in, (void)out, (void)kind, (void)init, (void)op;
#endif
  }
};

}  // namespace parprim::detail
