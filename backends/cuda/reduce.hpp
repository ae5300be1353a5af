#pragma once
/// \file
/// \brief CUDA reduce: the host-side specialisation `reduce_impl<basic_cuda_policy<R>>`.
///
/// Compile-time checks live here, so they fire in plain C++ and CUDA translation units alike:
/// host ranges are refused, reordering rungs need commutative operators, and a g++ translation
/// unit may only use the combinations precompiled in the `parprim::cuda` library. Under nvcc
/// the kernels are included too, so any type and device-callable operator works there.

#include <span>
#include <type_traits>
#include <utility>

#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/device_span.hpp>
#include <parprim/operators.hpp>

#if defined(__CUDACC__)
#include <parprim/backends/cuda/detail/reduce_dispatch.cuh>
#endif

namespace parprim::detail {

template <class>
inline constexpr bool cuda_always_false_v = false;

/// \brief A transform view whose inputs are device spans.
template <class View>
inline constexpr bool cuda_transform_view_v = false;
template <class In, class F>
inline constexpr bool cuda_transform_view_v<unary_transform_view<device_span<const In>, F>> = true;
template <class In1, class In2, class F>
inline constexpr bool cuda_transform_view_v<
    binary_transform_view<device_span<const In1>, device_span<const In2>, F>> = true;

/// \brief The value of a reduction needs the host to wait for the GPU.
template <bool Sync>
constexpr void require_synchronous_value() {
  static_assert(Sync,
                "parprim::reduce / transform_reduce with parprim::cuda.nosync(): the value would "
                "need the host to wait for the GPU. Use parprim::reduce_into(policy, in, result, "
                "init, op) (or transform_reduce_into) with a parprim::device_span<T> result of "
                "one element: it is written in stream order.");
}

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
inline constexpr bool reduces_into_device_v<basic_cuda_policy<R, S, Sync>> = true;

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct reduce_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  /// \brief `init op in[0] op ... op in[n-1]` on the GPU (n == 0: `init`, no GPU work).
  template <class In, class T, class Op>
  static T apply(const policy_type& policy, device_span<const In> in, T init, Op op) {
    require_synchronous_value<Sync>();
    check_types<In, T, Op>();
    if (in.size() == 0) return init;
    return cuda::reduce<R, In, T, Op>(cuda::options_of(policy), in.data(), in.size(),
                                      std::move(init), op);
  }

  /// \brief parprim::exact_plus on float or double (`F`): `init` plus the exact sum of the
  /// elements, as the superaccumulator that detail/exact_dispatch.hpp rounds (or an MPI rank
  /// sends on). One launch of its own kernel (kernels/reduce_exact_sum.cuh), whatever the
  /// policy's reduce rung: every rung would give these bits.
  template <class In, class F>
  static exact_accumulator<F> apply(const policy_type& policy, device_span<const In> in,
                                    exact_accumulator<F> init, exact_sum<F>) {
    require_synchronous_value<Sync>();
    check_exact_types<In, F>();
    return cuda::exact_fold<In, F>(cuda::options_of(policy), in.data(), in.size(), init);
  }

  /// \brief parprim::reduce_into: the fold written to `out[0]` (device memory) in stream order.
  template <class In, class T, class Op>
  static void into(const policy_type& policy, device_span<const In> in, device_span<T> out, T init,
                   Op op) {
    if constexpr (runs_exact_sum_v<Op, T>) {
      check_exact_types<In, T>();
      cuda::exact_reduce_into<In, T>(cuda::options_of(policy), in.data(), in.size(), out.data(),
                                     init);
    } else if constexpr (is_exact_plus_v<Op>) {
      into(policy, in, out, std::move(init), plus{});  // integers: exact_plus is plus
    } else {
      check_types<In, T, Op>();
      cuda::reduce_into<R, In, T, Op>(cuda::options_of(policy), in.data(), in.size(), out.data(),
                                      std::move(init), op);
    }
  }

