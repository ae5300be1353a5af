#pragma once
/// \file
/// \brief What the MPI tests share: the seed (broadcast from rank 0), the local policies, the
/// value x operator cases, how the global sequence is split into blocks (uneven, empty ranks),
/// gathering a distributed result, and the checks against `parprim::seq` on the gathered
/// global sequence (and, for floating point, against a long double reference).
///
/// Every rank generates the whole global input from the shared seed and passes its block;
/// outputs are gathered to every rank and every rank makes the same comparisons, so the ranks
/// stay in step (a test that returned early on one rank would leave the others in a
/// collective). Use EXPECT_*, never ASSERT_*, on data-dependent conditions.

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <parprim/parprim.hpp>

#include "../support/special_values.hpp"

namespace parprim_mpi_test {

using rng_t = std::mt19937_64;

// --- the communicator and the seed ----------------------------------------------------------

struct world {
  int rank;
  int size;
};
inline world comm_world() {
  world w{};
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

/// \brief The run's seed: PARPRIM_TEST_SEED or fresh on rank 0, broadcast (set by main.cpp).
std::uint64_t seed();
/// \brief The failure trace line.
inline std::string seed_trace() {
  const auto s = seed();
  return "seed " + std::to_string(s) + " (rerun with PARPRIM_TEST_SEED=" + std::to_string(s) + ")";
}
/// \brief A generator depending only on the seed and the given salts.
inline rng_t make_rng(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  const std::uint64_t s = seed();
  std::seed_seq seq{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(s >> 32),
                    static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b),
                    static_cast<std::uint32_t>(c)};
  return rng_t(seq);
}
template <class I>
I uniform_int(rng_t& r, I lo, I hi) {
  if constexpr (std::is_signed_v<I>) {
    return static_cast<I>(std::uniform_int_distribution<long long>(lo, hi)(r));
  } else {
    return static_cast<I>(std::uniform_int_distribution<unsigned long long>(lo, hi)(r));
  }
}
template <class F>
F uniform_real(rng_t& r, F lo, F hi) {
  return static_cast<F>(std::uniform_real_distribution<double>(lo, hi)(r));
}

// --- local policies -------------------------------------------------------------------------

struct seq_local {
  static constexpr const char* name = "seq";
  static parprim::seq_policy policy() { return parprim::seq; }
};
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
/// Two threads and a small grain, so that blocks of a few dozen elements really split.
struct omp_local {
  static constexpr const char* name = "omp";
  static parprim::omp_policy policy() { return parprim::omp.threads(2).grain(8); }
};
#endif

// --- user types -----------------------------------------------------------------------------

/// A struct for plus / min / max (lexicographic order), described with PARPRIM_MPI_STRUCT.
struct pair_ii {
  std::int32_t a;
  std::int64_t b;
  friend pair_ii operator+(const pair_ii& x, const pair_ii& y) {
    return {static_cast<std::int32_t>(x.a + y.a), x.b + y.b};
  }
  friend bool operator<(const pair_ii& x, const pair_ii& y) {
    return x.a < y.a || (x.a == y.a && x.b < y.b);
  }
  friend bool operator==(const pair_ii&, const pair_ii&) = default;
};

/// 2x2 matrix of uint32 (row-major), product mod 2^32: associative, not commutative.
struct mat2 {
  std::uint32_t m[4];
  friend bool operator==(const mat2&, const mat2&) = default;
};
struct mat2_product {
  mat2 operator()(const mat2& x, const mat2& y) const {
    const auto* a = x.m;
    const auto* b = y.m;
    return {{static_cast<std::uint32_t>(a[0] * b[0] + a[1] * b[2]),
             static_cast<std::uint32_t>(a[0] * b[1] + a[1] * b[3]),
             static_cast<std::uint32_t>(a[2] * b[0] + a[3] * b[2]),
             static_cast<std::uint32_t>(a[2] * b[1] + a[3] * b[3])}};
  }
};

/// Affine map x -> a x + b; composition "first f, then g": not commutative.
template <class F>
struct affine {
  F a;
  F b;
  friend bool operator==(const affine&, const affine&) = default;
};
struct affine_compose {
  template <class F>
  affine<F> operator()(const affine<F>& f, const affine<F>& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

/// {value, index}: the smallest value, ties to the smallest index. Commutative.
struct argmin_t {
  float value;
  std::int64_t index;
  friend bool operator==(const argmin_t&, const argmin_t&) = default;
};
struct argmin_op {
  static constexpr bool is_commutative = true;
  argmin_t operator()(const argmin_t& x, const argmin_t& y) const {
    return (y.value < x.value || (y.value == x.value && y.index < x.index)) ? y : x;
  }
};

/// Not described: travels as MPI_BYTE. Componentwise xor and add mod 2^16.
struct opaque {
  std::uint16_t lo;
  std::uint16_t hi;
  friend bool operator==(const opaque&, const opaque&) = default;
};
struct opaque_op {
  opaque operator()(const opaque& x, const opaque& y) const {
    return {static_cast<std::uint16_t>(x.lo ^ y.lo), static_cast<std::uint16_t>(x.hi + y.hi)};
  }
};

}  // namespace parprim_mpi_test

/// Composition of affine maps of doubles rounds: the operator checker (PARPRIM_CHECK_OPERATORS)
/// compares its regroupings within a relative tolerance, as it does for plain doubles.
template <class F>
struct parprim::operator_check_equal<parprim_mpi_test::affine<F>> {
  static bool equal(const parprim_mpi_test::affine<F>& x, const parprim_mpi_test::affine<F>& y) {
    const auto close = [](F u, F v) {
      return std::fabs(u - v) <=
             8 * std::numeric_limits<F>::epsilon() * (std::fabs(u) + std::fabs(v) + F(1));
    };
    return close(x.a, y.a) && close(x.b, y.b);
  }
};

PARPRIM_MPI_STRUCT(parprim_mpi_test::pair_ii, a, b);
PARPRIM_MPI_STRUCT(parprim_mpi_test::mat2, m);
using parprim_mpi_test_affine_d = parprim_mpi_test::affine<double>;
PARPRIM_MPI_STRUCT(parprim_mpi_test_affine_d, a, b);
PARPRIM_MPI_STRUCT(parprim_mpi_test::argmin_t, value, index);

namespace parprim_mpi_test {

// --- cases: element type, accumulator type, operator, generator, how results are compared --

/// Exact cases: results must equal parprim::seq on the global sequence.
template <class In, class Acc, class Op>
struct exact_case {
  using in_t = In;
  using acc_t = Acc;
  using op_t = Op;
  static constexpr bool exact = true;
};

/// \brief A user operator on long double: its wire type {long double, bool} has 15 bytes of
/// padding that the datatype does not describe (MPI's temporary buffers leave them out).
struct ld_plus {
  long double operator()(long double a, long double b) const { return a + b; }
};

#define PARPRIM_TEST_CASE(Name, In, Acc, Op, ...)   \
  struct Name : exact_case<In, Acc, Op> {           \
    static constexpr const char* name = #Name;      \
    static In gen(rng_t& r) { return __VA_ARGS__; } \
  }

PARPRIM_TEST_CASE(i8_into_i64_plus, std::int8_t, std::int64_t, parprim::plus,
                  uniform_int<std::int8_t>(r, -128, 127));
PARPRIM_TEST_CASE(i32_plus, std::int32_t, std::int32_t, parprim::plus,
                  uniform_int<std::int32_t>(r, -1000, 1000));
PARPRIM_TEST_CASE(i32_min, std::int32_t, std::int32_t, parprim::minimum,
                  uniform_int<std::int32_t>(r, -1000000000, 1000000000));
PARPRIM_TEST_CASE(i32_max, std::int32_t, std::int32_t, parprim::maximum,
                  uniform_int<std::int32_t>(r, -1000000000, 1000000000));
PARPRIM_TEST_CASE(i64_plus, std::int64_t, std::int64_t, parprim::plus,
                  uniform_int<std::int64_t>(r, -1000000000000LL, 1000000000000LL));
PARPRIM_TEST_CASE(i64_min, std::int64_t, std::int64_t, parprim::minimum,
                  uniform_int<std::int64_t>(r, std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max()));
PARPRIM_TEST_CASE(i64_max, std::int64_t, std::int64_t, parprim::maximum,
                  uniform_int<std::int64_t>(r, std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max()));
PARPRIM_TEST_CASE(u32_plus, std::uint32_t, std::uint32_t, parprim::plus,
                  uniform_int<std::uint32_t>(r, 0, 0xffffffffu));
PARPRIM_TEST_CASE(u32_min, std::uint32_t, std::uint32_t, parprim::minimum,
                  uniform_int<std::uint32_t>(r, 0, 0xffffffffu));
PARPRIM_TEST_CASE(u32_max, std::uint32_t, std::uint32_t, parprim::maximum,
                  uniform_int<std::uint32_t>(r, 0, 0xffffffffu));
PARPRIM_TEST_CASE(f32_min, float, float, parprim::minimum, uniform_real<float>(r, -100, 100));
PARPRIM_TEST_CASE(f32_max, float, float, parprim::maximum, uniform_real<float>(r, -100, 100));
PARPRIM_TEST_CASE(f64_min, double, double, parprim::minimum, uniform_real<double>(r, -100, 100));
PARPRIM_TEST_CASE(f64_max, double, double, parprim::maximum, uniform_real<double>(r, -100, 100));
PARPRIM_TEST_CASE(f32_min_special, float, float, parprim::minimum,
                  parprim_test::special_value<float>(r));
PARPRIM_TEST_CASE(f64_max_special, double, double, parprim::maximum,
                  parprim_test::special_value<double>(r));
PARPRIM_TEST_CASE(f64_into_i32_plus, double, std::int32_t, parprim::plus,
                  uniform_real<double>(r, -100.9, 100.9));
PARPRIM_TEST_CASE(ld_user_plus, long double, long double, ld_plus,
                  static_cast<long double>(uniform_int<int>(r, -1000, 1000)));
PARPRIM_TEST_CASE(struct_plus, pair_ii, pair_ii, parprim::plus,
                  pair_ii{uniform_int<std::int32_t>(r, -1000, 1000),
                          uniform_int<std::int64_t>(r, -1000000000000LL, 1000000000000LL)});
PARPRIM_TEST_CASE(struct_min, pair_ii, pair_ii, parprim::minimum,
                  pair_ii{uniform_int<std::int32_t>(r, -3, 3),
                          uniform_int<std::int64_t>(r, -9, 9)});
PARPRIM_TEST_CASE(struct_max, pair_ii, pair_ii, parprim::maximum,
                  pair_ii{uniform_int<std::int32_t>(r, -3, 3),
                          uniform_int<std::int64_t>(r, -9, 9)});
PARPRIM_TEST_CASE(mat2_u32_product, mat2, mat2, mat2_product,
                  mat2{{uniform_int<std::uint32_t>(r, 0, 0xffffffffu),
                        uniform_int<std::uint32_t>(r, 0, 0xffffffffu),
                        uniform_int<std::uint32_t>(r, 0, 0xffffffffu),
                        uniform_int<std::uint32_t>(r, 0, 0xffffffffu)}});
PARPRIM_TEST_CASE(argmin, argmin_t, argmin_t, argmin_op,
                  argmin_t{static_cast<float>(uniform_int<int>(r, 0, 20)),
                           uniform_int<std::int64_t>(r, 0, 1000)});
PARPRIM_TEST_CASE(bytes_opaque, opaque, opaque, opaque_op,
                  opaque{uniform_int<std::uint16_t>(r, 0, 0xffff),
                         uniform_int<std::uint16_t>(r, 0, 0xffff)});
#undef PARPRIM_TEST_CASE

/// Floating-point sums: within a bound of a long double reference, all ranks bitwise equal.
/// Bound for a fold of k terms (in any association): 2 (k + 1) eps (|init| + sum |x_i|).
template <class F>
struct float_plus {
  using in_t = F;
  using acc_t = F;
  using op_t = parprim::plus;
  using ref_t = long double;
  static constexpr bool exact = false;
  static constexpr const char* name = sizeof(F) == 4 ? "f32_plus" : "f64_plus";
  static F gen(rng_t& r) { return uniform_real<F>(r, -1, 1); }
  static ref_t to_ref(F x) { return x; }
  static ref_t ref_op(ref_t a, ref_t b) { return a + b; }
  static long double magnitude(F x) { return std::fabs(static_cast<long double>(x)); }
  /// \param terms  the number of values folded; \param mag  the sum of their magnitudes
  static bool close(F got, ref_t ref, std::size_t terms, long double mag) {
    const long double eps = std::numeric_limits<F>::epsilon();
    return std::fabs(static_cast<long double>(got) - ref) <=
           2 * (static_cast<long double>(terms) + 1) * eps * mag;
  }
};
using f32_plus = float_plus<float>;
using f64_plus = float_plus<double>;

/// Composition of affine maps (double), non-commutative: |a|, |b| <= 1, so every composed map
/// has |A| <= 1 and |B| <= k; bound 4 (k + 1) eps (1 + sum |b_i|) on each coefficient.
struct affine_f64 {
  using in_t = affine<double>;
  using acc_t = affine<double>;
  using op_t = affine_compose;
  using ref_t = affine<long double>;
  static constexpr bool exact = false;
  static constexpr const char* name = "affine_f64_compose";
  static in_t gen(rng_t& r) {
    return {uniform_real<double>(r, -1, 1), uniform_real<double>(r, -1, 1)};
  }
  static ref_t to_ref(const in_t& x) { return {x.a, x.b}; }
  static ref_t ref_op(const ref_t& f, const ref_t& g) { return affine_compose{}(f, g); }
  static long double magnitude(const in_t& x) { return std::fabs(static_cast<long double>(x.b)); }
  static bool close(const acc_t& got, const ref_t& ref, std::size_t terms, long double mag) {
    const long double bound = 4 * (static_cast<long double>(terms) + 1) *
                              std::numeric_limits<double>::epsilon() * (1 + mag);
    return std::fabs(got.a - ref.a) <= bound && std::fabs(got.b - ref.b) <= bound;
  }
};

/// \brief A case run with a local policy.
template <class Local, class Case>
struct combo {
  using local = Local;
  using value_case = Case;
};

template <class... Cases>
struct with_locals {
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  using type = ::testing::Types<combo<seq_local, Cases>..., combo<omp_local, Cases>...>;
#else
  using type = ::testing::Types<combo<seq_local, Cases>...>;
#endif
};

/// \brief The combinations of the per-segment suites (segmented_reduce, by key): integer plus /
/// min / max of several widths, float sums (bounded), float max with NaNs and signed zeros, a
/// described struct, both non-commutative operators (one of them rounding), argmin and an
/// undescribed type that travels as bytes.
using segment_combos =
    with_locals<i8_into_i64_plus, i32_plus, i32_min, i32_max, i64_plus, f32_plus, f64_max_special,
                struct_plus, mat2_u32_product, affine_f64, argmin, bytes_opaque>::type;

/// \brief Every combination the typed suites run.
using all_combos =
    with_locals<i8_into_i64_plus, i32_plus, i32_min, i32_max, i64_plus, i64_min, i64_max, u32_plus,
                u32_min, u32_max, f32_plus, f32_min, f32_max, f64_plus, f64_min, f64_max,
                f32_min_special, f64_max_special, f64_into_i32_plus, ld_user_plus, struct_plus,
                struct_min, struct_max, mat2_u32_product, affine_f64, argmin, bytes_opaque>::type;

struct combo_names {
  template <class C>
  static std::string GetName(int) {
    return std::string(C::local::name) + "_" + C::value_case::name;
  }
};

// --- splitting the global sequence over the ranks -------------------------------------------

/// \brief How n elements are split over p ranks.
enum class split { even, uneven, first_empty, last_empty, one_rank, odd_ranks_empty };
inline const char* split_name(split s) {
  switch (s) {
    case split::even:
      return "even";
    case split::uneven:
      return "uneven (random)";
    case split::first_empty:
      return "rank 0 empty";
    case split::last_empty:
      return "last rank empty";
    case split::one_rank:
      return "all on the middle rank";
    case split::odd_ranks_empty:
      return "odd ranks empty";
  }
  return "?";
}
inline constexpr split all_splits[] = {split::even,       split::uneven,   split::first_empty,
                                       split::last_empty, split::one_rank, split::odd_ranks_empty};
/// \brief Global sizes every suite runs (0: every rank empty).
inline constexpr std::size_t all_sizes[] = {0, 1, 2, 5, 97, 3001};

/// \brief The blocks: sizes and offsets (in rank order).
struct layout {
  std::vector<std::size_t> count;
  std::vector<std::size_t> offset;
  std::size_t total = 0;
};

inline layout make_layout(split s, std::size_t n, int p, rng_t& r) {
  const auto P = static_cast<std::size_t>(p);
  std::vector<double> w(P, 1.0);
  switch (s) {
    case split::even:
      break;
    case split::uneven:
      for (auto& x : w) x = uniform_real<double>(r, 0.0, 1.0);
      break;
    case split::first_empty:
      w[0] = 0;
      break;
    case split::last_empty:
      w[P - 1] = 0;
      break;
    case split::one_rank:
      std::fill(w.begin(), w.end(), 0.0);
      w[P / 2] = 1;
      break;
    case split::odd_ranks_empty:
      for (std::size_t i = 1; i < P; i += 2) w[i] = 0;
      break;
  }
  double sum = 0;
  for (double x : w) sum += x;
  if (sum == 0) w[P - 1] = sum = 1;
  layout l;
  l.count.resize(P);
  l.offset.resize(P);
  std::size_t given = 0;
  double acc = 0;
  for (std::size_t i = 0; i < P; ++i) {
    acc += w[i];
    const auto upto = static_cast<std::size_t>(std::llround(acc / sum * static_cast<double>(n)));
    const std::size_t end = i + 1 == P ? n : std::min(n, std::max(given, upto));
    l.offset[i] = given;
    l.count[i] = end - given;
    given = end;
  }
  l.total = n;
  return l;
}

/// \brief One configuration of a typed test: global size, split, the data.
template <class Case>
struct problem {
  std::size_t n;
  split how;
  layout blocks;
  std::vector<typename Case::in_t> global_in;
  std::vector<std::uint8_t> global_flags;
  typename Case::acc_t init;
  int rank;
  /// Keys whose runs are the segments of `global_flags` (consecutive runs differ, equal keys
  /// recur in runs that are not adjacent).
  std::vector<std::int32_t> global_keys = {};

