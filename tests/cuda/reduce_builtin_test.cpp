/// \file
/// \brief parprim::reduce(parprim::cuda, ...) from a PLAIN C++ translation unit (g++): every
/// rung x {int32, int64, uint32, uint64, float, double} x {plus, minimum, maximum}, through the
/// instantiations precompiled in the parprim::cuda library. Compared with parprim::seq on the
/// host copy: integers and min/max exactly, float sums within float_sum_bound. Also: float
/// determinism, streams and threads, bad inputs.
///
/// What must NOT compile (kept as comments; each is a static_assert with a readable message):
/// \code
///   std::vector<float> host(10);
///   parprim::reduce(parprim::cuda, host, 0.0f);             // host range with the CUDA policy
///   parprim::reduce(parprim::cuda, d_span, 0L, parprim::plus{});  // int32 into int64: not
///                                                           // precompiled, needs a .cu file
/// \endcode

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "cuda_test_support.hpp"

#if defined(__CUDACC__)
#error "this file checks the g++ path: it must not be compiled by nvcc"
#endif

namespace parprim_cuda_test {
namespace {

/// \brief Value ranges: sums of 10^7 int32 values in [-100, 100] stay below 2^31; unsigned
/// sums wrap (defined); floats in [-1, 1).
template <class T>
struct value_range;
template <>
struct value_range<std::int32_t> {
  static constexpr std::int32_t lo = -100, hi = 100;
};
template <>
struct value_range<std::int64_t> {
  static constexpr std::int64_t lo = -(std::int64_t(1) << 40), hi = std::int64_t(1) << 40;
};
template <>
struct value_range<std::uint32_t> {
  static constexpr std::uint32_t lo = 0, hi = 0xffffffffu;
};
template <>
struct value_range<std::uint64_t> {
  static constexpr std::uint64_t lo = 0, hi = std::uint64_t(1) << 62;
};
template <>
struct value_range<float> {
  static constexpr float lo = -1.0f, hi = 1.0f;
};
template <>
struct value_range<double> {
  static constexpr double lo = -1.0, hi = 1.0;
};

template <class Op>
const char* op_name() {
  if constexpr (std::is_same_v<Op, parprim::plus>)
    return "plus";
  else if constexpr (std::is_same_v<Op, parprim::minimum>)
    return "minimum";
  else
    return "maximum";
}

/// \brief The largest n the sized tests use (PARPRIM_CUDA_TEST_MAX_N, e.g. under the
/// compute-sanitizer tools, which are slow).
std::size_t max_n() {
  const char* s = std::getenv("PARPRIM_CUDA_TEST_MAX_N");
  return s ? std::stoull(s) : std::size_t(-1);
}

template <class T, class Op>
void check_all_rungs(parprim::device_span<const T> in, const std::vector<T>& host, T init, Op op) {
  const T want = parprim::reduce(parprim::seq, host, init, op);
  const auto check = [&](const T& got, const std::string& what) {
    if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, parprim::plus>) {
      const long double bound = float_sum_bound(host, init);
      ASSERT_LE(std::fabs(static_cast<long double>(got) - static_cast<long double>(want)), bound)
          << what << " " << op_name<Op>() << ": got " << got << ", sequential " << want;
    } else {
      ASSERT_TRUE(parprim_test::exact_equal(got, want))  // bitwise: NaN, -0 and +0 differ
          << what << " " << op_name<Op>() << ": got " << got << ", sequential " << want;
    }
  };
  for_each_policy(all_rungs, [&](const auto& policy) {
    if (::testing::Test::HasFatalFailure()) return;
    check(parprim::reduce(policy, in, init, op), rung_name(policy));
  });
  if (::testing::Test::HasFatalFailure()) return;
  // the default rung into device memory (the result written by the kernel, not the host)
  parprim::device_buffer<T> result(1);
  parprim::reduce_into(parprim::cuda, in, result.span(), init, op);
  check(result.to_host()[0], "reduce_into");
}

template <class T>
class CudaReduceBuiltin : public ::testing::Test {};
using builtin_types =
    ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CudaReduceBuiltin, builtin_types);

