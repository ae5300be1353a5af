/// \file
/// \brief Precompiled CUDA reductions for float: every rung x {plus, minimum, maximum}, and
/// parprim::exact_plus's exact sum
/// (the list is PARPRIM_CUDA_REDUCE_FOR_ALL in detail/reduce_entry.hpp; one type per file
/// keeps each translation unit small enough for a parallel build).

#include <parprim/backends/cuda/detail/reduce_dispatch.cuh>

PARPRIM_CUDA_REDUCE_FOR_TYPE(PARPRIM_CUDA_REDUCE_INSTANTIATE, float)
PARPRIM_CUDA_EXACT_INSTANTIATE(float)
