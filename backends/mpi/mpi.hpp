#pragma once
/// \file
/// \brief The MPI backend: `parprim::mpi(comm)` runs reduce, scan and segmented scan over the
/// ranks of a communicator, each rank holding one block of the global sequence (rank order is
/// sequence order) and processing it with a local policy. Enabled by linking parprim::mpi.
///
/// Built-in types and operators map to MPI's predefined datatypes and operations; user structs
/// become derived datatypes (`PARPRIM_MPI_STRUCT`, datatype.hpp) and user operators user
/// `MPI_Op`s (detail/op.hpp), so non-commutative operators give the sequential left fold.

#if !__has_include(<mpi.h>)
#error \
    "parprim's MPI backend needs MPI (mpi.h): link the parprim::mpi target (or compile with mpicxx)"
#endif

#include <parprim/backends/seq/seq.hpp>
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
#include <parprim/backends/openmp/openmp.hpp>
#endif

#include <parprim/backends/mpi/datatype.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/backends/mpi/reduce.hpp>
#include <parprim/backends/mpi/scan.hpp>
#include <parprim/backends/mpi/segmented_scan.hpp>