TYPED_TEST(CudaReduceBuiltin, EveryRungOperatorAndSize) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using T = TypeParam;
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : test_sizes()) {
    if (n > max_n()) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto host = random_vector<T>(rng, n, value_range<T>::lo, value_range<T>::hi);
    const T init = random_vector<T>(rng, 1, value_range<T>::lo, value_range<T>::hi)[0];
    const parprim::device_buffer<T> dev(host);
    check_all_rungs(dev.span(), host, init, parprim::plus{});
    check_all_rungs(dev.span(), host, init, parprim::minimum{});
    check_all_rungs(dev.span(), host, init, parprim::maximum{});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// minimum / maximum over NaNs (signs, payloads), signed zeros and infinities: every rung gives
// the left fold's bits (one total order, operators.hpp), integers unaffected.
TYPED_TEST(CudaReduceBuiltin, SpecialValuesMinimumMaximum) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    const std::uint64_t seed = make_seed();
    SCOPED_TRACE(seed_trace(seed));
    parprim_test::rng_t rng(seed);
    for (std::size_t n : test_sizes()) {
      if (n > max_n()) continue;
      SCOPED_TRACE("n = " + std::to_string(n));
      std::vector<T> host(n);
      for (auto& x : host) x = parprim_test::special_value<T>(rng);
      const T init = parprim_test::special_value<T>(rng);
      const parprim::device_buffer<T> dev(host);
      check_all_rungs(dev.span(), host, init, parprim::minimum{});
      check_all_rungs(dev.span(), host, init, parprim::maximum{});
      if (::testing::Test::HasFatalFailure()) return;
      // NaNs alone (both signs, random payloads): the NaN with the smallest bits wins
      for (auto& x : host) x = parprim_test::any_nan<T>(rng);
      const T nan_init = parprim_test::any_nan<T>(rng);
      const parprim::device_buffer<T> nans(host);
      check_all_rungs(nans.span(), host, nan_init, parprim::minimum{});
      check_all_rungs(nans.span(), host, nan_init, parprim::maximum{});
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Rung 7 reads 16-byte vectors: inputs that start off a 16-byte boundary take the scalar head.
TYPED_TEST(CudaReduceBuiltin, MisalignedStart) {
  PARPRIM_SKIP_WITHOUT_GPU();
  using T = TypeParam;
  const std::uint64_t seed = make_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937_64 rng(seed);
  const std::size_t full = 100'003;
  const auto host = random_vector<T>(rng, full, value_range<T>::lo, value_range<T>::hi);
  const parprim::device_buffer<T> dev(host);
  for (std::size_t offset : {1, 2, 3, 5}) {
    for (std::size_t n :
         {std::size_t(1), std::size_t(3), std::size_t(17), std::size_t(9000), full - offset}) {
      SCOPED_TRACE("offset = " + std::to_string(offset) + ", n = " + std::to_string(n));
      const std::vector<T> part(host.begin() + offset, host.begin() + offset + n);
      check_all_rungs(dev.span().subspan(offset, n), part, T(1), parprim::plus{});
      check_all_rungs(dev.span().subspan(offset, n), part, T(1), parprim::maximum{});
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Float results repeat bit for bit: same call twice, with other calls (other sizes, which use
// the same cached scratch and ticket) in between.
TYPED_TEST(CudaReduceBuiltin, FloatResultsAreDeterministic) {
  using T = TypeParam;
  if constexpr (!std::is_floating_point_v<T>) {
    GTEST_SKIP() << "integer results are exact (checked by EveryRungOperatorAndSize)";
  } else {
    PARPRIM_SKIP_WITHOUT_GPU();
    const std::uint64_t seed = make_seed();
    SCOPED_TRACE(seed_trace(seed));
    std::mt19937_64 rng(seed);
    const std::size_t n = std::min<std::size_t>(10'000'000, max_n());
    const auto host = random_vector<T>(rng, n, T(-1), T(1));
    const parprim::device_buffer<T> dev(host);
    for_each_policy(all_rungs, [&](const auto& policy) {
      for (std::size_t m : {std::size_t(1) << 20 | 3, n}) {
        if (m > n) continue;
        const auto in = dev.span().first(m);
        const T a = parprim::reduce(policy, in, T(0));
        (void)parprim::reduce(policy, dev.span().first(m / 3), T(0));
        const T b = parprim::reduce(policy, in, T(0));
        EXPECT_TRUE(bitwise_equal(a, b))
            << rung_name(policy) << " n = " << m << ": " << a << " then " << b;
      }
    });
  }
}

TEST(CudaReduce, CallsFromPlainCxxThroughPrecompiledInstantiations) {
  PARPRIM_SKIP_WITHOUT_GPU();
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 7);
  const parprim::device_buffer<float> dev(host);
  const parprim::device_span<const float> in = dev.span();
  EXPECT_EQ(parprim::reduce(parprim::cuda, in, 0.5f, parprim::plus{}),
            parprim::reduce(parprim::seq, host, 0.5f, parprim::plus{}));
  EXPECT_EQ(parprim::reduce(parprim::cuda, in, 100.0f, parprim::minimum{}), 0.0f);
  EXPECT_EQ(parprim::reduce(parprim::cuda, in, -1.0f, parprim::maximum{}), 6.0f);
  EXPECT_EQ(parprim::reduce(parprim::cuda, parprim::device_span<const float>(), 2.5f), 2.5f);
}

TEST(CudaReduce, StreamsAndThreads) {
  PARPRIM_SKIP_WITHOUT_GPU();
  const std::size_t n = std::min<std::size_t>(3'000'017, max_n());
  std::vector<std::int64_t> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<std::int64_t>(i % 1000) - 300;
  const std::int64_t want = parprim::reduce(parprim::seq, host, std::int64_t(5));
  const parprim::device_buffer<std::int64_t> dev(host);
  cudaStream_t streams[2] = {};
  ASSERT_EQ(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&streams[1]), cudaSuccess);
  std::vector<std::thread> threads;
  std::vector<int> errors(6, 0);
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const cudaStream_t s = t < 4 ? streams[t % 2] : nullptr;  // two threads per stream
      for (int k = 0; k < 20; ++k) {
        const auto p = parprim::cuda.on(s).device(0);
        const auto got =
            k % 2 ? parprim::reduce(p, dev.span(), std::int64_t(5))
                  : parprim::reduce(p.reduce_kernel(parprim::cuda_reduce::k3_sequential_addressing),
                                    dev.span(), std::int64_t(5));
        if (got != want) ++errors[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 6; ++t) EXPECT_EQ(errors[t], 0) << "thread " << t;
  for (cudaStream_t s : streams) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST(CudaReduce, BadInputsRaiseBeforeAnyWork) {
  PARPRIM_SKIP_WITHOUT_GPU();
  // Null data with n > 0: every rung, before any GPU work.
  for_each_policy(all_rungs, [](const auto& policy) {
    EXPECT_THROW(parprim::reduce(policy, parprim::device_span<const int>(nullptr, 10), 0),
                 parprim::invalid_argument)
        << rung_name(policy);
  });
  // n == 0 needs no data and returns init.
  EXPECT_EQ(parprim::reduce(parprim::cuda, parprim::device_span<const int>(nullptr, 0), 7), 7);
  // Host memory behind a device_span.
  std::vector<int> host(100, 1);
  EXPECT_THROW(
      parprim::reduce(parprim::cuda, parprim::device_span<const int>(host.data(), host.size()), 0),
      parprim::invalid_argument);
  // Devices: negative ids are refused by the policy, ids the machine lacks by the runtime.
  EXPECT_THROW((void)parprim::cuda.device(-1), parprim::invalid_argument);
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const parprim::device_buffer<int> dev(host);
  try {
    (void)parprim::reduce(parprim::cuda.device(count), dev.span(), 0);
    ADD_FAILURE() << "no exception for device " << count;
  } catch (const parprim::cuda_error& e) {
    EXPECT_NE(e.code(), 0);
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorInvalidDevice"), std::string::npos) << what;
    EXPECT_NE(what.find(".hpp:"), std::string::npos) << "no call site in: " << what;
  }
  // Nothing is left behind: the next calls work, on every rung.
  for_each_policy(all_rungs, [&](const auto& policy) {
    EXPECT_EQ(parprim::reduce(policy, dev.span(), 1), 101) << rung_name(policy);
  });
}

TEST(CudaReduce, StreamOfAnotherDeviceIsRefused) {
  PARPRIM_SKIP_WITHOUT_GPU();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs, this machine has " << count;
  const parprim::device_buffer<int> dev(std::vector<int>(10, 1));  // on device 0
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_THROW(parprim::reduce(parprim::cuda.on(other).device(0), dev.span(), 0),
               parprim::invalid_argument);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

}  // namespace
}  // namespace parprim_cuda_test