  /// \brief parprim::transform_reduce (one or two inputs): one launch of rung 7's
  /// order-preserving body reading `T(f(...))` where it reads elements; any operator; the
  /// policy's reduce rung does not apply. `f` is device code: nvcc translation units only.
  template <class View, class T, class Op>
  requires is_transform_view_v<View>
  static T apply(const policy_type& policy, const View& in, T init, Op op) {
    require_synchronous_value<Sync>();
    T result = init;
    transform(policy, in, static_cast<T*>(nullptr), &result, op);
    return result;
  }
  /// \brief parprim::transform_reduce with exact_plus on float or double: as the exact `apply`
  /// above, the elements being `F(f(...))`.
  template <class View, class F>
  requires is_transform_view_v<View>
  static exact_accumulator<F> apply(const policy_type& policy, const View& in,
                                    exact_accumulator<F> init, exact_sum<F>) {
    require_synchronous_value<Sync>();
    transform_exact(policy, in, static_cast<F*>(nullptr), &init);
    return init;
  }
  /// \brief parprim::transform_reduce_into.
  template <class View, class T, class Op>
  requires is_transform_view_v<View>
  static void into(const policy_type& policy, const View& in, device_span<T> out, T init, Op op) {
    if constexpr (runs_exact_sum_v<Op, T>) {
      exact_accumulator<T> start(init);
      transform_exact(policy, in, out.data(), &start);
    } else if constexpr (is_exact_plus_v<Op>) {
      transform(policy, in, out.data(), &init, plus{});
    } else {
      transform(policy, in, out.data(), &init, op);
    }
  }

  /// \brief Host ranges are a compile error.
  template <class In, class T, class Op>
  static T apply(const policy_type&, std::span<const In>, T init, Op) {
    host_range_error<In>();
    return init;
  }
  template <class In, class Out, class T, class Op>
  static void into(const policy_type&, std::span<const In>, Out&&, T, Op) {
    host_range_error<In>();
  }

 private:
  template <class In>
  static constexpr void host_range_error() {
    static_assert(cuda_always_false_v<In>,
                  "parprim::reduce(parprim::cuda, ...) reads device memory: pass a "
                  "parprim::device_span<T> (e.g. parprim::device_buffer<T>::span()), not a host "
                  "range. Copy the data to the GPU first, or use a host policy (parprim::seq, "
                  "parprim::omp).");
  }

  template <class In, class T, class Op>
  static constexpr void check_types() {
    static_assert(!cuda_reduce_reorders(R) || is_commutative_v<Op>,
                  "parprim::reduce(parprim::cuda.reduce_kernel(...)): this rung of the ladder "
                  "(k3 to k6) reorders operands, so it accepts only commutative operators. "
                  "Declare the operator commutative (`static constexpr bool is_commutative = "
                  "true;` or a parprim::operator_traits specialisation) if it is; otherwise use "
                  "the default kernel (k7_vectorized_single_pass), k1 or k2, which keep sequence "
                  "order.");
    static_assert(std::is_trivially_copyable_v<In> && std::is_trivially_copyable_v<T>,
                  "parprim::reduce(parprim::cuda, ...): element and accumulator types must be "
                  "trivially copyable (they are copied to and from the GPU as bytes)");
    static_assert(std::is_default_constructible_v<T> && alignof(T) <= 16,
                  "parprim::reduce(parprim::cuda, ...): the accumulator type must be default "
                  "constructible and aligned to at most 16 bytes");
    static_assert(
        std::is_constructible_v<T, const In&> && std::is_invocable_v<const Op&, const T&, const T&>,
        "parprim::reduce(parprim::cuda, ...): the GPU combines partial results, so the "
        "accumulator type T must be constructible from the element type and "
        "op(T, T) must be valid");
#if !defined(__CUDACC__)
    static_assert(cuda::precompiled_reduce_v<In, T, Op>,
                  "parprim::reduce(parprim::cuda, ...) from a translation unit not compiled by "
                  "nvcc: only the combinations precompiled in the parprim::cuda library are "
                  "available here (element type = init type = int32_t, uint32_t, int64_t, "
                  "uint64_t, float or double, with parprim::plus, minimum or maximum). For other "
                  "types or operators, make this a .cu file compiled by nvcc (the kernels are "
                  "templates); the operator must then be callable on the device.");
#endif
  }

#if defined(__CUDACC__)
  /// \brief `run(load)` with the device load of a transform view: element i as `T(f(...))`.
  template <class T, class View, class Run>
  static void with_load(const View& in, const Run& run) {
    if constexpr (requires { in.base2(); }) {
      using load =
          cuda::binary_transform_load<typename View::source1_type, typename View::source2_type, T,
                                      typename View::function_type>;
      run(load{in.base1().data(), in.base2().data(), in.function()});
    } else {
      using load =
          cuda::unary_transform_load<typename View::source_type, T, typename View::function_type>;
      run(load{in.base().data(), in.function()});
    }
  }
#endif

