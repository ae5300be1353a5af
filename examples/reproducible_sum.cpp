// parprim::exact_plus: float sums and prefix sums rounded once from the exact sum, so every
// backend and thread count gives the same bits (docs/reproducible.md).
#include <parprim/parprim.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace pp = parprim;

int main() {
  // Values of every magnitude: plus gives a different float for every grouping.
  std::vector<float> v(1 << 20);
  std::uint32_t state = 12345;
  for (auto& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<std::int32_t>(state)) /
        static_cast<float>(1 << (state % 31));
  }
  v[7] = 1e30f;
  v[v.size() - 7] = -1e30f;  // cancels: only an exact sum keeps what lies between

  const float seq = pp::reduce(pp::seq, v, 0.0f, pp::exact_plus{});
  const float plain = pp::reduce(pp::seq, v, 0.0f, pp::plus{});
  std::printf("exact_plus, seq:             %.9g (bits %08x)\n", seq,
              std::bit_cast<std::uint32_t>(seq));
  std::printf("plus, seq:                   %.9g\n", plain);
  bool ok = true;
#if PARPRIM_HAS_OPENMP
  for (int threads : {1, 2, 3, 7}) {
    const float s = pp::reduce(pp::omp.threads(threads).grain(1), v, 0.0f, pp::exact_plus{});
    std::printf("exact_plus, omp.threads(%d):  %.9g (bits %08x)\n", threads, s,
                std::bit_cast<std::uint32_t>(s));
    ok = ok && std::bit_cast<std::uint32_t>(s) == std::bit_cast<std::uint32_t>(seq);
  }
  std::vector<float> prefix(v.size());
  pp::inclusive_scan(pp::omp.threads(3).grain(1), v, prefix, pp::exact_plus{});
  ok = ok && std::bit_cast<std::uint32_t>(prefix.back()) == std::bit_cast<std::uint32_t>(seq);
#endif
  // The textbook case: 1e30 + 1 - 1e30 is 1, not 0.
  const std::vector<float> c = {1e30f, 1.0f, -1e30f};
  ok = ok && pp::reduce(pp::seq, c, 0.0f, pp::exact_plus{}) == 1.0f;
  return ok ? 0 : 1;
}
