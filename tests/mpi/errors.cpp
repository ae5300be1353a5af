/// \file
/// \brief Errors and communicator handling: invalid arguments on one rank raise on every rank
/// (no hang) and leave the communicator usable; bad communicators and roots; sub-communicators,
/// MPI_COMM_SELF, stateful operators, and the derived datatypes' layout.

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support.hpp"

namespace {

struct outer {
  parprim_mpi_test::pair_ii inner;
  double d[2];
  char c;
};
enum class colour : std::int16_t { red, green };

}  // namespace

PARPRIM_MPI_STRUCT(outer, inner, d, c);

namespace parprim_mpi_test {
namespace {

/// Calls `f(bad)` with `bad == true` on rank `bad_rank` only; expects parprim::invalid_argument
/// on every rank, then checks that a valid call still works (the ranks are still in step).
template <class F>
void expect_raises_everywhere(int bad_rank, F f) {
  const world w = comm_world();
  SCOPED_TRACE("invalid arguments on rank " + std::to_string(bad_rank));
  EXPECT_THROW(f(w.rank == bad_rank), parprim::invalid_argument);
  EXPECT_NO_THROW(f(false));
}

TEST(MpiErrors, NullCommunicatorRaises) {
  EXPECT_THROW(parprim::mpi(MPI_COMM_NULL), parprim::invalid_argument);
  EXPECT_THROW(parprim::mpi_policy<parprim::seq_policy>(MPI_COMM_NULL), parprim::invalid_argument);
}

TEST(MpiErrors, SizeMismatchOnOneRankRaisesOnEveryRank) {
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  std::vector<int> in(10, 1);
  std::vector<std::uint8_t> flags(10, 0);
  for (int bad_rank : {0, w.size - 1}) {
    expect_raises_everywhere(bad_rank, [&](bool bad) {
      std::vector<int> out(bad ? 9 : 10);
      parprim::inclusive_scan(policy, in, out);
    });
    expect_raises_everywhere(bad_rank, [&](bool bad) {
      std::vector<int> out(bad ? 11 : 10);
      parprim::exclusive_scan(policy, in, out, 0);
    });
    expect_raises_everywhere(bad_rank, [&](bool bad) {
      std::vector<int> out(10);
      std::vector<std::uint8_t> f(bad ? 3 : 10, 0);
      parprim::segmented_inclusive_scan(policy, in, f, out);
    });
    expect_raises_everywhere(bad_rank, [&](bool bad) {
      std::vector<int> out(bad ? 0 : 10);
      parprim::segmented_exclusive_scan(policy, in, flags, out, 0);
    });
    expect_raises_everywhere(bad_rank, [&](bool bad) {
      const std::span<const int> s(bad ? nullptr : in.data(), in.size());
      (void)parprim::reduce(policy, s, 0);
    });
  }
}

TEST(MpiErrors, FailingRankKeepsItsOwnMessageOthersNameIt) {
  const world w = comm_world();
  if (w.size < 2) GTEST_SKIP() << "needs 2 ranks";
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  std::vector<int> in(4, 1);
  std::vector<int> out(w.rank == 1 ? 3 : 4);
  try {
    parprim::inclusive_scan(policy, in, out);
    ADD_FAILURE() << "no exception";
  } catch (const parprim::invalid_argument& e) {
    const std::string what = e.what();
    if (w.rank == 1) {
      EXPECT_EQ(what.find("on rank"), std::string::npos) << what;
    } else {
      EXPECT_NE(what.find("on rank 1"), std::string::npos) << what;
    }
    EXPECT_NE(what.find("out has 3 elements"), std::string::npos) << what;
  }
}

/// Throws when it meets the marker (never a partial result: the other elements are small).
struct operator_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct throwing_plus {
  static constexpr int marker = -1'000'000'000;
  int operator()(int a, int b) const {
    if (a == marker || b == marker) throw operator_failure("the operator refused its operand");
    return a + b;
  }
};

// The operator throws on rank 0's block: rank 0 gets its own exception, every other rank a
// parprim::error naming rank 0; nobody is left waiting in a collective, and the communicator
// still works afterwards.
TEST(MpiErrors, ThrowingOperatorRaisesOnEveryRank) {
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  {
    std::vector<int> in(1000, 1);
    if (w.rank == 0) in[500] = throwing_plus::marker;
    std::vector<int> out(in.size());
    const std::vector<std::uint8_t> heads(in.size(), 0);
    const auto check = [&](const char* what, auto call) {
      SCOPED_TRACE(what);
      bool own = false;
      bool named = false;
      try {
        call();
      } catch (const operator_failure&) {
        own = true;
      } catch (const parprim::error& e) {
        named = std::string(e.what()).find("rank 0") != std::string::npos;
        EXPECT_TRUE(named) << e.what();
      }
      EXPECT_TRUE(w.rank == 0 ? own : named) << "rank " << w.rank;
    };
    check("reduce", [&] { (void)parprim::reduce(policy, in, 0, throwing_plus{}); });
    check("inclusive_scan", [&] { parprim::inclusive_scan(policy, in, out, throwing_plus{}); });
    check("segmented_exclusive_scan",
          [&] { parprim::segmented_exclusive_scan(policy, in, heads, out, 0, throwing_plus{}); });
    check("segmented_reduce",
          [&] { (void)parprim::segmented_reduce(policy, in, heads, out, 0, throwing_plus{}); });
    std::vector<std::uint8_t> keys_out(in.size());
    check("reduce_by_key",
          [&] { (void)parprim::reduce_by_key(policy, heads, in, keys_out, out, throwing_plus{}); });
    check("inclusive_scan_by_key",
          [&] { parprim::inclusive_scan_by_key(policy, heads, in, out, throwing_plus{}); });
    const std::vector<int> ones(10, 1);
    EXPECT_EQ(parprim::reduce(policy, ones, 0), 10 * w.size);
  }
}

// The per-segment results: a bad argument on one rank raises parprim::invalid_argument on every
// rank before anything is written anywhere, and the communicator stays usable. How many results
// a rank's outputs must hold depends on the ranks to its left: rank 0 has no elements here, so
// rank 1 holds element 0 of the sequence, which starts a segment (and a key run) whatever its
// flag; on the other ranks the first elements continue the segment from the left.
TEST(MpiErrors, PerSegmentBadArgumentsRaiseOnEveryRank) {
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).local(parprim::seq);
  const int first = w.size > 1 ? 1 : 0;
  const std::size_t n = w.rank < first ? 0 : 6;
  const std::vector<int> in(n, 1);
  std::vector<std::uint8_t> flags(n, 0);
  if (n > 0) flags[3] = 1;               // segments [.., 3) and [3, 6) on every rank with elements
  std::vector<int> keys(n, 7 + w.rank);  // the runs are the segments: rank r's first run
  for (std::size_t i = 3; i < n; ++i) keys[i] = 8 + w.rank;         // goes on from rank r - 1
  const std::size_t mine = n == 0 ? 0 : (w.rank == first ? 2 : 1);  // segments starting here
  const auto everywhere = [&](const char* what, const auto& call, std::vector<int>& out,
                              bool fails) {
    SCOPED_TRACE(what);
    const std::vector<int> before = out;
    bool thrown = false;
    try {
      call();
    } catch (const parprim::invalid_argument&) {
      thrown = true;
    }
    EXPECT_EQ(thrown, fails) << "rank " << w.rank;
    EXPECT_EQ(out, before) << "written although the call raised";
  };
  for (int bad_rank : {first, w.size - 1}) {
    SCOPED_TRACE("bad rank " + std::to_string(bad_rank));
    const bool bad = w.rank == bad_rank;
    std::vector<int> out(bad ? mine - 1 : mine, -5);
    everywhere(
        "segmented_reduce, out one short on one rank",
        [&] { (void)parprim::segmented_reduce(policy, in, flags, out, 0); }, out, true);
    std::vector<int> keys_out(bad ? mine - 1 : mine, -5);
    std::vector<int> sums(mine, -5);
    everywhere(
        "reduce_by_key, keys_out one short on one rank",
        [&] { (void)parprim::reduce_by_key(policy, keys, in, keys_out, sums); }, sums, true);
    std::vector<long> offsets = {0, 3, static_cast<long>(n)};
    if (n == 0) offsets = {0, 0, 0};
    if (bad) offsets[1] = static_cast<long>(n) + 1;  // then n: decreasing
    std::vector<int> csr(2, -5);
    everywhere(
        "segmented_reduce, offsets decreasing on one rank",
        [&] { parprim::segmented_reduce(policy, in, parprim::offsets(offsets), csr, 0); }, csr,
        true);
    std::vector<int> scanned(bad ? n + 1 : n, -5);
    everywhere(
        "inclusive_scan_by_key, out of another size on one rank",
        [&] { parprim::inclusive_scan_by_key(policy, keys, in, scanned); }, scanned, true);
  }
  // Sized right, every rank: the results of the segments that start on it.
  std::vector<int> out(mine, -5);
  EXPECT_EQ(parprim::segmented_reduce(policy, in, flags, out, 0), mine);
  const int tail = w.rank + 1 == w.size ? 3 : 6;  // the last segment goes on to the next rank
  if (w.rank == first) {
    EXPECT_EQ(out, (std::vector<int>{3, tail}));
  } else if (w.rank > first) {
    EXPECT_EQ(out, (std::vector<int>{tail}));
  }
  std::vector<int> keys_out(mine, -5);
  std::vector<int> sums(mine, -5);
  EXPECT_EQ(parprim::reduce_by_key(policy, keys, in, keys_out, sums), mine);
  if (n > 0) {
    EXPECT_EQ(keys_out.front(), w.rank == first ? 7 + first : 8 + w.rank);
    EXPECT_EQ(keys_out.back(), 8 + w.rank);
  }
  EXPECT_EQ(sums, out);
}

TEST(MpiErrors, BadRootRaisesOnEveryRank) {
  const world w = comm_world();
  std::vector<int> in(3, 1);
  EXPECT_THROW((void)parprim::mpi(MPI_COMM_WORLD).root(-1), parprim::invalid_argument);
  EXPECT_THROW((void)parprim::reduce(parprim::mpi(MPI_COMM_WORLD).root(w.size), in, 0),
               parprim::invalid_argument);
  if (w.size > 1) {
    EXPECT_THROW((void)parprim::reduce(parprim::mpi(MPI_COMM_WORLD).root(w.rank), in, 0),
                 parprim::invalid_argument);
  }
  EXPECT_EQ(parprim::reduce(parprim::mpi(MPI_COMM_WORLD), in, 0), 3 * w.size);
}

TEST(MpiErrors, WithoutCollectiveChecksValidCallsWork) {
  const world w = comm_world();
  const auto policy = parprim::mpi(MPI_COMM_WORLD).collective_checks(false);
  EXPECT_FALSE(policy.collective_checks_enabled());
  std::vector<long> in(5, 2);
  EXPECT_EQ(parprim::reduce(policy, in, 0L), 10L * w.size);
  std::vector<long> out(5);
  parprim::inclusive_scan(policy, in, out);
  EXPECT_EQ(out.back(), 10L * (w.rank + 1));
}

TEST(MpiComm, SubCommunicatorsAndFreeing) {
  const world w = comm_world();
  for (int round = 0; round < 3; ++round) {
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, w.rank % 2, w.rank, &half);
    int sub_rank = 0;
    int sub_size = 0;
    MPI_Comm_rank(half, &sub_rank);
    MPI_Comm_size(half, &sub_size);
    std::vector<long> in(static_cast<std::size_t>(w.rank + 1), 1);
    long expected = 0;
    for (int r = w.rank % 2; r < w.size; r += 2) expected += r + 1;
    EXPECT_EQ(parprim::reduce(parprim::mpi(half), in, 0L), expected);
    std::vector<long> out(in.size());
    parprim::exclusive_scan(parprim::mpi(half), in, out, 0L);
    long before = 0;
    for (int r = w.rank % 2; r < w.rank; r += 2) before += r + 1;
    EXPECT_EQ(out.front(), before);
    MPI_Comm_free(&half);  // frees parprim's duplicate through the attribute's delete callback
  }
}

