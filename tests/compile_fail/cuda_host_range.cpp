// Must NOT compile: parprim::cuda reads device memory, and a std::vector is host memory.
#include <parprim/parprim.hpp>

#include <vector>

int main() {
  const std::vector<int> v = {1, 2, 3};
  return parprim::reduce(parprim::cuda, v, 0, parprim::plus{});
}
