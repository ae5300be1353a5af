// Must NOT compile: a per-segment call with parprim::exact_plus on a long double accumulator
// (it compiled once and summed plainly: the per-segment calls route exact_plus like every
// other call, and a type it does not sum exactly is refused with a message that says so).
#include <parprim/parprim.hpp>

#include <cstdint>
#include <vector>

int main() {
  const std::vector<long double> in(3, 1.0L);
  const std::vector<std::uint8_t> flags(3, 0);
  std::vector<long double> out(3);
  return static_cast<int>(
      parprim::segmented_reduce(parprim::seq, in, flags, out, 0.0L, parprim::exact_plus{}));
}
