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

  /// \brief parprim::reduce_into: the fold written to `out[0]` (device memory) in stream order.
  template <class In, class T, class Op>
  static void into(const policy_type& policy, device_span<const In> in, device_span<T> out, T init,
                   Op op) {
    check_types<In, T, Op>();
    cuda::reduce_into<R, In, T, Op>(cuda::options_of(policy), in.data(), in.size(), out.data(),
                                    std::move(init), op);
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
  /// \brief parprim::transform_reduce_into.
  template <class View, class T, class Op>
  requires is_transform_view_v<View>
  static void into(const policy_type& policy, const View& in, device_span<T> out, T init, Op op) {
    transform(policy, in, out.data(), &init, op);
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
