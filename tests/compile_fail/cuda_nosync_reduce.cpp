// Must NOT compile: a reduction's value needs the host to wait for the GPU, which a nosync()
// policy never does; the message names parprim::reduce_into.
#include <parprim/parprim.hpp>

int main() {
  const parprim::device_span<const int> in;
  return parprim::reduce(parprim::cuda.nosync(), in, 0, parprim::plus{});
}
