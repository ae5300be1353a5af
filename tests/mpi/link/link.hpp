#pragma once
// Two translation units with different backend targets linked into one program: the MPI
// policy's type, layout and defaults must not depend on what each of them links.
#include <mpi.h>

#include <cstddef>
#include <typeinfo>
#include <vector>

#include <parprim/parprim.hpp>

namespace link_test {

struct policy_facts {
  std::size_t size;
  std::size_t local_size;
  const std::type_info* local_type;
  bool checks;
};

template <class Policy>
policy_facts facts_of(const Policy& p) {
  using local = typename Policy::local_policy_type;
  return {sizeof(Policy), sizeof(local), &typeid(local), p.collective_checks_enabled()};
}

policy_facts facts_with_openmp(MPI_Comm comm);
policy_facts facts_mpi_only(MPI_Comm comm);
int sum_with_openmp(const parprim::mpi_policy<>& policy, const std::vector<int>& v);
parprim::mpi_policy<> unchecked_mpi_only(MPI_Comm comm);

}  // namespace link_test
