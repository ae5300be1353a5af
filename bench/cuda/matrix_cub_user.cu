/// \file
/// \brief CUB's matrix cells of the user structs (matrix_cub.cuh): arg_f32_u32 with argmin,
/// affine_f64 with affine_compose.

#include "matrix_cub.cuh"

namespace parprim_bench::cuda {

PARPRIM_MATRIX_CELLS(cub_call, arg_f32_u32, arg_f32_u32, argmin)
PARPRIM_MATRIX_CELLS(cub_call, affine_f64, affine_f64, affine_compose)

}  // namespace parprim_bench::cuda
