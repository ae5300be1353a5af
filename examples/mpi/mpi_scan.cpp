/// \file
/// \brief Distributed scan: a ledger of transactions split over the ranks in time order. An
/// inclusive scan gives the balance after each transaction, an exclusive scan (starting from
/// the opening balance) the balance before it; rank boundaries are invisible in the result.
///
///   mpirun -np 4 ./parprim-example-mpi_scan

#include <cstdint>
#include <cstdio>
#include <vector>

#include <parprim/parprim.hpp>

#include "common.hpp"

namespace {
/// Transaction i, in cents: mostly deposits, every 7th a larger withdrawal.
std::int64_t amount(std::int64_t i) {
  return i % 7 == 6 ? -(500 + i % 300) : 100 + i % 250;
}
}  // namespace

int main(int argc, char** argv) {
  const example::world w = example::init(argc, argv);
  const std::int64_t n = 100'000;
  const std::int64_t opening = 10'000;
  const example::block b = example::block_of(n, w);
  std::vector<std::int64_t> tx;
  for (std::int64_t i = b.begin; i < b.end; ++i) tx.push_back(amount(i));

  const auto policy = parprim::mpi(MPI_COMM_WORLD);
  std::vector<std::int64_t> after(tx.size());
  std::vector<std::int64_t> before(tx.size());
  parprim::inclusive_scan(policy, tx, after, parprim::plus{});
  parprim::exclusive_scan(policy, tx, before, opening, parprim::plus{});

  // Check against a sequential pass over the ledger up to this rank's end.
  bool ok = true;
  std::int64_t running = 0;
  for (std::int64_t i = 0; i < b.end; ++i) {
    if (i >= b.begin) {
      const auto k = static_cast<std::size_t>(i - b.begin);
      ok = ok && before[k] == opening + running;
    }
    running += amount(i);
    if (i >= b.begin) ok = ok && after[static_cast<std::size_t>(i - b.begin)] == running;
  }

  // Rank 0 prints one line per rank: its transactions and its closing balance.
  const std::int64_t mine[3] = {b.begin, b.end, tx.empty() ? 0 : opening + after.back()};
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(w.size));
  MPI_Gather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (w.rank == 0)
    for (int r = 0; r < w.size; ++r) {
      const std::int64_t* v = &all[3 * static_cast<std::size_t>(r)];
      std::printf("rank %d: transactions %lld..%lld, balance after the last: %lld.%02lld\n", r,
                  static_cast<long long>(v[0]), static_cast<long long>(v[1] - 1),
                  static_cast<long long>(v[2] / 100), static_cast<long long>(v[2] % 100));
    }
  return example::finish(ok, w);
}
