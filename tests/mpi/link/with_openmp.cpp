// Compiled with the OpenMP and MPI backends (PARPRIM_HAS_OPENMP defined).
#include "link.hpp"

namespace link_test {
policy_facts facts_with_openmp(MPI_Comm comm) {
  return facts_of(parprim::mpi(comm));
}
int sum_with_openmp(const parprim::mpi_policy<>& policy, const std::vector<int>& v) {
  return parprim::reduce(policy, v, 0);
}
}  // namespace link_test
