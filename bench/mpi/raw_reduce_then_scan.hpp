#pragma once
/// \file
/// \brief parprim's distributed inclusive scan (int32, plus) written by hand with the same local
/// functions, parprim::seq's fold and scan: the "local work + one collective of a scalar" of a
/// correct distributed scan, against which parprim-bench-mpi and dev/mpi_scan_phases.cpp measure
/// what the library adds (its argument agreement and dispatch).

#include <mpi.h>

#include <cstdint>
#include <span>

#include <parprim/parprim.hpp>

namespace parprim_bench {

/// \brief out = the inclusive scan of the concatenation of the ranks' `in` over `comm`, at this
/// rank's positions: fold the block (not on the last rank: nobody needs its total), MPI_Exscan
/// the totals, scan the block starting from the carry. `out` has `in.size()` elements.
inline void raw_reduce_then_scan(std::span<const std::int32_t> in, std::span<std::int32_t> out,
                                 MPI_Comm comm) {
  using T = std::int32_t;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const T total = rank + 1 < size ? parprim::reduce(parprim::seq, in, T{0}) : T{0};
  T carry = 0;
  MPI_Exscan(&total, &carry, 1, MPI_INT32_T, MPI_SUM, comm);
  if (rank == 0) carry = 0;  // rank 0's receive buffer is undefined
  if (in.empty()) return;
  // out[i] = carry + in[0..i]: the exclusive scan of in[1..n) from carry + in[0], then the last
  const std::span<const T> rest = in.subspan(1);
  parprim::exclusive_scan(parprim::seq, rest, out.first(rest.size()),
                          static_cast<T>(carry + in[0]));
  out.back() = static_cast<T>((rest.empty() ? carry : out[rest.size() - 1]) + in.back());
}

}  // namespace parprim_bench
