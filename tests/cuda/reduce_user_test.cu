/// \file
/// \brief parprim::reduce(parprim::cuda, ...) from a .cu translation unit (nvcc instantiates
/// the kernels): types and operators the library does not precompile. int8 into int64 (every
/// rung), and user structs with device-callable operators: the NON-commutative 2x2 matrix
/// product and affine-map composition (the order-preserving rungs 1, 2 and 7 must give the
/// sequential left fold exactly), argmin over {value, index} in 16 and in 8 bytes
/// (commutative thanks to the index tie-break: every rung; the 8-byte struct at every 4-byte
/// alignment), and a commutative user operator on int32 with no identity.
///
/// The reordering rungs reject non-commutative operators at compile time:
/// \code
///   parprim::reduce(parprim::cuda.reduce_kernel(parprim::cuda_reduce::k3_sequential_addressing),
///                   mats, identity, mat2_multiply{});
///   // error: static assertion failed: "parprim::reduce(parprim::cuda.reduce_kernel(...)): this
///   // rung of the ladder (k3 to k6) reorders operands, so it accepts only commutative
///   // operators. ..."
/// \endcode

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

namespace parprim_cuda_test {
namespace {

/// \brief A 2x2 matrix of uint32 (arithmetic mod 2^32), row-major.
struct mat2 {
  std::uint32_t a, b, c, d;
  friend bool operator==(const mat2&, const mat2&) = default;
};
/// \brief Matrix product: associative, not commutative (and not declared so).
struct mat2_multiply {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
            x.c * y.b + x.d * y.d};
  }
};

/// \brief The map x -> m x + c (mod 2^32).
struct affine {
  std::uint32_t m, c;
  friend bool operator==(const affine&, const affine&) = default;
};
/// \brief Composition "f, then g": x -> g.m (f.m x + f.c) + g.c. Associative, not commutative.
struct affine_compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {g.m * f.m, g.m * f.c + g.c};
  }
};

/// \brief A value and where it was found: `arg` in 16 bytes (int64 index), `arg32` in 8 bytes
/// aligned to 4 (the vectorized body reads two a 16-byte load where the input is 8-byte
/// aligned, and the order-preserving body where it is not).
template <class Index>
struct basic_arg {
  float value;
  Index index;
  friend bool operator==(const basic_arg&, const basic_arg&) = default;
};
using arg = basic_arg<std::int64_t>;
using arg32 = basic_arg<std::uint32_t>;
/// \brief The smaller value; the lower index among equal values: a total order, so the
/// operator is commutative and says so.
struct argmin_op {
  static constexpr bool is_commutative = true;
  template <class Index>
  __host__ __device__ basic_arg<Index> operator()(const basic_arg<Index>& x,
                                                  const basic_arg<Index>& y) const {
    return (y.value < x.value || (y.value == x.value && y.index < x.index)) ? y : x;
  }
};

/// \brief A commutative user operator on a built-in type, with no identity the library knows:
/// the larger absolute value, ties to the larger value.
struct max_magnitude {
  static constexpr bool is_commutative = true;
  __host__ __device__ std::int32_t operator()(std::int32_t x, std::int32_t y) const {
    const std::int64_t ax = x < 0 ? -std::int64_t(x) : x;
    const std::int64_t ay = y < 0 ? -std::int64_t(y) : y;
    return ax != ay ? (ax > ay ? x : y) : (x > y ? x : y);
  }
};

std::ostream& operator<<(std::ostream& os, const mat2& m) {
  return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
}
std::ostream& operator<<(std::ostream& os, const affine& f) {
  return os << "x -> " << f.m << " x + " << f.c;
}
template <class Index>
std::ostream& operator<<(std::ostream& os, const basic_arg<Index>& a) {
  return os << "{" << a.value << ", " << a.index << "}";
}

std::size_t max_n() {
  const char* s = std::getenv("PARPRIM_CUDA_TEST_MAX_N");
  return s ? std::stoull(s) : std::size_t(-1);
}

template <class Rungs, class In, class T, class Op>
void check_rungs(const Rungs& rungs, const std::vector<In>& host, T init, Op op, const char* what) {
  const T want = parprim::reduce(parprim::seq, host, init, op);
  const parprim::device_buffer<In> dev(host);
  for_each_policy(rungs, [&](const auto& policy) {
    if (::testing::Test::HasFatalFailure()) return;
    const T got = parprim::reduce(policy, dev.span(), init, op);
    ASSERT_EQ(got, want) << rung_name(policy) << " " << what;
  });
}

