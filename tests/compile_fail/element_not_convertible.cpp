// Must NOT compile: the elements do not convert to the accumulator type T.
#include <parprim/parprim.hpp>

#include <string>
#include <vector>

int main() {
  const std::vector<std::string> v = {"a", "b"};
  return parprim::reduce(parprim::seq, v, 0, parprim::plus{});
}
