// Must NOT compile: segmented_reduce has no CUDA backend yet, and the call says so (it never
// falls back to another backend). Once the CUDA backend specialises
// parprim::detail::segmented_reduce_impl, this test is to be removed.
#include <parprim/cuda_policy.hpp>
#include <parprim/device_span.hpp>
#include <parprim/parprim.hpp>

#include <cstdint>

int main() {
  const parprim::device_span<const int> in;
  const parprim::device_span<const std::uint8_t> flags;
  const parprim::device_span<int> out;
  return static_cast<int>(parprim::segmented_reduce(parprim::cuda, in, flags, out, 0));
}
