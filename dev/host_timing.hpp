/// \file
/// \brief dev: what the host timing tools share (exact_scan_split.cpp, exact_scan_rounds.cpp,
/// fold_vectors_check.cpp, float_segment_sums_check.cpp): element i of their input, uniform in
/// [-1, 1) as the bench's (a hash of i), the median, and the median time of a call.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dev {

inline float uniform_input(std::size_t i) {
  std::uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x5eed;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<float>(static_cast<double>(z >> 11) * 0x1p-52 - 1.0);
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

/// \brief The median of `reps` timed calls of `f`, in milliseconds.
template <class F>
double median_ms(F f, int reps = 9) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median(t);
}

}  // namespace dev
