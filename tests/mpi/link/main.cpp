// The MPI policy across translation units (see link.hpp): prints what differs and exits 1.
#include <cstdio>

#include "link.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  const auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("rank %d: FAILED: %s\n", rank, what);
      ++failures;
    }
  };
  const auto a = link_test::facts_with_openmp(MPI_COMM_WORLD);
  const auto b = link_test::facts_mpi_only(MPI_COMM_WORLD);
  expect(a.size == b.size, "the policy has one size in both translation units");
  expect(a.local_size == b.local_size && *a.local_type == *b.local_type,
         "the default local policy is the same type in both translation units");
  expect(a.checks && b.checks, "collective checks are on by default in both");
  // A policy made in one translation unit, used in the other.
  const auto unchecked = link_test::unchecked_mpi_only(MPI_COMM_WORLD);
  expect(!unchecked.collective_checks_enabled(), "an option set in one unit reads back in main");
  const std::vector<int> v(100, 1);
  expect(link_test::sum_with_openmp(parprim::mpi(MPI_COMM_WORLD), v) == 100 * size,
         "a policy made here works in the other unit");
  std::printf("rank %d: %s\n", rank, failures == 0 ? "OK" : "FAILED");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
