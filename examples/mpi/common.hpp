#pragma once
/// \file
/// \brief What the MPI examples share: MPI setup, an uneven split of [0, n) over the ranks, and
/// a check that all ranks agree on success.

#include <mpi.h>

#include <cstdint>
#include <cstdio>

namespace example {

struct world {
  int rank = 0;
  int size = 1;
};

inline world init(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  world w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

/// \brief Rank r's block [begin, end) of [0, n): block sizes grow with the rank (weights
/// 1, 2, 3, ...), so the blocks are deliberately uneven.
struct block {
  std::int64_t begin;
  std::int64_t end;
};
inline block block_of(std::int64_t n, const world& w) {
  const std::int64_t total_weight = std::int64_t{w.size} * (w.size + 1) / 2;
  const auto upto = [&](std::int64_t r) {
    return n * (r * (r + 1) / 2) / total_weight;  // end of rank r - 1's block
  };
  return {upto(w.rank), upto(w.rank + 1)};
}

/// \brief True on every rank iff `ok` on every rank; prints OK or FAILED on rank 0, then
/// finalises MPI. \return the exit code.
inline int finish(bool ok, const world& w) {
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (w.rank == 0) std::printf("%s\n", all ? "OK" : "FAILED");
  MPI_Finalize();
  return all ? 0 : 1;
}

}  // namespace example
