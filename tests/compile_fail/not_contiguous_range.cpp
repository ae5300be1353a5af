// Must NOT compile: a std::list is not a contiguous range. The first error names what to pass.
#include <parprim/parprim.hpp>

#include <list>

int main() {
  const std::list<int> l = {1, 2, 3};
  return parprim::reduce(parprim::seq, l, 0, parprim::plus{});
}
