#pragma once
/// \file
/// \brief The dispatch points: one class template per primitive, left undefined. Each backend
/// specialises them for its policy type, so a policy without a backend is a compile error.

#include <type_traits>

namespace parprim::detail {

/// \brief `static T apply(const Policy&, InputSpan, T init, Op)`.
template <class Policy>
struct reduce_impl;

/// \brief `static void inclusive(const Policy&, InputSpan, OutputSpan, Op)` and
/// `static void exclusive(const Policy&, InputSpan, OutputSpan, T init, Op)`.
template <class Policy>
struct scan_impl;

/// \brief As `scan_impl`, with a `FlagSpan` of head flags after the input.
template <class Policy>
struct segmented_scan_impl;

/// \brief Per-segment reductions (segmented_reduce.hpp). Before any member runs, the front end
/// has checked what needs no pass over the data: the operator contract (compile time), sizes,
/// null data, overlaps (the reductions are never in place), and on host ranges the operator's
/// laws (PARPRIM_CHECK_OPERATORS). The spans are the policy's (`std::span` on the host,
/// `device_span` for CUDA); `T` is the output's value type. Head flags:
/// - `static Plan plan_flags(const Policy&, FlagSpan flags)`: counts the segments (element 0 and
///   every non-zero flag start one) and keeps what the reduction may reuse; `Plan` has
///   `std::size_t segments() const`. Writes nothing: the front end then checks that `out` has
///   room for `plan.segments()` results.
/// - `static void reduce_flags(const Policy&, const Plan&, InputSpan in, FlagSpan flags,
///   OutputSpan out, T init, Op op)`: `out[s] = init op (segment s's elements, in order)` for
///   every segment s.
/// CSR begin offsets (k + 1 of them; the front end has checked their count and `out`'s size k):
/// - `static void check_offsets(const Policy&, OffsetSpan offsets, std::size_t n,
///   const char* fn)`: raises parprim::invalid_argument unless the first is 0, the last n and
///   none decreases (detail/offsets.hpp words the errors). Writes nothing.
/// - `static void reduce_offsets(const Policy&, InputSpan in, OffsetSpan offsets,
///   OutputSpan out, T init, Op op)`: `out[s]` over [offsets[s], offsets[s + 1]) (`init` when
///   empty).
template <class Policy>
struct segmented_reduce_impl;

/// \brief reduce_by_key (by_key.hpp):
/// - `static Plan plan(const Policy&, KeySpan keys)`: counts the runs of equal keys; `Plan` has
///   `std::size_t segments() const`. Writes nothing.
/// - `static void reduce(const Policy&, const Plan&, KeySpan keys, InputSpan in,
///   KeyOutputSpan keys_out, OutputSpan out, Op op)`: for run s, `keys_out[s]` = its first key,
///   `out[s]` = the fold of its elements (as `T`), in order.
template <class Policy>
struct reduce_by_key_impl;

/// \brief The scans by key (by_key.hpp): `static void inclusive(const Policy&, KeySpan keys,
/// InputSpan in, OutputSpan out, Op op)` and `static void exclusive(const Policy&, KeySpan keys,
/// InputSpan in, OutputSpan out, T init, Op op)`: segmented scans whose segments are the runs
/// of equal keys. `out` may be `in`.
template <class Policy>
struct scan_by_key_impl;

/// \brief Whether `reduce_impl<Policy>` writes results to device memory itself (static
/// `into(policy, in, device_span<T> result, T init, Op)`): the CUDA policies (backends/cuda).
template <class Policy>
inline constexpr bool reduces_into_device_v = false;

template <class T>
concept complete_type = requires {
  sizeof(T);
};

/// \brief Whether `Policy` is a CUDA policy (specialised in cuda_policy.hpp).
template <class Policy>
inline constexpr bool is_cuda_policy_v = false;

/// \brief Readable compile error for a policy whose backend is absent.
template <class Impl>
constexpr void require_backend() {
  static_assert(complete_type<Impl>,
                "parprim: no backend is available for this policy. Build parprim with that "
                "backend and link its target (parprim::openmp, parprim::mpi, parprim::cuda) "
                "or parprim::parprim.");
}

/// \brief As require_backend, for the per-segment primitives (segmented_reduce, reduce_by_key,
/// inclusive_scan_by_key, exclusive_scan_by_key), which the CUDA backend does not provide yet:
/// a CUDA policy gets a message that says so. A front end makes one of these first
/// (`require_per_segment_backend<impl, Policy>{}`: a class, so that its message comes before
/// the errors of the rest of the call). It passes as soon as the CUDA backend specialises
/// `Impl` (segmented_reduce_impl, reduce_by_key_impl, scan_by_key_impl).
template <class Impl, class Policy>
struct require_per_segment_backend {
  static_assert(complete_type<Impl> || !is_cuda_policy_v<Policy>,
                "parprim: segmented_reduce, reduce_by_key, inclusive_scan_by_key and "
                "exclusive_scan_by_key are not available with parprim::cuda yet: run them "
                "with parprim::seq, parprim::omp or parprim::mpi(comm) on host memory");
  static_assert(complete_type<Impl> || is_cuda_policy_v<Policy>,
                "parprim: no backend is available for this policy. Build parprim with that "
                "backend and link its target (parprim::openmp, parprim::mpi, parprim::cuda) "
                "or parprim::parprim.");
};

}  // namespace parprim::detail
