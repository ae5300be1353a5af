#pragma once
/// \file
/// \brief The dispatch points: one class template per primitive, left undefined. Each backend
/// specialises them for its policy type, so a policy without a backend is a compile error.

#include <type_traits>

#include <parprim/detail/policy_traits.hpp>

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
/// - optionally `static constexpr bool checks_offsets_while_reducing = true` and
///   `static void reduce_offsets_checking(...)`, with reduce_offsets' parameters: both members
///   in one call (the same errors, nothing written before them), which the front end then makes
///   instead (CUDA checks the offsets in the reduction's own pass).
template <class Policy>
struct segmented_reduce_impl;

/// \brief Whether a per-segment `Impl` checks CSR offsets in its reduction (see above).
template <class Impl>
inline constexpr bool checks_offsets_while_reducing_v = requires {
  requires Impl::checks_offsets_while_reducing;
};

/// \brief Whether a per-segment `Impl` also counts while it reduces, for outputs with room for
/// n results (the front ends then make one call instead of a plan and a reduction):
/// `static constexpr bool counts_while_reducing = true` and
/// - segmented_reduce_impl: `static std::size_t reduce_flags_counting(const Policy&, InputSpan
///   in, FlagSpan flags, OutputSpan out, T init, Op op)`;
/// - reduce_by_key_impl: `static std::size_t reduce_counting(const Policy&, KeySpan keys,
///   InputSpan in, KeyOutputSpan keys_out, OutputSpan out, Op op)`;
/// each returning the number of segments. exact_plus on float or double keeps the plan and the
/// reduction (its exact passes take the count).
template <class Impl>
inline constexpr bool counts_while_reducing_v = requires {
  requires Impl::counts_while_reducing;
};

/// \brief Whether a per-segment `Impl` that counts while it reduces also takes outputs with room
/// for fewer than n results in that call (`static constexpr bool reduces_into_room = true`): it
/// then writes them only when every result fits, and returns the count either way (the front
/// end raises when it exceeds the room, nothing having been written). The front end then calls
/// the plan and its reduction only for exact_plus on float or double.
template <class Impl>
inline constexpr bool reduces_into_room_v = requires {
  requires Impl::reduces_into_room;
};

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

/// \brief `T` is a complete type here: for a dispatch point, its backend is included (the
/// front ends' check, detail/concepts.hpp, names the CMake target when it is not).
template <class T>
concept complete_type = requires {
  sizeof(T);
};

/// \brief Whether `Policy` is a CUDA policy.
template <class Policy>
inline constexpr bool is_cuda_policy_v =
    policy_traits<std::remove_cvref_t<Policy>>::kind == policy_kind::cuda;

}  // namespace parprim::detail
