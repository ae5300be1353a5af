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

/// \brief Whether `reduce_impl<Policy>` writes results to device memory itself (static
/// `into(policy, in, device_span<T> result, T init, Op)`): the CUDA policies (backends/cuda).
template <class Policy>
inline constexpr bool reduces_into_device_v = false;

template <class T>
concept complete_type = requires {
  sizeof(T);
};

/// \brief Readable compile error for a policy whose backend is absent.
template <class Impl>
constexpr void require_backend() {
  static_assert(complete_type<Impl>,
                "parprim: no backend is available for this policy. Build parprim with that "
                "backend and link its target (parprim::openmp, parprim::mpi, parprim::cuda) "
                "or parprim::parprim.");
}

}  // namespace parprim::detail
