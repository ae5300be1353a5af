// Must NOT compile: this target links parprim::core only, so the CUDA backend is not in this
// translation unit; the first error names the CMake target to link.
#include <parprim/parprim.hpp>

int main() {
  const parprim::device_span<const int> d;
  return parprim::reduce(parprim::cuda, d, 0, parprim::plus{});
}
