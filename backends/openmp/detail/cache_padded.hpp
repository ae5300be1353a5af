#pragma once
/// \file
/// \brief One value per cache line, so per-thread partials never share a line (no false
/// sharing). bench/reduce/false_sharing.cpp measures the padded layout against a packed one.

#include <cstddef>
#include <new>

namespace parprim::openmp::detail {

/// \brief Destructive interference size; 64 bytes on the x86-64 and Arm cores we target
/// (std::hardware_destructive_interference_size is not ABI-stable across compilers).
inline constexpr std::size_t cache_line = 64;

/// \brief A `T` alone on its cache line(s).
template <class T>
struct alignas(cache_line) cache_padded {
  T value;
};

}  // namespace parprim::openmp::detail
