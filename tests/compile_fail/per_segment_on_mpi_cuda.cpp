// Must NOT compile: reduce_by_key on a communicator with the CUDA local policy is not there
// yet, and the call says so.
#include <parprim/cuda_policy.hpp>
#include <parprim/device_span.hpp>
#include <parprim/parprim.hpp>

int main() {
  const parprim::device_span<const int> keys;
  const parprim::device_span<const int> in;
  const parprim::device_span<int> keys_out;
  const parprim::device_span<int> out;
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::cuda);
  return static_cast<int>(parprim::reduce_by_key(policy, keys, in, keys_out, out));
}
