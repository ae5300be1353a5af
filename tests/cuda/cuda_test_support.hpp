#pragma once
/// \file
/// \brief Shared pieces of the CUDA tests: the GPU check (every test skips without a GPU),
/// the rung list, per-rung boundary sizes, random inputs with a printed seed, the float bound.
/// Plain C++: used by the g++ test files and the .cu ones alike.
///
/// The scan tests' pieces are in namespace parprim_cuda_test::scans (at the end): the scan
/// ladder's rungs, sizes, device buffers with guard elements, device-callable user types and
/// operators, the (type, operator) cases, and the sweep that runs a case through every rung
/// and compares with the reference folds of tests/support/harness.hpp.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "support/harness.hpp"  // tests/support: reference folds, head flags, poison and guards

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

// =============================================================================================
// Scans and segmented scans
// =============================================================================================

namespace parprim_cuda_test::scans {

namespace pt = ::parprim_test;
using pt::density;
using pt::guard;

/// \brief Every rung of the scan ladder, as policies. Every rung keeps sequence order, so every
/// rung takes every operator (non-commutative ones included) and runs the segmented scans.
inline constexpr auto all_scan_rungs =
    std::make_tuple(parprim::cuda.scan_kernel(parprim::cuda_scan::k1_kogge_stone),
                    parprim::cuda.scan_kernel(parprim::cuda_scan::k2_brent_kung),
                    parprim::cuda.scan_kernel(parprim::cuda_scan::k3_coarsened_three_phase),
                    parprim::cuda.scan_kernel(parprim::cuda_scan::k4_warp_reduce_then_scan),
                    parprim::cuda.scan_kernel(parprim::cuda_scan::k5_decoupled_look_back),
                    parprim::cuda.scan_kernel(parprim::cuda_scan::k6_tma_staged_look_back));
inline constexpr std::size_t scan_rung_count = 6;

/// \brief The name of a policy's scan rung, e.g. "k2_brent_kung".
template <class Policy>
std::string scan_rung_name(const Policy&) {
  return parprim::cuda_scan_name(Policy::scan_rung);
}

/// \brief Whether rung number `index` (0-based) is tested: PARPRIM_CUDA_TEST_SCAN_RUNGS, a list
/// of rung numbers (1-based, e.g. "6" or "5,6"; for the compute-sanitizer tools, which are slow),
/// or every rung.
inline bool scan_rung_selected(std::size_t index) {
  const char* s = std::getenv("PARPRIM_CUDA_TEST_SCAN_RUNGS");
  if (s == nullptr || *s == '\0') return true;
  // the numbers in the list, read one by one (no string concatenation: g++ 12's -Wrestrict)
  std::size_t number = 0;
  bool digits = false;
  for (const char* c = s;; ++c) {
    if (*c >= '0' && *c <= '9') {
      number = number * 10 + static_cast<std::size_t>(*c - '0');
      digits = true;
    } else {
      if (digits && number == index + 1) return true;
      number = 0;
      digits = false;
      if (*c == '\0') return false;
    }
  }
}

/// \brief f(policy, index) for every rung of the scan ladder (the selected ones), in order.
template <class F>
void for_each_scan_rung(F f) {
  std::apply(
      [&](const auto&... p) {
        std::size_t i = 0;
        (
            [&] {
              if (scan_rung_selected(i)) f(p, i);
              ++i;
            }(),
            ...);
      },
      all_scan_rungs);
}

/// \brief f(policy) for rung number `index` (0-based) of the scan ladder.
template <class F>
void with_scan_rung(std::size_t index, F f) {
  for_each_scan_rung([&](const auto& p, std::size_t i) {
    if (i == index) f(p);
  });
}

/// \brief The largest n the scan tests use: PARPRIM_CUDA_TEST_MAX_N (e.g. under the
/// compute-sanitizer tools, which are slow), or unlimited.
inline std::size_t scan_max_n() {
  const char* s = std::getenv("PARPRIM_CUDA_TEST_MAX_N");
  return s && *s ? static_cast<std::size_t>(std::stoull(s)) : std::size_t(-1);
}

/// \brief The scan sizes: the edges (0..8), the warp (31, 32, 33), powers of two +-1 from 64 to
/// 2^16 and 2^20 (the tiles of every rung: 512 for rung 1, 1024 for rung 2, 4096 for rung 3 on
/// values of up to 8 bytes, 1024 to 4096 for rung 4 and 2048 to 8192 for rung 5; two tiles;
/// 2^20 + 1 needs three levels of rungs 1 and 2's hierarchy), rung 3's other tiles (768, 1280,
/// 1536, 2816 +-1, and two of them + 1), rung 5's and 6's tuned tiles (1792, 3072, 3584, 6144,
/// 7168: the same),
/// 1337, 3000, 10^4, three random sizes drawn from the seed (up to 3 * 10^6), and 10^7 when asked
/// for. Sizes above PARPRIM_CUDA_TEST_MAX_N are left out.
inline std::vector<std::size_t> scan_sizes(std::uint64_t seed, bool with_ten_million) {
  std::set<std::size_t> s = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 1337, 3000, 10000};
  for (int k : {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20}) {
    const std::size_t p = std::size_t(1) << k;
    s.insert({p - 1, p, p + 1});
  }
  // Rung 3's tiles for 12- to 32-byte values (sections sized to its shared memory): one tile
  // +-1 and two tiles + 1.
  for (std::size_t t : {768u, 1280u, 1536u, 2816u}) s.insert({t - 1, t, t + 1, 2 * t + 1});
  // Rung 5's tiles: registers 256 x 12 (3072), segmented 256 x 24 (6144); rung 6's, in shared
  // memory: 256 x 7 (1792, 16-byte values), 256 x 14 (3584, 8-byte) and 256 x 28 (7168, 4-byte).
  for (std::size_t t : {1792u, 3072u, 3584u, 6144u, 7168u}) s.insert({t - 1, t, t + 1, 2 * t + 1});
  pt::rng_t r = pt::make_rng(seed, 0, 0x51'7e5);
  s.insert(pt::uniform_int<std::size_t>(r, 34, 5000));
  s.insert(pt::uniform_int<std::size_t>(r, 5001, 300000));
  s.insert(pt::uniform_int<std::size_t>(r, 300001, 3000000));
  if (with_ten_million) s.insert(10'000'000);
  std::vector<std::size_t> v;
  for (std::size_t n : s)
    if (n <= scan_max_n()) v.push_back(n);
  return v;
}

/// \brief Throws std::runtime_error (a test failure) when a CUDA call of the test itself fails.
inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("test helper: ") + what +
                             " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

/// \brief The one stream the scan tests run on (created once; a blocking stream, so the
/// synchronous copies of parprim::device_buffer are ordered with it). Every helper below
/// enqueues on it and synchronises before returning.
inline cudaStream_t test_stream() {
  static const cudaStream_t s = [] {
    cudaStream_t st = nullptr;
    cuda_ok(cudaStreamCreate(&st), "cudaStreamCreate");
    return st;
  }();
  return s;
}

/// \brief Device memory with `guard` elements on each side of the n elements a primitive
/// sees (the layout of tests/support/buffer.hpp): guards hold byte 0x5B, unwritten output 0xA5.
/// Allocated once for the largest n and reused.
template <class T>
class guarded_device_buffer {
 public:
  guarded_device_buffer() = default;
  explicit guarded_device_buffer(std::size_t capacity) { reserve(capacity); }

