// Must NOT compile: std::execution::par is not a parprim policy.
#include <parprim/parprim.hpp>

#include <execution>
#include <vector>

int main() {
  const std::vector<int> v = {1, 2, 3};
  return parprim::reduce(std::execution::par, v, 0, parprim::plus{});
}
