// Must NOT compile: a segmented inclusive scan with parprim::exact_plus on float over device
// memory. The CUDA segmented scans do not take exact sums yet (the CUDA reductions and plain
// scans do), and a plain float scan in their place would break the promise of the same bits
// everywhere, so the call is refused with a message that says so.
#include <parprim/cuda_policy.hpp>
#include <parprim/parprim.hpp>

int main() {
  const parprim::device_span<const float> in(nullptr, 0);
  const parprim::device_span<const unsigned char> flags(nullptr, 0);
  const parprim::device_span<float> out(nullptr, 0);
  parprim::segmented_inclusive_scan(parprim::cuda, in, flags, out, parprim::exact_plus{});
}
