/// \file
/// \brief Distributed reduce by key: a web server's log grouped by user (every user's requests
/// are adjacent, users in increasing order), split over the ranks. parprim::reduce_by_key gives
/// each user's total bytes; a user whose requests straddle a rank boundary is totalled across
/// the ranks, and the total lands on the rank that holds the user's first request. Then
/// parprim::inclusive_scan_by_key gives each request the user's bytes so far.
///
///   mpirun -np 4 ./parprim-example-mpi_reduce_by_key

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <parprim/parprim.hpp>

#include "common.hpp"

namespace {
/// Request i: bytes served, and whether it is a new user's first request (irregular numbers of
/// requests per user, some of them thousands long).
std::int64_t bytes(std::int64_t i) {
  return 100 + (i * 7919) % 1900;
}
bool new_user(std::int64_t i) {
  return i == 0 || i % 211 == 0 || i % 1733 == 0 || (i > 20000 && i < 20020);
}
}  // namespace

int main(int argc, char** argv) {
  const example::world w = example::init(argc, argv);
  const std::int64_t n = 30'000;
  const example::block b = example::block_of(n, w);

  // The user of request i: 1000 + the number of users started before it (the log is sorted).
  std::int64_t user = 999;
  for (std::int64_t i = 0; i < b.begin; ++i) user += new_user(i) ? 1 : 0;
  std::vector<std::int64_t> users;
  std::vector<std::int64_t> served;
  for (std::int64_t i = b.begin; i < b.end; ++i) {
    user += new_user(i) ? 1 : 0;
    users.push_back(user);
    served.push_back(bytes(i));
  }

  const auto policy = parprim::mpi(MPI_COMM_WORLD);
  std::vector<std::int64_t> who(users.size());
  std::vector<std::int64_t> total(users.size());
  const std::size_t here = parprim::reduce_by_key(policy, users, served, who, total);
  std::vector<std::int64_t> so_far(served.size());
  parprim::inclusive_scan_by_key(policy, users, served, so_far);

  // Check: each user starting here, summed sequentially to its last request (on any rank).
  bool ok = true;
  std::size_t k = 0;
  std::int64_t straddling = 0;
  for (std::int64_t i = b.begin; i < b.end; ++i) {
    if (!new_user(i)) continue;
    std::int64_t sum = bytes(i);
    std::int64_t j = i + 1;
    for (; j < n && !new_user(j); ++j) sum += bytes(j);
    ok =
        ok && k < here && total[k] == sum && who[k] == users[static_cast<std::size_t>(i - b.begin)];
    straddling += j > b.end ? 1 : 0;
    ++k;
  }
  ok = ok && k == here;
  std::int64_t running = 0;  // the bytes so far of this rank's first user, from its start
  for (std::int64_t i = b.begin; i > 0 && !new_user(i); --i) running += bytes(i - 1);
  for (std::int64_t i = b.begin; i < b.end; ++i) {
    running = new_user(i) ? bytes(i) : running + bytes(i);
    ok = ok && so_far[static_cast<std::size_t>(i - b.begin)] == running;
  }

  // Summary on rank 0: users, how many straddle a boundary, the largest total.
  std::int64_t largest[2] = {0, 0};  // bytes, user
  for (std::size_t s = 0; s < here; ++s)
    if (total[s] > largest[0]) largest[0] = total[s], largest[1] = who[s];
  std::int64_t counts[2] = {static_cast<std::int64_t>(here), straddling};
  std::int64_t sum_counts[2] = {0, 0};
  MPI_Reduce(counts, sum_counts, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  std::vector<std::int64_t> all_largest(2 * static_cast<std::size_t>(w.size));
  MPI_Gather(largest, 2, MPI_INT64_T, all_largest.data(), 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (w.rank == 0) {
    std::int64_t best = 0;
    for (int r = 1; r < w.size; ++r)
      if (all_largest[2 * r] > all_largest[2 * best]) best = r;
    std::printf("%lld requests, %lld users, %lld of them straddle a rank boundary\n",
                static_cast<long long>(n), static_cast<long long>(sum_counts[0]),
                static_cast<long long>(sum_counts[1]));
    std::printf("largest total: user %lld, %lld bytes\n",
                static_cast<long long>(all_largest[2 * best + 1]),
                static_cast<long long>(all_largest[2 * best]));
  }
  return example::finish(ok, w);
}
