/// \file
/// \brief Precompiled CUDA per-segment reductions (segmented_reduce with head flags and with
/// offsets, reduce_by_key) for float: {plus, minimum, maximum} x every key and offset type
/// (detail/segments_entry.hpp), and parprim::exact_plus's exact per-segment calls
/// (detail/exact_segments_entry.hpp).

#include <parprim/backends/cuda/detail/exact_segments_launch.cuh>
#include <parprim/backends/cuda/detail/segments_dispatch.cuh>

PARPRIM_CUDA_SEGMENTS_FOR_OPS(PARPRIM_CUDA_SEGMENTS_INSTANTIATE, float)
PARPRIM_CUDA_EXACT_SEGMENTS_DECLARE(template, float)