TEST(MpiComm, CommSelfIsALocalComputation) {
  std::vector<int> in = {3, 1, 4, 1, 5};
  EXPECT_EQ(parprim::reduce(parprim::mpi(MPI_COMM_SELF), in, 0), 14);
  std::vector<int> out(in.size());
  parprim::inclusive_scan(parprim::mpi(MPI_COMM_SELF), in, out);
  EXPECT_EQ(out, (std::vector<int>{3, 4, 8, 9, 14}));
}

TEST(MpiOperators, StatefulLambdaThroughThreadLocalSlot) {
  const world w = comm_world();
  const long m = 1000003;
  const auto add_mod = [m](long a, long b) { return (a + b) % m; };
  std::vector<long> in(1000);
  std::iota(in.begin(), in.end(), 1000L * w.rank);
  long expected = 0;
  for (long i = 0; i < 1000L * w.size; ++i) expected = (expected + i) % m;
  EXPECT_EQ(parprim::reduce(parprim::mpi(MPI_COMM_WORLD), in, 0L, add_mod), expected);
  std::vector<long> out(in.size());
  parprim::inclusive_scan(parprim::mpi(MPI_COMM_WORLD), in, out, add_mod);
  long prefix = 0;
  for (long i = 0; i < 1000L * (w.rank + 1); ++i) prefix = (prefix + i) % m;
  EXPECT_EQ(out.back(), prefix);
}

