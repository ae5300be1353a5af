// Must NOT compile: the operator takes (accumulator, element), not (T, T). The contract
// (operators.hpp) is checked at the call, with a message that names it.
#include <parprim/parprim.hpp>

#include <vector>

struct squares {
  long long total = 0;
};
struct add_square {
  squares operator()(squares acc, int x) const { return {acc.total + 1LL * x * x}; }
};

int main() {
  const std::vector<int> v = {1, 2, 3};
  return static_cast<int>(parprim::reduce(parprim::seq, v, squares{}, add_square{}).total);
}
