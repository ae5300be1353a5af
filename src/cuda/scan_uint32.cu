/// \file
/// \brief Precompiled CUDA scans and segmented scans for std::uint32_t: every rung x {plus,
/// minimum, maximum} (PARPRIM_CUDA_SCAN_FOR_ALL in detail/scan_entry.hpp).

#include <parprim/backends/cuda/detail/scan_dispatch.cuh>

PARPRIM_CUDA_SCAN_FOR_TYPE(PARPRIM_CUDA_SCAN_INSTANTIATE, std::uint32_t)
