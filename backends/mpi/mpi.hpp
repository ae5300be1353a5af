#pragma once
/// \file
/// \brief The MPI backend: `parprim::mpi(comm)` runs reduce, scan, segmented scan and the
/// per-segment results (segmented_reduce, reduce_by_key, the scans by key) over the
/// ranks of a communicator, each rank holding one block of the global sequence (rank order is
/// sequence order) and processing it with a local policy. Enabled by linking parprim::mpi.
///
/// Built-in types and operators map to MPI's predefined datatypes and operations; user structs
/// become derived datatypes (`PARPRIM_MPI_STRUCT`, datatype.hpp) and user operators user
/// `MPI_Op`s (detail/op.hpp), so non-commutative operators give the sequential left fold.
///
/// With the CUDA backend in the translation unit (PARPRIM_HAS_CUDA), `.local(parprim::cuda)`
/// keeps each rank's block in its GPU's memory (`parprim::device_span`); see
/// detail/local_cuda.hpp (which GPU, traffic per primitive) and `parprim::mpi_local_device`.

#if !__has_include(<mpi.h>)
#error \
    "parprim's MPI backend needs MPI (mpi.h): link the parprim::mpi target (or compile with mpicxx)"
#endif

#include <parprim/backends/seq/seq.hpp>
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/openmp.hpp>
#endif

#include <parprim/backends/mpi/by_key.hpp>
#include <parprim/backends/mpi/datatype.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/backends/mpi/reduce.hpp>
#include <parprim/backends/mpi/scan.hpp>
#include <parprim/backends/mpi/segmented_reduce.hpp>
#include <parprim/backends/mpi/segmented_scan.hpp>
#include <parprim/backends/mpi/transform.hpp>

// .local(parprim::cuda): device blocks, one GPU per rank (detail/local_cuda.hpp).
#if defined(PARPRIM_HAS_CUDA) && PARPRIM_HAS_CUDA
#include <parprim/backends/mpi/detail/local_cuda.hpp>
#endif
