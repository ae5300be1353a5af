/// \file
/// \brief parprim's matrix cells (matrix_calls.hpp) that libparprim_cuda precompiles: int32,
/// uint32, int64, float, double with plus, minimum and maximum, from plain C++ (no nvcc).

#include "matrix_calls.hpp"

namespace parprim_bench::cuda {

PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, std::int32_t, std::int32_t)
PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, std::uint32_t, std::uint32_t)
PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, std::int64_t, std::int64_t)
PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, float, float)
PARPRIM_MATRIX_BUILTIN_CELLS(parprim_call, double, double)

}  // namespace parprim_bench::cuda
