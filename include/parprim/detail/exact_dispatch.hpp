#pragma once
/// \file
/// \brief How parprim::exact_plus reaches the backends. Every front end (reduce.hpp, scan.hpp,
/// segmented_scan.hpp, the transforms, and the MPI entry points) calls its backend through the
/// `routed_*` functions below. For any operator but exact_plus they are the backend call
/// itself (a compile-time branch: no cost). For exact_plus:
/// - on an integer accumulator the backend runs parprim::plus;
/// - on a float or double accumulator `F` the backend runs the accumulating operator
///   `exact_sum<F>` (exact_sum.hpp, accumulating.hpp): its partial results, scan carries and
///   MPI messages are `exact_accumulator<F>`, its block folds and block scans are the
///   operator's, an exclusive scan's `init` enters as an accumulator, and a reduction's
///   accumulator is rounded here, once (a scan's outputs are rounded in its block step).
///
/// The reductions take the same route on the GPU: the CUDA backend's `reduce_impl::apply`
/// has overloads for an `exact_accumulator<F>` init with `exact_sum<F>`, which run its exact
/// sum kernel (backends/cuda/kernels/reduce_exact_sum.cuh) and return the superaccumulator.
/// The per-segment reductions (segmented_reduce, reduce_by_key) on the host run the backend
/// into a temporary of superaccumulators (`routed_per_segment`) and round each result once;
/// the scans by key pass `exact_sum<F>` to the backend's segmented scans, as the segmented
/// scans do. The CUDA backend takes `exact_sum<F>` in every scan and per-segment call and
/// writes the rounded results itself (its exact scan kernels, kernels/scan_exact_sum.cuh, and
/// its exact per-segment passes, kernels/segments_exact_sum.cuh). A device input (a
/// `device_span`, or a transform view of one) with exact_plus on float or double through a
/// policy other than parprim::cuda stops here with a compile error that says so, never a
/// plain float sum.

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/cuda_policy.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_sum.hpp>
#include <parprim/detail/transform_view.hpp>
#include <parprim/device_span.hpp>
#include <parprim/operators.hpp>

