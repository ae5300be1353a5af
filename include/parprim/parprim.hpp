#pragma once
/// \file
/// \brief Everything: the policies, the operators, the primitives, and every backend this
/// translation unit can use. A backend is enabled by linking its CMake target
/// (parprim::openmp, ...), which defines its `PARPRIM_HAS_<BACKEND>` macro; the one `#if` per
/// optional backend below is the only place that looks at those macros. The CUDA policy and
/// `device_span` (which name no CUDA type) are declared in every translation unit, so that a
/// call with `parprim::cuda` where the CUDA backend is not linked says which target to link.

#include <parprim/by_key.hpp>
#include <parprim/check_operators.hpp>
#include <parprim/config.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/device_span.hpp>
#include <parprim/error.hpp>
#include <parprim/operators.hpp>
#include <parprim/policy.hpp>
#include <parprim/reduce.hpp>
#include <parprim/reduce_into.hpp>
#include <parprim/scan.hpp>
#include <parprim/segmented_reduce.hpp>
#include <parprim/segmented_scan.hpp>
#include <parprim/transform_reduce.hpp>
#include <parprim/transform_scan.hpp>

#include <parprim/backends/seq/seq.hpp>

#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/openmp.hpp>
#endif

#if defined(PARPRIM_HAS_MPI) && PARPRIM_HAS_MPI
#include <parprim/backends/mpi/mpi.hpp>
#endif

#if defined(PARPRIM_HAS_CUDA) && PARPRIM_HAS_CUDA
#include <parprim/backends/cuda/cuda.hpp>
#endif