  /// \brief Room for `capacity` visible elements (keeps the contents only if no growth).
  void reserve(std::size_t capacity) {
    if (capacity + 2 * guard > storage_.size())
      storage_ = parprim::device_buffer<T>(capacity + 2 * guard);
  }
  /// \brief n visible elements of poison, guards around them.
  void poison(std::size_t n) {
    resize(n);
    const cudaStream_t s = test_stream();
    set_guards();
    cuda_ok(cudaMemsetAsync(bytes() + guard * sizeof(T), pt::poison_byte, n * sizeof(T), s),
            "cudaMemsetAsync (poison)");
    cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }
  /// \brief The visible elements are a copy of `body`, guards around them.
  void fill(std::span<const T> body) {
    resize(body.size());
    const cudaStream_t s = test_stream();
    set_guards();
    if (!body.empty())
      cuda_ok(cudaMemcpyAsync(storage_.data() + guard, body.data(), body.size_bytes(),
                              cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (fill)");
    cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }
  void fill(const std::vector<T>& body) { fill(std::span<const T>(body)); }

  /// \return the visible elements
  parprim::device_span<T> body() { return {storage_.data() + guard, n_}; }
  parprim::device_span<const T> body() const { return {storage_.data() + guard, n_}; }
  /// \return a host copy of everything: guard, visible elements, guard
  std::vector<T> read_all() const {
    std::vector<T> h(n_ + 2 * guard);
    const cudaStream_t s = test_stream();
    cuda_ok(
        cudaMemcpyAsync(h.data(), storage_.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost, s),
        "cudaMemcpyAsync (read)");
    cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return h;
  }
  /// \return a host copy of the visible elements
  std::vector<T> read_body() const {
    std::vector<T> h = read_all();
    return std::vector<T>(h.begin() + static_cast<std::ptrdiff_t>(guard),
                          h.end() - static_cast<std::ptrdiff_t>(guard));
  }
  std::size_t size() const { return n_; }

 private:
  void resize(std::size_t n) {
    reserve(n);
    n_ = n;
  }
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(storage_.data()); }
  void set_guards() {
    const cudaStream_t s = test_stream();
    cuda_ok(cudaMemsetAsync(bytes(), pt::guard_byte, guard * sizeof(T), s), "cudaMemsetAsync");
    cuda_ok(
        cudaMemsetAsync(bytes() + (guard + n_) * sizeof(T), pt::guard_byte, guard * sizeof(T), s),
        "cudaMemsetAsync");
  }
  parprim::device_buffer<T> storage_;
  std::size_t n_ = 0;
};

/// \brief Whether the whole device buffer (guards included) still holds `body` inside guards.
template <class T>
::testing::AssertionResult device_unchanged(const guarded_device_buffer<T>& d,
                                            const std::vector<T>& body) {
  const std::vector<T> all = d.read_all();
  return pt::unchanged(std::span<const T>(all), std::span<const T>(body));
}

// --- device-callable user types and operators (as tests/support/cases.hpp, plus
// __host__ __device__; their own namespace, so they do not clash with reduce_user_test.cu's) --

/// \brief 2x2 matrix [a b; c d] of uint32 (arithmetic mod 2^32).
struct mat2 {
  std::uint32_t a, b, c, d;
  friend bool operator==(const mat2&, const mat2&) = default;
};
inline std::ostream& operator<<(std::ostream& os, const mat2& m) {
  return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
}
/// \brief Matrix product l * r: associative, NOT commutative (no trait).
struct mat2_multiply {
  PARPRIM_HOST_DEVICE mat2 operator()(const mat2& l, const mat2& r) const {
    return {l.a * r.a + l.b * r.c, l.a * r.b + l.b * r.d, l.c * r.a + l.d * r.c,
            l.c * r.b + l.d * r.d};
  }
};

/// \brief The map x -> a x + b (mod 2^32).
struct affine {
  std::uint32_t a, b;
  friend bool operator==(const affine&, const affine&) = default;
};
inline std::ostream& operator<<(std::ostream& os, const affine& f) {
  return os << "x -> " << f.a << "x + " << f.b;
}
/// \brief compose(f, g) = "f, then g": x -> g.a (f.a x + f.b) + g.b. NOT commutative.
struct affine_compose {
  PARPRIM_HOST_DEVICE affine operator()(const affine& f, const affine& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

/// \brief A user struct of three int64 with + and a lexicographic < (so parprim::minimum and
/// parprim::maximum work on it; ties between different vectors cannot happen, equal vectors
/// are indistinguishable).
struct vec3 {
  std::int64_t x, y, z;
  friend PARPRIM_HOST_DEVICE vec3 operator+(const vec3& l, const vec3& r) {
    return {l.x + r.x, l.y + r.y, l.z + r.z};
  }
  friend PARPRIM_HOST_DEVICE bool operator<(const vec3& l, const vec3& r) {
    return l.x != r.x ? l.x < r.x : (l.y != r.y ? l.y < r.y : l.z < r.z);
  }
  friend bool operator==(const vec3&, const vec3&) = default;
};
inline std::ostream& operator<<(std::ostream& os, const vec3& v) {
  return os << "{" << v.x << ", " << v.y << ", " << v.z << "}";
}
/// \brief vec3 addition, declared commutative with a member.
struct vec3_plus {
  static constexpr bool is_commutative = true;
  PARPRIM_HOST_DEVICE vec3 operator()(const vec3& l, const vec3& r) const { return l + r; }
};

// --- the (type, operator) cases: the interface of tests/support/cases.hpp (in_t, acc_t, op_t,
// approximate, gen(rng, index), init(rng)) plus a name ------------------------------------------

template <class In, class Acc, class Op, bool Approx = false>
struct case_base {
  using in_t = In;
  using acc_t = Acc;
  using op_t = Op;
  static constexpr bool approximate = Approx;
};

template <class I>
I full_range(pt::rng_t& r) {
  return pt::uniform_int<I>(r, std::numeric_limits<I>::min(), std::numeric_limits<I>::max());
}

namespace cases {
using std::int32_t, std::int64_t, std::int8_t, std::uint32_t, std::uint64_t;

/// int8 into int32: |prefix| <= 128 (n + 1) + 1000 < 2^31 for n <= 1.6 * 10^7.
struct Int8PlusInt32 : case_base<int8_t, int32_t, parprim::plus> {
  static constexpr const char* name = "int8 -> int32 plus";
  static int8_t gen(pt::rng_t& r, std::size_t) { return full_range<int8_t>(r); }
  static int32_t init(pt::rng_t& r) { return pt::uniform_int<int32_t>(r, -1000, 1000); }
};
/// Values in [-100, 100], init in [-1000, 1000]: |prefix| < 2^31 for n <= 2 * 10^7.
struct Int32Plus : case_base<int32_t, int32_t, parprim::plus> {
  static constexpr const char* name = "int32 plus";
  static int32_t gen(pt::rng_t& r, std::size_t) { return pt::uniform_int<int32_t>(r, -100, 100); }
  static int32_t init(pt::rng_t& r) { return pt::uniform_int<int32_t>(r, -1000, 1000); }
};
template <class T, class Op>
struct full_range_case : case_base<T, T, Op> {
  static T gen(pt::rng_t& r, std::size_t) { return full_range<T>(r); }
  static T init(pt::rng_t& r) { return full_range<T>(r); }
};
struct Int32Min : full_range_case<int32_t, parprim::minimum> {
  static constexpr const char* name = "int32 minimum";
};
struct Int32Max : full_range_case<int32_t, parprim::maximum> {
  static constexpr const char* name = "int32 maximum";
};
/// Full range: the sums wrap (defined for unsigned types).
struct Uint32Plus : full_range_case<uint32_t, parprim::plus> {
  static constexpr const char* name = "uint32 plus (wraps)";
};
struct Uint32Min : full_range_case<uint32_t, parprim::minimum> {
  static constexpr const char* name = "uint32 minimum";
};
struct Uint32Max : full_range_case<uint32_t, parprim::maximum> {
  static constexpr const char* name = "uint32 maximum";
};
/// Values and init in [-2^40, 2^40]: |prefix| < 2^63 for any n below 2^22 * 10^3.
struct Int64Plus : case_base<int64_t, int64_t, parprim::plus> {
  static constexpr const char* name = "int64 plus";
  static int64_t gen(pt::rng_t& r, std::size_t) {
    return pt::uniform_int<int64_t>(r, -(int64_t{1} << 40), int64_t{1} << 40);
  }
  static int64_t init(pt::rng_t& r) { return gen(r, 0); }
};
struct Int64Min : full_range_case<int64_t, parprim::minimum> {
  static constexpr const char* name = "int64 minimum";
};
struct Int64Max : full_range_case<int64_t, parprim::maximum> {
  static constexpr const char* name = "int64 maximum";
};
struct Uint64Plus : full_range_case<uint64_t, parprim::plus> {
  static constexpr const char* name = "uint64 plus (wraps)";
};
struct Uint64Min : full_range_case<uint64_t, parprim::minimum> {
  static constexpr const char* name = "uint64 minimum";
};
struct Uint64Max : full_range_case<uint64_t, parprim::maximum> {
  static constexpr const char* name = "uint64 maximum";
};
/// Rounded sums: compared within the per-element bound of tests/support/harness.hpp,
/// |got - exact| <= 2 m eps (|x_1| + ... + |x_m|) for an element folding m operands (init
/// included), which holds for every combination tree (see harness.hpp for the derivation).
struct FloatPlus : case_base<float, float, parprim::plus, true> {
  static constexpr const char* name = "float plus (rounded: within the bound)";
  static float gen(pt::rng_t& r, std::size_t) { return pt::uniform_real<float>(r, -1.0f, 1.0f); }
  static float init(pt::rng_t& r) { return gen(r, 0); }
};
/// Integers in [-3, 3]: every partial sum is an integer below 2^24 for n <= 2^22, so exact in
/// any order: compared bit for bit (finds any combination error the bound would hide).
struct FloatPlusExact : case_base<float, float, parprim::plus> {
  static constexpr const char* name = "float plus (integer values: exact)";
  static float gen(pt::rng_t& r, std::size_t) {
    return static_cast<float>(pt::uniform_int<int>(r, -3, 3));
  }
  static float init(pt::rng_t& r) { return gen(r, 0); }
};
struct FloatMin : case_base<float, float, parprim::minimum> {
  static constexpr const char* name = "float minimum";
  static float gen(pt::rng_t& r, std::size_t) { return pt::uniform_real<float>(r, -1e3f, 1e3f); }
  static float init(pt::rng_t& r) { return gen(r, 0); }
};
struct FloatMax : FloatMin {
  static constexpr const char* name = "float maximum";
  using op_t = parprim::maximum;
};
/// NaNs, signed zeros, infinities and numbers: every rung gives the left fold's bits.
template <class F, class Op>
struct Special : case_base<F, F, Op> {
  static constexpr const char* name =
      std::is_same_v<F, float>
          ? (std::is_same_v<Op, parprim::minimum> ? "float minimum (NaN, -0, +0, inf)"
                                                  : "float maximum (NaN, -0, +0, inf)")
          : (std::is_same_v<Op, parprim::minimum> ? "double minimum (NaN, -0, +0, inf)"
                                                  : "double maximum (NaN, -0, +0, inf)");
  static F gen(pt::rng_t& r, std::size_t) { return pt::special_value<F>(r); }
  static F init(pt::rng_t& r) { return gen(r, 0); }
};
using FloatMinSpecial = Special<float, parprim::minimum>;
using FloatMaxSpecial = Special<float, parprim::maximum>;
using DoubleMinSpecial = Special<double, parprim::minimum>;
using DoubleMaxSpecial = Special<double, parprim::maximum>;
struct DoublePlus : case_base<double, double, parprim::plus, true> {
  static constexpr const char* name = "double plus (rounded: within the bound)";
  static double gen(pt::rng_t& r, std::size_t) { return pt::uniform_real<double>(r, -1e6, 1e6); }
  static double init(pt::rng_t& r) { return gen(r, 0); }
};
/// Integers in [-2^28, 2^28]: partial sums below 2^53 for n < 2^24: exact in any order.
struct DoublePlusExact : case_base<double, double, parprim::plus> {
  static constexpr const char* name = "double plus (integer values: exact)";
  static double gen(pt::rng_t& r, std::size_t) {
    return static_cast<double>(pt::uniform_int<int64_t>(r, -(int64_t{1} << 28), int64_t{1} << 28));
  }
  static double init(pt::rng_t& r) { return gen(r, 0); }
};
struct DoubleMin : case_base<double, double, parprim::minimum> {
  static constexpr const char* name = "double minimum";
  static double gen(pt::rng_t& r, std::size_t) {
    return pt::uniform_real<double>(r, -1e300, 1e300);
  }
  static double init(pt::rng_t& r) { return gen(r, 0); }
};
struct DoubleMax : DoubleMin {
  static constexpr const char* name = "double maximum";
  using op_t = parprim::maximum;
};
/// Non-commutative: the result is the sequential left fold only if sequence order is kept.
struct Mat2Product : case_base<mat2, mat2, mat2_multiply> {
  static constexpr const char* name = "2x2 matrix product (non-commutative)";
  static mat2 gen(pt::rng_t& r, std::size_t) {
    return {full_range<uint32_t>(r), full_range<uint32_t>(r), full_range<uint32_t>(r),
            full_range<uint32_t>(r)};
  }
  static mat2 init(pt::rng_t& r) { return gen(r, 0); }
};
/// Non-commutative; odd slopes, so the composed slope never becomes 0 (every element matters).
struct AffineCompose : case_base<affine, affine, affine_compose> {
  static constexpr const char* name = "affine composition (non-commutative)";
  static affine gen(pt::rng_t& r, std::size_t) {
    return {full_range<uint32_t>(r) | 1u, full_range<uint32_t>(r)};
  }
  static affine init(pt::rng_t& r) { return gen(r, 0); }
};
template <class Op>
struct vec3_case : case_base<vec3, vec3, Op> {
  static vec3 gen(pt::rng_t& r, std::size_t) {
    return {pt::uniform_int<int64_t>(r, -8, 8), pt::uniform_int<int64_t>(r, -8, 8),
            pt::uniform_int<int64_t>(r, -(int64_t{1} << 40), int64_t{1} << 40)};
  }
  static vec3 init(pt::rng_t& r) { return gen(r, 0); }
};
struct Vec3Plus : vec3_case<vec3_plus> {
  static constexpr const char* name = "vec3 (user struct) plus";
};
struct Vec3Min : vec3_case<parprim::minimum> {
  static constexpr const char* name = "vec3 (user struct) minimum";
};
struct Vec3Max : vec3_case<parprim::maximum> {
  static constexpr const char* name = "vec3 (user struct) maximum";
};
}  // namespace cases

// --- one call, and the sweep over sizes, variants, rungs and placements ----------------------

/// \brief What one call computes: a plain or segmented (flags of one density), inclusive or
/// exclusive scan.
struct variant {
  bool segmented = false;
  bool exclusive = false;
  density flags = density::none;
};

template <class Acc>
std::string describe(const variant& v, const Acc& init) {
  std::string s = v.segmented ? "segmented " : "";
  s += v.exclusive ? "exclusive scan, init " + pt::show(init) : std::string("inclusive scan");
  if (v.segmented) s += std::string(", head flags: ") + pt::density_name(v.flags);
  return s;
}

/// \brief The public call for `v` with `policy` (`flags` unused by plain scans).
template <class Policy, class InSpan, class FlagSpan, class Acc, class Op>
void call_public(const Policy& policy, const variant& v, const InSpan& in, const FlagSpan& flags,
                 parprim::device_span<Acc> out, const Acc& init, Op op) {
  if (v.segmented) {
    if (v.exclusive)
      parprim::segmented_exclusive_scan(policy, in, flags, out, init, op);
    else
      parprim::segmented_inclusive_scan(policy, in, flags, out, op);
  } else {
    if (v.exclusive)
      parprim::exclusive_scan(policy, in, out, init, op);
    else
      parprim::inclusive_scan(policy, in, out, op);
  }
}

/// \brief What a sweep runs.
struct sweep_options {
  bool plain = true;       ///< inclusive_scan and exclusive_scan
  bool segmented = false;  ///< segmented_inclusive_scan and segmented_exclusive_scan
  /// the head-flag densities of the segmented scans
  std::vector<density> densities = {std::begin(pt::all_densities), std::end(pt::all_densities)};
  bool in_place = true;  ///< also in place (where the element and accumulator types agree)
  /// Up to this n every rung runs every (variant, placement); above it, rung r at size number
  /// s runs combination (r + s) mod (count), so every rung meets every combination over the
  /// sizes at a fraction of the cost.
  std::size_t full_cross_max = 4097;
};

/// \brief One run: poisons (or, in place, refills) the output, calls `policy` on the test
/// stream, and compares the whole output buffer, guards included, with `want`.
template <class Case, class Policy>
void run_one(const Policy& policy, const variant& v, bool in_place,
             const std::vector<typename Case::in_t>& in,
             const guarded_device_buffer<typename Case::in_t>& d_in,
             const guarded_device_buffer<std::uint8_t>& d_flags,
             guarded_device_buffer<typename Case::acc_t>& d_out, const typename Case::acc_t& init,
             const pt::expectation<typename Case::acc_t>& want) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  parprim::device_span<const In> src = d_in.body();
  if constexpr (std::is_same_v<In, Acc>) {
    if (in_place) {
      d_out.fill(in);
      src = d_out.body();
    }
  }
  if (!in_place) d_out.poison(in.size());
  call_public(policy.on(test_stream()), v, src, d_flags.body(), d_out.body(), init,
              typename Case::op_t{});
  const std::vector<Acc> got = d_out.read_all();
  ASSERT_TRUE(pt::matches(want, std::span<const Acc>(got)))
      << scan_rung_name(policy) << ", " << (in_place ? "in place" : "out of place");
}

/// \brief Runs `Case` through every rung of the scan ladder at every size: plain and/or
/// segmented scans (every density), inclusive and exclusive (random, non-identity init), in
/// place and out of place, each output compared with the reference fold of harness.hpp over
/// the whole buffer with its guards (integers and min/max exactly, rounded float sums within
/// the bound). Also checks that the input and the flags are unchanged.
template <class Case>
void sweep(std::uint64_t seed, const std::vector<std::size_t>& sizes, const sweep_options& o) {
  using In = typename Case::in_t;
  using Acc = typename Case::acc_t;
  constexpr bool can_in_place = std::is_same_v<In, Acc>;
  const std::size_t placements = (can_in_place && o.in_place) ? 2 : 1;
  std::vector<variant> variants;
  for (bool exclusive : {false, true}) {
    if (o.plain) variants.push_back({false, exclusive, density::none});
    if (o.segmented)
      for (density d : o.densities) variants.push_back({true, exclusive, d});
  }
  const std::size_t combinations = variants.size() * placements;
  const std::size_t capacity = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  guarded_device_buffer<In> d_in(capacity);
  guarded_device_buffer<std::uint8_t> d_flags(o.segmented ? capacity : 0);
  guarded_device_buffer<Acc> d_out(capacity);
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::size_t n = sizes[si];
    SCOPED_TRACE(std::string(Case::name) + ", n = " + std::to_string(n));
    pt::rng_t r = pt::make_rng(seed, n);
    const std::vector<In> in = pt::make_input<Case>(r, n);
    const Acc init = Case::init(r);
    d_in.fill(in);
    d_flags.poison(0);
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      const variant& v = variants[vi];
      std::vector<std::pair<std::size_t, std::size_t>> runs;  // (rung, placement)
      for (std::size_t ri = 0; ri < scan_rung_count; ++ri)
        for (std::size_t pl = 0; pl < placements; ++pl)
          if (n <= o.full_cross_max || (ri + si) % combinations == vi * placements + pl)
            runs.emplace_back(ri, pl);
      if (runs.empty()) continue;
      SCOPED_TRACE(describe(v, init));
      std::vector<std::uint8_t> flags;
      if (v.segmented) {
        pt::rng_t fr = pt::make_rng(seed, n, 1 + static_cast<std::uint64_t>(v.flags));
        flags = pt::make_flags(fr, n, v.flags);
        d_flags.fill(flags);
      }
      const auto want = pt::reference<Case>::scan(
          std::span<const In>(in), v.segmented ? flags.data() : nullptr, v.exclusive, init);
      for (const auto& [ri, pl] : runs) {
        with_scan_rung(ri, [&](const auto& rung) {
          run_one<Case>(rung, v, pl == 1, in, d_in, d_flags, d_out, init, want);
        });
        if (::testing::Test::HasFatalFailure()) return;
      }
      if (v.segmented) {
        ASSERT_TRUE(device_unchanged(d_flags, flags)) << "the head flags changed";
      }
    }
    ASSERT_TRUE(device_unchanged(d_in, in)) << "the input changed";
  }
}

/// \brief The expectation for elements [1, n] of `e` (which describes n + 1 elements): what a
/// call with a carry must produce (the carry tests scan [carry] ++ in on the host).
template <class Acc>
pt::expectation<Acc> drop_first(const pt::expectation<Acc>& e) {
  const std::size_t n = e.exact.size() - 2 * guard - 1;
  pt::expectation<Acc> d;
  d.approximate = e.approximate;
  d.exact = pt::poisoned<Acc>(n);
  std::copy(e.exact.begin() + static_cast<std::ptrdiff_t>(guard + 1),
            e.exact.begin() + static_cast<std::ptrdiff_t>(guard + 1 + n),
            d.exact.begin() + static_cast<std::ptrdiff_t>(guard));
  if (e.approximate) {
    d.wide.assign(e.wide.begin() + 1, e.wide.end());
    d.bound.assign(e.bound.begin() + 1, e.bound.end());
  }
  return d;
}

}  // namespace parprim_cuda_test::scans
