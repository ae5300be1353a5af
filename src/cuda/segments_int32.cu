/// \file
/// \brief Precompiled CUDA per-segment reductions (segmented_reduce with head flags and with
/// offsets, reduce_by_key) for std::int32_t: {plus, minimum, maximum} x every key and offset type
/// (detail/segments_entry.hpp).

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>

PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_INSTANTIATE, std::int32_t)
