/// \file
/// \brief dev: is the gap of the distributed calls by key to "local work + one collective" the
/// library's code or the bench's memory? parprim-bench-mpi (16-core host, 2026-11-28) had
/// parprim::inclusive_scan_by_key(mpi(comm).local(seq)) 1.36-1.38x its raw_bound at ONE rank,
/// where the library runs the same local call after one agreement. This times, interleaved
/// in every iteration and on the same buffers (or rotated over three, argument 3 = 1):
///   parprim_isbk  parprim::inclusive_scan_by_key(mpi(comm).local(seq), keys, in, out)
///   raw_isbk      parprim::inclusive_scan_by_key(seq, ...) + one MPI_Exscan of a {value, flag}
///   seq_isbk      parprim::inclusive_scan_by_key(seq, ...) alone
///   parprim_rbk, raw_rbk, seq_rbk: the same for reduce_by_key
/// runs of 1024 keys; each rank prints its medians (ms); outputs compared with the raw ones
/// (isbk: every element, on one rank; rbk: the result count).
///
///   mpicxx -std=c++20 -O3 -DNDEBUG -DPARPRIM_HAS_MPI=1 -Iinclude -I<build>/include
///     dev/mpi_by_key_phases.cpp -o /tmp/by_key
///   mpirun -np 2 /tmp/by_key [log2 n per rank] [iterations] [rotate buffers: 0 or 1]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include <parprim/parprim.hpp>

namespace {
using T = std::int32_t;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

struct flagged {
  T value;
  int flag;
};

/// One MPI_Exscan of {value, flag} pairs with the segmented-sum operator (as the bench's
/// raw_pair_exscan): the collective of O(1) values the target allows.
T pair_exscan(T value, bool flag) {
  static MPI_Datatype type = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(
        [](void* a, void* b, int* len, MPI_Datatype*) {
          auto* x = static_cast<flagged*>(a);
          auto* y = static_cast<flagged*>(b);
          for (int i = 0; i < *len; ++i)
            y[i] = y[i].flag ? y[i] : flagged{x[i].value + y[i].value, x[i].flag};
        },
        0, &o);
    return o;
  }();
  flagged mine{value, flag ? 1 : 0};
  flagged left{0, 0};
  MPI_Exscan(&mine, &left, 1, type, op, MPI_COMM_WORLD);
  return left.value;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 11;
  const bool rotate = argc > 3 && std::atoi(argv[3]) != 0;
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<T> v(n), keys(n);
  const std::size_t first = static_cast<std::size_t>(rank) * n;
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(static_cast<int>(((first + i) * 2654435761u) % 7) - 3);
    keys[i] = static_cast<T>((first + i) / 1024);
  }
  const std::size_t runs = n / 1024 + 2;
  std::vector<T> buffers[3] = {std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
  std::vector<T> kout[3] = {std::vector<T>(runs), std::vector<T>(runs), std::vector<T>(runs)};
  std::vector<T> rout[3] = {std::vector<T>(runs), std::vector<T>(runs), std::vector<T>(runs)};
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  std::vector<double> t[6];
  const char* names[6] = {"parprim_isbk", "raw_isbk", "seq_isbk",
                          "parprim_rbk",  "raw_rbk",  "seq_rbk"};
  int mismatches = 0;
  volatile T sink = 0;
  for (int it = 0; it < iters; ++it) {
    const int shift = rotate ? it % 3 : 0;
    auto timed = [&](int row, auto body) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      body();
      t[row].push_back((MPI_Wtime() - t0) * 1e3);
    };
    // odd iterations run the rows backwards, so none always runs first
    const int order[6] = {0, 1, 2, 3, 4, 5};
    for (int j = 0; j < 6; ++j) {
      const int row = it % 2 ? order[5 - j] : order[j];
      const int b = (shift + row) % 3;
      switch (row) {
        case 0:
          timed(0, [&] { parprim::inclusive_scan_by_key(policy, keys, v, buffers[b]); });
          break;
        case 1:
          timed(1, [&] {
            parprim::inclusive_scan_by_key(parprim::seq, keys, v, buffers[b]);
            sink = pair_exscan(buffers[b].back(), true);
          });
          break;
        case 2:
          timed(2, [&] { parprim::inclusive_scan_by_key(parprim::seq, keys, v, buffers[b]); });
          break;
        case 3:
          timed(3, [&] {
            sink = static_cast<T>(parprim::reduce_by_key(policy, keys, v, kout[b], rout[b]));
          });
          break;
        case 4:
          timed(4, [&] {
            const std::size_t k = parprim::reduce_by_key(parprim::seq, keys, v, kout[b], rout[b]);
            sink = pair_exscan(rout[b][k - 1], k > 1);
          });
          break;
        case 5:
          timed(5, [&] {
            sink = static_cast<T>(parprim::reduce_by_key(parprim::seq, keys, v, kout[b], rout[b]));
          });
          break;
      }
    }
    if (size == 1) mismatches += buffers[shift] != buffers[(shift + 1) % 3];
  }
  for (int r = 0; r < size; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == rank) {
      std::printf("ranks %d n/rank 2^%d%s rank %2d:", size, log2n, rotate ? " rotated" : "", rank);
      for (int row = 0; row < 6; ++row) std::printf(" %s %7.2f", names[row], median(t[row]));
      std::printf(" ms | mismatches %d\n", mismatches);
    }
    std::fflush(stdout);
  }
  MPI_Finalize();
  return mismatches == 0 ? 0 : 1;
}
