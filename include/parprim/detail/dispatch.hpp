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

/// \brief `T` is a complete type here: for a dispatch point, its backend is included (the
/// front ends' check, detail/concepts.hpp, names the CMake target when it is not).
template <class T>
concept complete_type = requires {
  sizeof(T);
};

}  // namespace parprim::detail