  template <class In, class F>
  static constexpr void check_exact_types() {
    static_assert(std::is_convertible_v<const In&, F>,
                  "parprim::reduce(parprim::cuda, ..., parprim::exact_plus{}): the elements must "
                  "convert to the accumulator type (float or double)");
#if !defined(__CUDACC__)
    static_assert(cuda::precompiled_exact_v<In, F>,
                  "parprim::reduce(parprim::cuda, ..., parprim::exact_plus{}) from a translation "
                  "unit not compiled by nvcc: the parprim::cuda library holds the exact sum of "
                  "float elements into float and of double elements into double. For other "
                  "element types, make this a .cu file compiled by nvcc.");
#endif
  }

  /// \brief The transforms' exact sum (float or double `F`): rounded into `out` (device) when
  /// given, else the superaccumulator into `*acc` (which holds init on entry).
  template <class View, class F>
  static void transform_exact(const policy_type& policy, const View& in, F* out,
                              exact_accumulator<F>* acc) {
    static_assert(cuda_transform_view_v<View>,
                  "parprim::transform_reduce(parprim::cuda, ...) reads device memory: pass "
                  "parprim::device_span<T> inputs, not host ranges.");
#if defined(__CUDACC__)
    const cuda::launch_options options = cuda::options_of(policy);
    const auto run = [&](const auto& load) {
      if (out != nullptr)
        cuda::run_exact_into(options, load, in.size(), out, acc->template round<F>(),
                             "transform_reduce_into");
      else
        *acc = cuda::run_exact_fold<F>(options, load, in.size(), *acc);
    };
    with_load<F>(in, run);
#else
    static_assert(cuda_always_false_v<View>,
                  "parprim::transform_reduce(parprim::cuda, ...): the transform runs on the GPU, "
                  "so this call must be compiled by nvcc (a .cu file), with f callable on the "
                  "device (__host__ __device__ or __device__)");
    (void)policy, (void)in, (void)out, (void)acc;
#endif
  }

  /// \brief The transforms' reduction: into `out` (device) when given, else into `*result`
  /// (host, synchronous); `*result` holds init on entry.
  template <class View, class T, class Op>
  static void transform(const policy_type& policy, const View& in, T* out, T* result, Op op) {
    static_assert(cuda_transform_view_v<View>,
                  "parprim::transform_reduce(parprim::cuda, ...) reads device memory: pass "
                  "parprim::device_span<T> inputs, not host ranges.");
#if defined(__CUDACC__)
    static_assert(
        std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> && alignof(T) <= 16,
        "parprim::transform_reduce(parprim::cuda, ...): the accumulator type must be "
        "trivially copyable, default constructible and aligned to at most 16 bytes");
    if (out == nullptr && in.size() == 0) return;
    const cuda::launch_options options = cuda::options_of(policy);
    const auto run = [&](const auto& load) {
      if (out != nullptr)
        cuda::transform_reduce_into(options, load, in.size(), out, *result, op);
      else
        *result = cuda::transform_reduce(options, load, in.size(), *result, op);
    };
    with_load<T>(in, run);
#else
    static_assert(cuda_always_false_v<View>,
                  "parprim::transform_reduce(parprim::cuda, ...): the transform runs on the GPU, "
                  "so this call must be compiled by nvcc (a .cu file), with f callable on the "
                  "device (__host__ __device__ or __device__)");
    (void)policy, (void)in, (void)out, (void)result, (void)op;
#endif
  }
};

}  // namespace parprim::detail
