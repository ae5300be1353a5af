// Must NOT compile: parprim::exact_plus on a long double accumulator. exact_plus sums float and
// double exactly (and integers as plus); for any other type a plain sum under its name would be
// a silently broken promise, so the call is refused with a message that says so.
#include <parprim/parprim.hpp>

#include <vector>

int main() {
  const std::vector<long double> in(3, 1.0L);
  return static_cast<int>(parprim::reduce(parprim::seq, in, 0.0L, parprim::exact_plus{}));
}