class CudaReduceUser : public ::testing::Test {
 protected:
  void SetUp() override {
    PARPRIM_SKIP_WITHOUT_GPU();
    seed_ = make_seed();
    rng_.seed(seed_);
  }
  /// \brief body(n) for every size of the sweep up to PARPRIM_CUDA_TEST_MAX_N, under traces of
  /// the seed and n; stops at the first fatal failure.
  template <class Body>
  void for_each_size(Body body) {
    SCOPED_TRACE(seed_trace(seed_));
    for (std::size_t n : test_sizes()) {
      if (n > max_n()) continue;
      SCOPED_TRACE("n = " + std::to_string(n));
      body(n);
      if (HasFatalFailure()) return;
    }
  }
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TEST_F(CudaReduceUser, Int8IntoInt64EveryRung) {
  for_each_size([&](std::size_t n) {
    const auto host = random_vector<std::int8_t>(rng_, n, -128, 127);
    check_rungs(all_rungs, host, std::int64_t(-3), parprim::plus{}, "int8 -> int64 plus");
  });
}

TEST_F(CudaReduceUser, MatrixProductKeepsSequenceOrder) {
  for_each_size([&](std::size_t n) {
    std::vector<mat2> host(n);
    std::uniform_int_distribution<std::uint32_t> d;
    for (auto& m : host) m = {d(rng_), d(rng_), d(rng_), d(rng_)};
    const mat2 init{d(rng_), d(rng_), d(rng_), d(rng_)};
    check_rungs(order_preserving_rungs, host, init, mat2_multiply{}, "mat2 product");
  });
}

TEST_F(CudaReduceUser, AffineCompositionKeepsSequenceOrder) {
  for_each_size([&](std::size_t n) {
    std::vector<affine> host(n);
    std::uniform_int_distribution<std::uint32_t> d;
    for (auto& f : host) f = {d(rng_) | 1u, d(rng_)};  // odd slopes: the product never vanishes
    check_rungs(order_preserving_rungs, host, affine{1, 0}, affine_compose{}, "affine compose");
  });
}

TEST_F(CudaReduceUser, ArgminEveryRung) {
  for_each_size([&](std::size_t n) {
    std::vector<arg> host(n);
    std::uniform_int_distribution<int> level(0, 31);  // many ties: the index decides
    for (std::size_t i = 0; i < n; ++i)
      host[i] = {static_cast<float>(level(rng_)) * 0.5f, static_cast<std::int64_t>(i)};
    check_rungs(all_rungs, host, arg{1e30f, -1}, argmin_op{}, "argmin");
  });
}

TEST_F(CudaReduceUser, Argmin8ByteStructEveryRungAndAlignment) {
  for_each_size([&](std::size_t n) {
    std::vector<arg32> host(n);
    std::uniform_int_distribution<int> level(0, 31);  // many ties: the index decides
    std::uniform_int_distribution<std::uint32_t> index;
    for (auto& a : host) a = {static_cast<float>(level(rng_)) * 0.5f - 4.0f, index(rng_)};
    const arg32 init{1e30f, 0xffffffffu};
    const arg32 want = parprim::reduce(parprim::seq, host, init, argmin_op{});
    // The structs start 0, 4, 8 and 12 bytes into a 16-byte aligned buffer.
    parprim::device_buffer<std::uint32_t> words(2 * n + 4);
    for (std::size_t offset = 0; offset < 4; ++offset) {
      SCOPED_TRACE("input at byte offset " + std::to_string(4 * offset));
      arg32* at = reinterpret_cast<arg32*>(words.data() + offset);
      if (n > 0)
        ASSERT_EQ(cudaMemcpy(at, host.data(), n * sizeof(arg32), cudaMemcpyHostToDevice),
                  cudaSuccess);
      const parprim::device_span<const arg32> in(at, n);
      for_each_policy(all_rungs, [&](const auto& policy) {
        if (HasFatalFailure()) return;
        ASSERT_EQ(parprim::reduce(policy, in, init, argmin_op{}), want) << rung_name(policy);
      });
      if (HasFatalFailure()) return;
    }
  });
}

TEST_F(CudaReduceUser, CommutativeUserOperatorOnInt32EveryRung) {
  for_each_size([&](std::size_t n) {
    const auto host = random_vector<std::int32_t>(rng_, n, -1000000, 1000000);
    check_rungs(all_rungs, host, std::int32_t(7), max_magnitude{}, "max magnitude");
  });
}

}  // namespace
}  // namespace parprim_cuda_test