namespace parprim::detail {

template <class Op>
inline constexpr bool is_exact_plus_v = std::is_same_v<std::remove_cvref_t<Op>, exact_plus>;

/// \brief Whether an input lives in device memory (a `device_span` or a view of one).
template <class Input>
inline constexpr bool device_input_v = false;
template <class T>
inline constexpr bool device_input_v<device_span<T>> = true;
template <class B, class F>
inline constexpr bool device_input_v<unary_transform_view<B, F>> = device_input_v<B>;
template <class B1, class B2, class F>
inline constexpr bool device_input_v<binary_transform_view<B1, B2, F>> = device_input_v<B1>;

/// \brief Whether `Policy` takes exact sums of device inputs in its scans, segmented scans and
/// per-segment calls (the CUDA policies).
template <class Policy>
inline constexpr bool scans_device_exact_v = false;
template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
inline constexpr bool scans_device_exact_v<basic_cuda_policy<R, S, Sync>> = true;

/// \brief Whether a call with `Op` on accumulator `T` runs the exact sum.
template <class Op, class T>
inline constexpr bool runs_exact_sum_v = is_exact_plus_v<Op>&& ieee_bits_v<T>;

template <class>
inline constexpr bool exact_always_false_v = false;

/// \brief Readable compile errors for exact_plus where it is not available: accumulators other
/// than integers, float and double; and (unless `DeviceOk`: the reductions, and the CUDA
/// policies) scans of device inputs.
template <class Op, class T, class Input, bool DeviceOk = false>
constexpr void require_exact_plus_types() {
  if constexpr (is_exact_plus_v<Op>) {
    static_assert(std::is_integral_v<T> || ieee_bits_v<T>,
                  "parprim::exact_plus sums float and double exactly (and integers as "
                  "parprim::plus); for other accumulator types (long double, user types) use "
                  "parprim::plus");
    static_assert(DeviceOk || !(ieee_bits_v<T> && device_input_v<Input>),
                  "parprim::exact_plus on float / double: scans of device memory take exact_plus "
                  "through parprim::cuda (and parprim::mpi(comm).local(parprim::cuda)) only; use "
                  "one of those, or a host policy on host memory.");
  }
}

/// \brief The operator the backend runs for the user's `Op` on a `T` accumulator.
template <class T, class Op>
constexpr auto backend_op(const Op& op) {
  if constexpr (!is_exact_plus_v<Op>) {
    return op;
  } else if constexpr (ieee_bits_v<T>) {
    return exact_sum<T>{};
  } else {
    // every call routes exact_plus through here: the one place that could turn it into a
    // plain sum of a type it does not sum exactly
    require_exact_plus_types<Op, T, void, true>();
    return plus{};
  }
}

/// \brief What an exclusive scan's `init` enters the backend as.
template <class Op, class T>
auto backend_init(const T& init) {
  if constexpr (runs_exact_sum_v<Op, T>)
    return exact_accumulator<T>(init);
  else
    return init;
}

/// \brief A per-segment reduction (segmented_reduce, reduce_by_key), exact_plus routed:
/// `run(results, backend_op)` runs the backend into `results`, `count` results. For exact_plus
/// on a float or double `Out` in host memory they are superaccumulators in a temporary (the
/// backend's init then is `backend_init<Op>(init)`), each rounded once into `out` afterwards;
/// in device memory (the CUDA backend: the front ends' range checks let device memory through
/// with CUDA policies only) `results` is `out`, which the backend's exact per-segment passes
/// write rounded; otherwise `results` is `out` itself.
template <class Op, class Output, class Run>
void routed_per_segment(const Output& out, std::size_t count, const Op& op, const Run& run) {
  using Out = typename Output::value_type;
  if constexpr (runs_exact_sum_v<Op, Out>) {
    if constexpr (device_input_v<Output>) {
      run(out, exact_sum<Out>{});
    } else {
      std::vector<exact_accumulator<Out>> results(count);
      run(std::span<exact_accumulator<Out>>(results), exact_sum<Out>{});
      for (std::size_t s = 0; s < count; ++s) out[s] = results[s].template round<Out>();
    }
  } else {
    run(out, backend_op<Out>(op));
  }
}

/// \brief How a per-segment front end (segmented_reduce with flags, reduce_by_key) calls `Impl`
/// for `Op` into accumulators `T`. Where the backend counts while it reduces
/// (counts_while_reducing_v; exact_plus on float or double excepted), `counted(backend)` makes
/// one call and returns the count: always when the backend reduces into any room
/// (reduces_into_room_v: the planned path is then not instantiated), else when `room_for_n`.
/// Otherwise `planned(backend)` makes the plan, then the reduction (routed_per_segment).
/// `backend` is a `std::type_identity<Impl>`: the two are generic lambdas, and only the path
/// taken is instantiated (a backend without the one call has no `*_counting` function).
template <class Impl, class Op, class T, class Counted, class Planned>
std::size_t per_segment_call(bool room_for_n, const Counted& counted, const Planned& planned) {
  constexpr std::type_identity<Impl> backend{};
  constexpr bool counts = counts_while_reducing_v<Impl> && !runs_exact_sum_v<Op, T>;
  if constexpr (counts && reduces_into_room_v<Impl>) {
    return counted(backend);
  } else {
    if constexpr (counts)
      if (room_for_n) return counted(backend);
    return planned(backend);
  }
}

/// \brief `Impl::apply(policy, in, init, op)`, exact_plus routed.
template <class Impl, class Policy, class Input, class T, class Op>
T routed_reduce(const Policy& policy, const Input& in, T init, const Op& op) {
  require_exact_plus_types<Op, T, Input, true>();
  if constexpr (runs_exact_sum_v<Op, T>) {
    return Impl::apply(policy, in, exact_accumulator<T>(init), exact_sum<T>{}).template round<T>();
  } else {
    return Impl::apply(policy, in, std::move(init), backend_op<T>(op));
  }
}

/// \brief `Impl::inclusive(policy, in, out, op)`, exact_plus routed.
template <class Impl, class Policy, class Input, class Output, class Op>
void routed_inclusive(const Policy& policy, const Input& in, const Output& out, const Op& op) {
  using Out = typename Output::value_type;
  constexpr bool device_ok = scans_device_exact_v<Policy>;
  require_exact_plus_types<Op, Out, Input, device_ok>();
  if constexpr (device_ok || !(runs_exact_sum_v<Op, Out> && device_input_v<Input>))
    Impl::inclusive(policy, in, out, backend_op<Out>(op));
}

/// \brief `Impl::exclusive(policy, in, out, init, op)`, exact_plus routed.
template <class Impl, class Policy, class Input, class Output, class Op>
void routed_exclusive(const Policy& policy, const Input& in, const Output& out,
                      const typename Output::value_type& init, const Op& op) {
  using Out = typename Output::value_type;
  constexpr bool device_ok = scans_device_exact_v<Policy>;
  require_exact_plus_types<Op, Out, Input, device_ok>();
  if constexpr (device_ok || !(runs_exact_sum_v<Op, Out> && device_input_v<Input>))
    Impl::exclusive(policy, in, out, backend_init<Op>(init), backend_op<Out>(op));
}

/// \brief `Impl::inclusive(policy, in, flags, out, op)` (segmented), exact_plus routed.
template <class Impl, class Policy, class Input, class Flags, class Output, class Op>
void routed_segmented_inclusive(const Policy& policy, const Input& in, const Flags& flags,
                                const Output& out, const Op& op) {
  using Out = typename Output::value_type;
  constexpr bool device_ok = scans_device_exact_v<Policy>;
  require_exact_plus_types<Op, Out, Input, device_ok>();
  if constexpr (device_ok || !(runs_exact_sum_v<Op, Out> && device_input_v<Input>))
    Impl::inclusive(policy, in, flags, out, backend_op<Out>(op));
}

/// \brief `Impl::exclusive(policy, in, flags, out, init, op)` (segmented), exact_plus routed.
template <class Impl, class Policy, class Input, class Flags, class Output, class Op>
void routed_segmented_exclusive(const Policy& policy, const Input& in, const Flags& flags,
                                const Output& out, const typename Output::value_type& init,
                                const Op& op) {
  using Out = typename Output::value_type;
  constexpr bool device_ok = scans_device_exact_v<Policy>;
  require_exact_plus_types<Op, Out, Input, device_ok>();
  if constexpr (device_ok || !(runs_exact_sum_v<Op, Out> && device_input_v<Input>))
    Impl::exclusive(policy, in, flags, out, backend_init<Op>(init), backend_op<Out>(op));
}

}  // namespace parprim::detail
