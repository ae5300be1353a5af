#pragma once
// Scratch (dev/ only): what the float scan sweeps share: inputs uniform in (-1, 1) from a fresh
// seed, their running sums in double and the bound a float scan in any grouping must meet.
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

/// Device values read back.
template <class T>
std::vector<T> read(const T* d, std::size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

/// n inputs uniform in (-1, 1), with the double reference of their inclusive sums and the
/// running sums of their magnitudes.
template <class T>
struct float_scan_inputs {
  unsigned seed;
  std::vector<T> h;
  std::vector<double> ref, mag;

  explicit float_scan_inputs(std::size_t n) : h(n), ref(n), mag(n) {
    std::mt19937_64 rng(std::random_device{}());
    seed = unsigned(rng());
    rng.seed(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& x : h) x = static_cast<T>(u(rng));
    double s = 0, a = 0;
    for (std::size_t i = 0; i < n; ++i) {
      s += h[i];
      a += std::fabs(double(h[i]));
      ref[i] = s;
      mag[i] = a;
    }
  }

  /// Outputs outside |got - ref| <= n_i eps sum |x| up to i (a generous form of the usual
  /// (n - 1) eps sum |x_j| bound of a recursive sum in any grouping).
  std::size_t outside_bound(const std::vector<T>& got) const {
    const double eps = std::numeric_limits<T>::epsilon();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (std::fabs(double(got[i]) - ref[i]) > double(i + 1) * eps * mag[i] + 1e-30) ++bad;
    return bad;
  }
};