TEST(MpiDatatypes, LayoutOfDescribedAndUndescribedTypes) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  int size = 0;
  const MPI_Datatype t = parprim::mpi_datatype<outer>();
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_size(t, &size);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, static_cast<MPI_Aint>(sizeof(outer)));
  EXPECT_EQ(size, static_cast<int>(4 + 8 + 2 * 8 + 1));  // fields only, no padding
  EXPECT_EQ(parprim::mpi_datatype<outer>(), t) << "created once per type";

  MPI_Type_get_extent(parprim::mpi_datatype<opaque>(), &lb, &extent);
  MPI_Type_size(parprim::mpi_datatype<opaque>(), &size);
  EXPECT_EQ(extent, static_cast<MPI_Aint>(sizeof(opaque)));
  EXPECT_EQ(size, static_cast<int>(sizeof(opaque)));

  EXPECT_EQ(parprim::mpi_datatype<bool>(), MPI_CXX_BOOL);
  EXPECT_EQ(parprim::mpi_datatype<long>(), MPI_INT64_T);
  EXPECT_EQ(parprim::mpi_datatype<char>(), MPI_INT8_T);
  EXPECT_EQ(parprim::mpi_datatype<colour>(), MPI_INT16_T);
  EXPECT_EQ(parprim::mpi_datatype<double>(), MPI_DOUBLE);
}

TEST(MpiDatatypes, NestedStructTravelsIntact) {
  const world w = comm_world();
  std::vector<outer> in(2);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = outer{{w.rank, 10L * w.rank + static_cast<long>(i)}, {1.5 * w.rank, -2.0}, 'x'};
  const auto last = [](const outer&, const outer& b) { return b; };  // non-commutative
  const outer got = parprim::reduce(parprim::mpi(MPI_COMM_WORLD), in, outer{}, last);
  EXPECT_EQ(got.inner.a, w.size - 1);
  EXPECT_EQ(got.inner.b, 10L * (w.size - 1) + 1);
  EXPECT_EQ(got.d[0], 1.5 * (w.size - 1));
  EXPECT_EQ(got.d[1], -2.0);
  EXPECT_EQ(got.c, 'x');
}

}  // namespace
}  // namespace parprim_mpi_test
