// Must NOT compile: parprim takes ranges, not iterator pairs (std::span(first, last) is one).
#include <parprim/parprim.hpp>

#include <vector>

int main() {
  const std::vector<int> v = {1, 2, 3};
  (void)parprim::reduce(parprim::seq, v.begin(), v.end(), 0);
  return 0;
}
