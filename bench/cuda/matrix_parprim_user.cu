/// \file
/// \brief parprim's matrix cells (matrix_calls.hpp) that libparprim_cuda does not precompile
/// (matrix_bench.hpp): int8 into int32 with plus, minimum and maximum, and the user structs with
/// their operators; nvcc instantiates the kernels of the default rungs here.

#include "matrix_calls.hpp"

namespace parprim_bench::cuda {

PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, std::int8_t, std::int32_t)
PARPRIM_MATRIX_CELLS(parprim_call, arg_f32_u32, arg_f32_u32, argmin)
PARPRIM_MATRIX_CELLS(parprim_call, affine_f64, affine_f64, affine_compose)

}  // namespace parprim_bench::cuda
