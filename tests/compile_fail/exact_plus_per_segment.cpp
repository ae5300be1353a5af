// Must NOT compile: the CUDA per-segment calls do not take exact_plus on float yet, and a plain
// float sum under the name exact_plus would be a silently wrong promise. (The host backends
// take it: tests/exact_plus.cpp.)
#include <parprim/cuda_policy.hpp>
#include <parprim/parprim.hpp>

#include <cstdint>

int main() {
  const parprim::device_span<const float> in(nullptr, 0);
  const parprim::device_span<const std::uint8_t> flags(nullptr, 0);
  const parprim::device_span<float> out(nullptr, 0);
  return static_cast<int>(
      parprim::segmented_reduce(parprim::cuda, in, flags, out, 0.0f, parprim::exact_plus{}));
}
