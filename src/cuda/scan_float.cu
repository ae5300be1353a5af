/// \file
/// \brief Precompiled CUDA scans and segmented scans for float: every rung x {plus,
/// minimum, maximum} (PARPRIM_CUDA_SCAN_FOR_ALL in detail/scan_entry.hpp), and
/// parprim::exact_plus's exact scan.

#include <parprim/backends/cuda/detail/scan_dispatch.cuh>

PARPRIM_CUDA_SCAN_FOR_TYPE(PARPRIM_CUDA_SCAN_INSTANTIATE, float)
template PARPRIM_CUDA_EXACT_SCAN_SIGNATURE(float);
