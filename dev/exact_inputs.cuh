#pragma once
// Scratch (dev/ only): the exact_plus sweeps' inputs, real-valued (not the bench's small
// integers): uniform in (-1, 1), or (`wide`) with exponents spread over -20..20; from `seed`, or
// a fresh one; and the bitwise comparison of a device result with a host one.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

template <class F>
std::vector<F> exact_sweep_inputs(std::size_t n, bool wide,
                                  std::uint64_t seed = std::random_device{}()) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-20, 20);
  std::vector<F> h(n);
  for (auto& x : h) x = static_cast<F>(wide ? std::ldexp(u(rng), e(rng)) : u(rng));
  return h;
}

/// The line that names a sweep's case.
inline const char* exact_sweep_label(bool wide) {
  return wide ? "exponents -20..20" : "in (-1, 1)";
}

/// Whether the n = ref.size() floats at device address `d` have ref's bits.
template <class F>
bool same(const F* d, const std::vector<F>& ref) {
  std::vector<F> got(ref.size());
  cudaMemcpy(got.data(), d, ref.size() * sizeof(F), cudaMemcpyDeviceToHost);
  return std::memcmp(got.data(), ref.data(), ref.size() * sizeof(F)) == 0;
}
