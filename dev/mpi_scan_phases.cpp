/// \file
/// \brief dev: where the time of a distributed scan goes, per rank, on the seq local policy.
/// parprim-bench-mpi at aaecda6 (16-core host, 5 interleaved rounds) had
/// parprim::inclusive_scan(mpi.local(seq)) 20-25 % slower at 2 and 4 ranks than
/// raw_reduce_then_scan, the same algorithm written by hand with the same parprim::seq
/// functions; this times, interleaved in every iteration:
///   parprim   parprim::inclusive_scan(mpi(comm).local(seq), in, out)
///   raw       fold (not on the last rank) + MPI_Exscan + exclusive scan from the carry
///             (bench/mpi/raw_reduce_then_scan.hpp, as parprim-bench-mpi times it)
///   inner     parprim's own steps called one by one (agreement, fold_block, exscan_across,
///             inclusive_from), each timed
/// and prints each rank's medians (ms). Output equality with raw is checked every iteration.
///
///   mpicxx -std=c++20 -O3 -DNDEBUG -DPARPRIM_HAS_MPI=1 -Iinclude -I<build>/include
///     dev/mpi_scan_phases.cpp -o /tmp/phases
///   mpirun -np 4 /tmp/phases [log2 n per rank] [iterations] [rotate buffers: 0 or 1]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include <parprim/parprim.hpp>

#include "../bench/mpi/raw_reduce_then_scan.hpp"

namespace {
using T = std::int32_t;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] =
        static_cast<T>(static_cast<int>((i * 2654435761u + static_cast<unsigned>(rank)) % 7) - 3);
  // Three output buffers; with "rotate" (argument 3 = 1) each variant writes a different one
  // every iteration, so a difference that follows the buffer (its pages) and not the code
  // shows up as equal medians.
  const bool rotate = argc > 3 && std::atoi(argv[3]) != 0;
  std::vector<T> buffers[3] = {std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
  const std::span<const T> in(v);
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  namespace md = parprim::mpi_detail;
  std::vector<double> t_parprim, t_raw, t_fold, t_exscan, t_scan, t_inner, t_agree;
  int mismatches = 0;
  for (int it = 0; it < iters; ++it) {
    const int shift = rotate ? it % 3 : 0;
    std::vector<T>& out_parprim = buffers[shift];
    std::vector<T>& out_raw = buffers[(shift + 1) % 3];
    std::vector<T>& out_inner = buffers[(shift + 2) % 3];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    parprim::inclusive_scan(policy, in, out_parprim);
    t_parprim.push_back((MPI_Wtime() - t0) * 1e3);

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    parprim_bench::raw_reduce_then_scan(in, out_raw, MPI_COMM_WORLD);
    t_raw.push_back((MPI_Wtime() - t0) * 1e3);

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    md::agree_on_arguments(policy, "inclusive_scan", [] {});
    const double t1 = MPI_Wtime();
    const md::context ctx = md::make_context(MPI_COMM_WORLD);
    std::optional<T> total;
    if (ctx.rank + 1 < ctx.size) total = md::fold_block<T>(parprim::seq, in, parprim::plus{});
    const double t2 = MPI_Wtime();
    const std::optional<T> carry = md::exscan_across(ctx, total, parprim::plus{});
    const double t3 = MPI_Wtime();
    md::inclusive_from(parprim::seq, in, std::span<T>(out_inner), carry, parprim::plus{});
    const double t4 = MPI_Wtime();
    t_agree.push_back((t1 - t0) * 1e3);
    t_fold.push_back((t2 - t1) * 1e3);
    t_exscan.push_back((t3 - t2) * 1e3);
    t_scan.push_back((t4 - t3) * 1e3);
    t_inner.push_back((t4 - t0) * 1e3);
    mismatches += (out_parprim != out_raw) + (out_inner != out_raw);
  }
  for (int r = 0; r < size; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == rank)
      std::printf(
          "ranks %d n/rank 2^%d%s rank %2d: parprim %7.2f raw %7.2f | inner %7.2f = agree %.3f + "
          "fold %6.2f + exscan %6.2f + scan %7.2f ms | mismatches %d\n",
          size, log2n, rotate ? " rotated" : "", rank, median(t_parprim), median(t_raw),
          median(t_inner), median(t_agree), median(t_fold), median(t_exscan), median(t_scan),
          mismatches);
    std::fflush(stdout);
  }
  MPI_Finalize();
  return mismatches == 0 ? 0 : 1;
}
