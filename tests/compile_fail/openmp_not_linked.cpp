// Must NOT compile: this target links parprim::core only, so the OpenMP backend is not in this
// translation unit; the first error names the CMake target to link.
#include <parprim/parprim.hpp>

#include <vector>

int main() {
  const std::vector<int> v = {1, 2, 3};
  return parprim::reduce(parprim::omp, v, 0, parprim::plus{});
}