  std::span<const typename Case::in_t> my_in() const {
    return std::span(global_in).subspan(blocks.offset[rank], blocks.count[rank]);
  }
  std::span<const std::uint8_t> my_flags() const {
    return std::span(global_flags).subspan(blocks.offset[rank], blocks.count[rank]);
  }
  std::span<const std::int32_t> my_keys() const {
    return std::span(global_keys).subspan(blocks.offset[rank], blocks.count[rank]);
  }
  std::string describe() const {
    std::ostringstream s;
    s << "n = " << n << ", split: " << split_name(how) << ", blocks:";
    for (auto c : blocks.count) s << ' ' << c;
    return s.str();
  }
};

/// \brief Calls `body(problem)` for every size x split (and, for flags and keys, a density per
/// configuration: random 1/8, none, every element, random 1/2, random 1/500: segments that
/// span several ranks).
template <class Case, class Body>
void for_each_problem(std::uint64_t salt, Body body) {
  const world w = comm_world();
  std::uint64_t k = 0;
  for (std::size_t n : all_sizes) {
    for (split s : all_splits) {
      ++k;
      rng_t r = make_rng(salt, n, k);
      problem<Case> p{n, s, make_layout(s, n, w.size, r), {}, {}, {}, w.rank};
      p.global_in.reserve(n);
      for (std::size_t i = 0; i < n; ++i) p.global_in.push_back(Case::gen(r));
      const int density = static_cast<int>(k % 5);
      for (std::size_t i = 0; i < n; ++i) {
        const bool head = density == 0   ? uniform_int<int>(r, 0, 7) == 0
                          : density == 1 ? false
                          : density == 2 ? true
                          : density == 3 ? uniform_int<int>(r, 0, 1) == 0
                                         : uniform_int<int>(r, 0, 499) == 0;
        p.global_flags.push_back(head ? std::uint8_t{1} : std::uint8_t{0});
      }
      std::int32_t key = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && p.global_flags[i] != 0) key = (key + 2) % 5;
        p.global_keys.push_back(key);
      }
      p.init = static_cast<typename Case::acc_t>(Case::gen(r));
      SCOPED_TRACE(p.describe());
      body(p);
    }
  }
}

/// \brief The frame of a typed test over combos: `body(policy, p)` for each problem `p` of
/// for_each_problem(salt), `policy` = mpi(MPI_COMM_WORLD).local(the combo's local policy), the
/// seed in the failure trace.
template <class Combo, class Body>
void for_each_mpi_problem(std::uint64_t salt, Body body) {
  using Case = typename Combo::value_case;
  SCOPED_TRACE(seed_trace());
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(Combo::local::policy());
  for_each_problem<Case>(salt, [&](const problem<Case>& p) { body(policy, p); });
}

// --- gathering and comparing ------------------------------------------------------------------

/// \brief The concatenation of every rank's block (to every rank), as raw bytes.
template <class T>
std::vector<T> allgather_blocks(std::span<const T> mine, const layout& l) {
  const std::size_t p = l.count.size();
  std::vector<int> counts(p);
  std::vector<int> displs(p);
  for (std::size_t i = 0; i < p; ++i) {
    counts[i] = static_cast<int>(l.count[i] * sizeof(T));
    displs[i] = static_cast<int>(l.offset[i] * sizeof(T));
  }
  std::vector<T> all(l.total);
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size_bytes()), MPI_BYTE, all.data(),
                 counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

/// \brief Every rank's value of `x` (to every rank).
template <class T>
std::vector<T> allgather_value(const T& x) {
  const world w = comm_world();
  std::vector<T> all(static_cast<std::size_t>(w.size));
  MPI_Allgather(&x, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

/// \brief Exact equality: bit for bit for float and double (so NaN equals the same NaN and
/// -0 differs from +0), `==` otherwise (structs have padding; long double too).
template <class T>
bool exact_equal(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
  } else {
    return a == b;
  }
}

/// \brief Equality of two results: exact_equal for exact cases, bit for bit for floating-point
/// cases (no padding: float, double, affine<double>).
template <class Case>
bool same_result(const typename Case::acc_t& a, const typename Case::acc_t& b) {
  if constexpr (Case::exact) {
    return exact_equal(a, b);
  } else {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
  }
}

/// \brief Checks a distributed reduce's result `got` of problem `p` (every rank calls it): the
/// same bits on every rank, and parprim::seq's fold of the global sequence (exact cases) or
/// within the case's bound of the long double fold (floating cases).
template <class Case>
void expect_reduce_matches(const typename Case::acc_t& got, const problem<Case>& p) {
  const auto all = allgather_value(got);
  for (std::size_t r = 0; r < all.size(); ++r)
    EXPECT_TRUE(same_result<Case>(all[r], all[0])) << "rank " << r << " disagrees with rank 0";
  if constexpr (Case::exact) {
    const typename Case::op_t op{};
    EXPECT_TRUE(exact_equal(got, parprim::reduce(parprim::seq, p.global_in, p.init, op)));
  } else {
    typename Case::ref_t ref = Case::to_ref(p.init);
    long double mag = Case::magnitude(p.init);
    for (const auto& x : p.global_in) {
      ref = Case::ref_op(ref, Case::to_ref(x));
      mag += Case::magnitude(x);
    }
    EXPECT_TRUE(Case::close(got, ref, p.n + 1, mag));
  }
}

/// \brief Checks a gathered scan result. Exact cases: equal to `expected` (parprim::seq on the
/// global sequence). Floating cases: within the case's bound of the long double reference,
/// computed from `ref_start` (empty: the element itself) by folding `global_in`, restarting at
/// heads when `flags` is given.
template <class Case>
void expect_scan_matches(const std::vector<typename Case::acc_t>& got,
                         const std::vector<typename Case::acc_t>& expected, const problem<Case>& p,
                         bool inclusive, const std::uint8_t* flags) {
  ASSERT_EQ(got.size(), expected.size());
  std::size_t bad = 0;
  std::size_t first_bad = 0;
  if constexpr (Case::exact) {
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!exact_equal(got[i], expected[i]) && bad++ == 0) first_bad = i;
  } else {
    using ref_t = typename Case::ref_t;
    const ref_t init = Case::to_ref(p.init);
    ref_t acc = init;
    std::size_t terms = 0;
    long double mag = 0;
    const long double init_mag = Case::magnitude(p.init);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const bool head = i == 0 || (flags != nullptr && flags[i] != 0);
      if (head) {
        acc = init;
        terms = 0;
        mag = inclusive ? 0 : init_mag;
      }
      const auto& x = p.global_in[i];
      if (inclusive) {
        acc = terms == 0 ? Case::to_ref(x) : Case::ref_op(acc, Case::to_ref(x));
        ++terms;
        mag += Case::magnitude(x);
        if (!Case::close(got[i], acc, terms, mag) && bad++ == 0) first_bad = i;
      } else {
        if (!Case::close(got[i], acc, terms + 1, mag) && bad++ == 0) first_bad = i;
        acc = Case::ref_op(acc, Case::to_ref(x));
        ++terms;
        mag += Case::magnitude(x);
      }
    }
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << got.size() << " elements wrong, first at index "
                     << first_bad;
}

/// \brief Runs `scan(in, out)` on this rank's block out of place and, where the types allow,
/// in place, gathers the outputs and checks them with expect_scan_matches.
template <class Case, class Scan>
void check_scan(const problem<Case>& p, const std::vector<typename Case::acc_t>& expected,
                bool inclusive, const std::uint8_t* flags, Scan scan) {
  using acc_t = typename Case::acc_t;
  const auto in = p.my_in();
  {
    SCOPED_TRACE("out of place");
    std::vector<acc_t> out(in.size());
    scan(in, std::span<acc_t>(out));
    expect_scan_matches(allgather_blocks<acc_t>(out, p.blocks), expected, p, inclusive, flags);
  }
  if constexpr (std::is_same_v<typename Case::in_t, acc_t>) {
    SCOPED_TRACE("in place");
    std::vector<acc_t> data(in.begin(), in.end());
    scan(std::span<const acc_t>(data), std::span<acc_t>(data));
    expect_scan_matches(allgather_blocks<acc_t>(data, p.blocks), expected, p, inclusive, flags);
  }
}

/// \brief A value whose bytes are all 0xA5: what an output element no result may overwrite
/// holds.
template <class T>
T poison() {
  T v;
  std::memset(static_cast<void*>(&v), 0xA5, sizeof(T));
  return v;
}

/// \brief The first `count` elements of every rank's `mine`, concatenated in rank order (to
/// every rank): a per-segment result whose length differs from rank to rank.
template <class T>
std::vector<T> allgather_results(std::span<const T> mine, std::size_t count) {
  const std::vector<std::size_t> counts = allgather_value(count);
  layout l;
  for (std::size_t c : counts) {
    l.offset.push_back(l.total);
    l.count.push_back(c);
    l.total += c;
  }
  return allgather_blocks<T>(mine.first(count), l);
}

/// \brief Where the segments of `flags` begin (element 0 always), then n.
inline std::vector<std::size_t> segment_begins(std::span<const std::uint8_t> flags) {
  std::vector<std::size_t> begins;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (i == 0 || flags[i] != 0) begins.push_back(i);
  begins.push_back(flags.size());
  return begins;
}

/// \brief How many of `begins` (but the last, n) lie in [from, from + count).
inline std::size_t begins_in(const std::vector<std::size_t>& begins, std::size_t from,
                             std::size_t count) {
  std::size_t k = 0;
  for (std::size_t j = 0; j + 1 < begins.size(); ++j)
    k += begins[j] >= from && begins[j] < from + count;
  return k;
}

/// \brief Checks one result per segment [begins[s], begins[s + 1]) of `in`: the fold of `*init`
/// (when given) and the segment's elements, exactly for exact cases, within the case's bound of
/// the reference otherwise.
template <class Case>
void expect_segment_results(const std::vector<typename Case::acc_t>& got,
                            std::span<const typename Case::in_t> in,
                            const std::vector<std::size_t>& begins,
                            const typename Case::acc_t* init) {
  using acc_t = typename Case::acc_t;
  ASSERT_EQ(got.size(), begins.size() - 1) << "number of results";
  std::size_t bad = 0;
  std::size_t first_bad = 0;
  for (std::size_t s = 0; s + 1 < begins.size(); ++s) {
    const auto part = in.subspan(begins[s], begins[s + 1] - begins[s]);
    bool ok = true;
    if constexpr (Case::exact) {
      acc_t acc = init != nullptr ? *init : static_cast<acc_t>(part[0]);
      for (std::size_t i = init != nullptr ? 0 : 1; i < part.size(); ++i)
        acc = static_cast<acc_t>(typename Case::op_t{}(acc, static_cast<acc_t>(part[i])));
      ok = exact_equal(got[s], acc);
    } else {
      auto ref = init != nullptr ? Case::to_ref(*init) : Case::to_ref(part[0]);
      long double mag = init != nullptr ? Case::magnitude(*init) : Case::magnitude(part[0]);
      for (std::size_t i = init != nullptr ? 0 : 1; i < part.size(); ++i) {
        ref = Case::ref_op(ref, Case::to_ref(part[i]));
        mag += Case::magnitude(part[i]);
      }
      ok = Case::close(got[s], ref, part.size() + (init != nullptr ? 1 : 0), mag);
    }
    if (!ok && bad++ == 0) first_bad = s;
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << got.size() << " results wrong, first: segment "
                     << first_bad;
}

}  // namespace parprim_mpi_test
