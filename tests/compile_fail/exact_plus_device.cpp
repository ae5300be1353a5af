// Must NOT compile: parprim::exact_plus on float with device memory. The CUDA backend does not
// take exact sums yet, and a plain float sum in their place would break the promise of the same
// bits everywhere, so the call is refused with a message that says so.
#include <parprim/cuda_policy.hpp>
#include <parprim/parprim.hpp>

int main() {
  const parprim::device_span<const float> in(nullptr, 0);
  return static_cast<int>(parprim::reduce(parprim::cuda, in, 0.0f, parprim::exact_plus{}));
}
