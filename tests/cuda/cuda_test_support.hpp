#pragma once
/// \file
/// \brief Shared pieces of the CUDA tests: the GPU check (every test skips without a GPU),
/// the rung list, per-rung boundary sizes, random inputs with a printed seed, the float bound.
/// Plain C++: used by the g++ test files and the .cu ones alike.

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

namespace parprim_cuda_test {

/// \brief Why the CUDA tests cannot run here, or "" when a GPU is present.
inline std::string no_gpu_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return std::string("no GPU: cudaGetDeviceCount failed with ") + cudaGetErrorName(e);
  if (count == 0) return "no GPU: cudaGetDeviceCount returned 0";
  return "";
}

/// \brief Skips the current test, with the reason, when no GPU is present.
#define PARPRIM_SKIP_WITHOUT_GPU()                                            \
  do {                                                                        \
    const std::string parprim_reason_ = ::parprim_cuda_test::no_gpu_reason(); \
    if (!parprim_reason_.empty()) GTEST_SKIP() << parprim_reason_;            \
  } while (false)

/// \brief Every rung of the reduction ladder, as policies.
inline constexpr auto all_rungs = std::make_tuple(
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k1_interleaved_divergent),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k2_interleaved_strided),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k3_sequential_addressing),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k4_first_add_during_load),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k5_unrolled_last_warp),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k6_grid_stride_multiple_elements),
    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k7_vectorized_single_pass));

/// \brief The rungs that keep sequence order (non-commutative operators): 1, 2 and 7.
inline constexpr auto order_preserving_rungs =
    std::make_tuple(parprim::cuda.reduce_kernel(parprim::cuda_reduce::k1_interleaved_divergent),
                    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k2_interleaved_strided),
                    parprim::cuda.reduce_kernel(parprim::cuda_reduce::k7_vectorized_single_pass));

/// \brief f(policy) for each policy of a tuple.
template <class Tuple, class F>
void for_each_policy(const Tuple& t, F f) {
  std::apply([&](const auto&... p) { (f(p), ...); }, t);
}

/// \brief The name of a policy's rung.
template <class Policy>
std::string rung_name(const Policy&) {
  return parprim::cuda_reduce_name(Policy::reduce_rung);
}

/// \brief Sizes around every boundary of the ladder: tiny sizes, the block (256) and two-block
/// tiles of rungs 1-6 +-1, the 16-byte vector and the rung-7 round (256 threads x 8 vectors)
/// +-1, primes, 2^k +-1 and 10^7.
inline std::vector<std::size_t> test_sizes(bool with_ten_million = true) {
  std::set<std::size_t> s = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65};
  for (std::size_t b : {256u, 512u, 1024u, 2048u, 8192u, 16384u, 32768u, 65536u, 65536u * 4})
    for (std::size_t d : {b - 1, b, b + 1}) s.insert(d);
  for (std::size_t p : {97u, 1009u, 65521u, 65537u, 1000003u}) s.insert(p);
  for (int k : {12, 17, 20, 22})
    for (std::size_t d :
         {(std::size_t(1) << k) - 1, std::size_t(1) << k, (std::size_t(1) << k) + 1})
      s.insert(d);
  s.insert(256 * 256 + 1);       // three passes for rungs 1-3
  s.insert(528 * 8192 * 4 + 3);  // more rounds than rung 7's grid on 132 multiprocessors
  if (with_ten_million) s.insert(10'000'000);
  return {s.begin(), s.end()};
}

/// \brief A seed from std::random_device, printed in every failure message.
inline std::uint64_t make_seed() {
  std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}
inline std::string seed_trace(std::uint64_t seed) {
  return "random seed " + std::to_string(seed) + " (inputs are drawn from std::mt19937_64)";
}

/// \brief n random values: integers in [lo, hi], floating point uniform in [lo, hi).
template <class T>
std::vector<T> random_vector(std::mt19937_64& rng, std::size_t n, T lo, T hi) {
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo),
                                               static_cast<long long>(hi));
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<T> d(lo, hi);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

/// \brief The float bound: |got - sequential| <= 2 (n + 1) eps sum(|init| + |x_i|), valid for
/// any summation order (each of the <= n roundings is at most eps times a partial sum, and
/// every partial sum is at most the sum of magnitudes).
template <class T>
long double float_sum_bound(const std::vector<T>& x, T init) {
  long double abs_sum = std::fabs(static_cast<long double>(init));
  for (T v : x) abs_sum += std::fabs(static_cast<long double>(v));
  return 2.0L * static_cast<long double>(x.size() + 1) *
         static_cast<long double>(std::numeric_limits<T>::epsilon()) * abs_sum;
}

/// \brief Bitwise equality of two values.
template <class T>
bool bitwise_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace parprim_cuda_test
