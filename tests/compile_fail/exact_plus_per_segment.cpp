// Must NOT compile: the per-segment calls do not route exact_plus on float yet, and a plain
// float sum under the name exact_plus would be a silently wrong promise.
#include <parprim/parprim.hpp>

#include <cstdint>
#include <vector>

int main() {
  const std::vector<float> in(8, 0.5f);
  const std::vector<std::uint8_t> flags(8, 0);
  std::vector<float> out(8);
  return static_cast<int>(
      parprim::segmented_reduce(parprim::seq, in, flags, out, 0.0f, parprim::exact_plus{}));
}
