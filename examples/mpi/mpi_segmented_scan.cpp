/// \file
/// \brief Distributed segmented scan: a web server's log, one entry per request in time order,
/// split over the ranks. A head flag marks the first request of each session; a segmented
/// inclusive scan gives each request the bytes served so far in its session. Sessions that
/// straddle a rank boundary continue seamlessly.
///
///   mpirun -np 4 ./parprim-example-mpi_segmented_scan

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <parprim/parprim.hpp>

#include "common.hpp"

namespace {
/// Request i: bytes served, and whether it opens a new session (irregular session lengths).
std::int64_t bytes(std::int64_t i) {
  return 200 + (i * 7919) % 1800;
}
bool opens_session(std::int64_t i) {
  return i == 0 || i % 257 == 0 || i % 333 == 0;
}
}  // namespace

int main(int argc, char** argv) {
  const example::world w = example::init(argc, argv);
  const std::int64_t n = 10'000;
  const example::block b = example::block_of(n, w);
  std::vector<std::int64_t> served;
  std::vector<std::uint8_t> head;
  for (std::int64_t i = b.begin; i < b.end; ++i) {
    served.push_back(bytes(i));
    head.push_back(opens_session(i) ? 1 : 0);
  }

  std::vector<std::int64_t> so_far(served.size());
  parprim::segmented_inclusive_scan(parprim::mpi(MPI_COMM_WORLD), served, head, so_far,
                                    parprim::plus{});

  // Check: a sequential pass from the start of this rank's first session.
  bool ok = true;
  std::int64_t s = b.begin;
  while (s > 0 && !opens_session(s)) --s;
  std::int64_t running = 0;
  for (std::int64_t i = s; i < b.end; ++i) {
    running = opens_session(i) ? bytes(i) : running + bytes(i);
    if (i >= b.begin) ok = ok && so_far[static_cast<std::size_t>(i - b.begin)] == running;
  }

  // Summary: sessions that cross into this rank, and the largest session total seen.
  std::int64_t summary[3] = {0, 0, 0};  // sessions started here, continued from the left, max
  for (std::size_t k = 0; k < so_far.size(); ++k) {
    summary[0] += head[k];
    const bool last_of_session =
        k + 1 == so_far.size() ? b.end == n || opens_session(b.end) : head[k + 1] != 0;
    if (last_of_session) summary[2] = std::max(summary[2], so_far[k]);
  }
  summary[1] = !served.empty() && !head[0] ? 1 : 0;
  std::int64_t total[3] = {0, 0, 0};
  MPI_Reduce(summary, total, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&summary[2], &total[2], 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  if (w.rank == 0) {
    std::printf("%lld requests, %lld sessions, %lld of them straddle a rank boundary\n",
                static_cast<long long>(n), static_cast<long long>(total[0]),
                static_cast<long long>(total[1]));
    std::printf("largest session: %lld bytes\n", static_cast<long long>(total[2]));
  }
  return example::finish(ok, w);
}
