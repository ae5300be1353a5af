/// \file
/// \brief CUB's matrix cells of the 1- and 4-byte types (matrix_cub.cuh): int8 into int32,
/// int32, uint32 with plus, minimum and maximum.

#include "matrix_cub.cuh"

namespace parprim_bench::cuda {

PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, std::int8_t, std::int32_t)
PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, std::int32_t, std::int32_t)
PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, std::uint32_t, std::uint32_t)

}  // namespace parprim_bench::cuda
