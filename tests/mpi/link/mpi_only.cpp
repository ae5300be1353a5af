// Compiled with the MPI backend only (no PARPRIM_HAS_OPENMP).
#include "link.hpp"

namespace link_test {
policy_facts facts_mpi_only(MPI_Comm comm) {
  return facts_of(parprim::mpi(comm));
}
parprim::mpi_policy<> unchecked_mpi_only(MPI_Comm comm) {
  return parprim::mpi(comm).collective_checks(false);
}
}  // namespace link_test
