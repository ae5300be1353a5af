/// \file
/// \brief CUB's matrix cells of int64, float and double with plus, minimum and maximum
/// (matrix_cub.cuh).

#include "matrix_cub.cuh"

namespace parprim_bench::cuda {

PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, std::int64_t, std::int64_t)
PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, float, float)
PARPRIM_MATRIX_BUILTIN_CELLS(cub_call, double, double)

}  // namespace parprim_bench::cuda
