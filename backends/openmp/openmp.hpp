#pragma once
/// \file
/// \brief The OpenMP backend: the cost-optimal two-level algorithms of the lecture notes.
/// Each thread works on one contiguous block; block results are combined in thread order,
/// so non-commutative operators keep sequence order and results are deterministic for a
/// given thread count. Enabled by linking parprim::openmp.

#if !defined(_OPENMP)
#error \
    "parprim's OpenMP backend needs OpenMP: link the parprim::openmp target (or compile with -fopenmp)"
#endif

#include <parprim/backends/openmp/by_key.hpp>
#include <parprim/backends/openmp/reduce.hpp>
#include <parprim/backends/openmp/scan.hpp>
#include <parprim/backends/openmp/segmented_reduce.hpp>
#include <parprim/backends/openmp/segmented_scan.hpp>
