/// \file
/// \brief Distributed reduce: the numbers 1..n are spread unevenly over the ranks; every rank
/// gets their sum and maximum, and rank 0 alone gets a floating-point sum (`.root(0)`).
///
///   mpirun -np 4 ./parprim-example-mpi_reduce

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include <parprim/parprim.hpp>

#include "common.hpp"

int main(int argc, char** argv) {
  const example::world w = example::init(argc, argv);
  const std::int64_t n = 1'000'000;
  const example::block b = example::block_of(n, w);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(b.end - b.begin));
  std::iota(mine.begin(), mine.end(), b.begin + 1);  // this rank's part of 1..n

  const auto policy = parprim::mpi(MPI_COMM_WORLD);
  const std::int64_t sum = parprim::reduce(policy, mine, std::int64_t{0}, parprim::plus{});
  const std::int64_t max = parprim::reduce(policy, mine, std::int64_t{0}, parprim::maximum{});
  const std::vector<double> as_double(mine.begin(), mine.end());
  const double sum_on_0 = parprim::reduce(policy.root(0), as_double, 0.0, parprim::plus{});

  const std::int64_t expected = n * (n + 1) / 2;
  bool ok = sum == expected && max == n;
  if (w.rank == 0) {
    ok = ok && sum_on_0 == static_cast<double>(expected);
    std::printf("sum of 1..%lld over %d ranks: %lld (expected %lld)\n", static_cast<long long>(n),
                w.size, static_cast<long long>(sum), static_cast<long long>(expected));
    std::printf("maximum: %lld\n", static_cast<long long>(max));
    std::printf("sum delivered on rank 0 only, as double: %.1f\n", sum_on_0);
  } else {
    ok = ok && sum_on_0 == 0.0;  // not the root: init comes back
  }
  return example::finish(ok, w);
}
