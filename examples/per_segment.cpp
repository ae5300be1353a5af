// One result per segment: totals per segment given by head flags, row sums of a CSR matrix,
// totals per run of equal keys, and running totals within runs of equal keys.
#include <parprim/parprim.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace pp = parprim;

template <class Policy>
bool run(const Policy& policy, const char* name) {
  bool ok = true;
  // head flags: a non-zero flag starts a segment (element 0 always does)
  const std::vector<int> v = {1, 2, 3, 4, 5};
  const std::vector<std::uint8_t> f = {1, 0, 1, 0, 0};
  std::vector<long> sums(v.size());
  const std::size_t k = pp::segmented_reduce(policy, v, f, sums, 0L, pp::plus{});  // 2: {3, 12}
  ok = ok && k == 2 && sums[0] == 3 && sums[1] == 12;

  // CSR: row r is values[row_ptr[r], row_ptr[r + 1]); an empty row gets init
  const std::vector<double> values = {1, 2, 3, 4, 5, 6};
  const std::vector<int> row_ptr = {0, 2, 2, 6};  // rows of 2, 0 and 4 elements
  std::vector<double> row_sum(3);
  pp::segmented_reduce(policy, values, pp::offsets(row_ptr), row_sum, 0.0, pp::plus{});
  ok = ok && row_sum == std::vector<double>{3, 0, 18};

  // keys: one result per run of equal keys, and the run's key
  const std::vector<int> user = {7, 7, 3, 3, 3, 7};
  const std::vector<long> bytes = {10, 20, 1, 2, 3, 5};
  std::vector<int> users(user.size());
  std::vector<long> totals(user.size());
  const std::size_t runs = pp::reduce_by_key(policy, user, bytes, users, totals);  // 3 runs
  ok = ok && runs == 3 && users[0] == 7 && users[1] == 3 && users[2] == 7 && totals[0] == 30 &&
       totals[1] == 6 && totals[2] == 5;

  // running totals within runs of equal keys (in place)
  const std::vector<int> key = {1, 1, 2, 2, 2};
  std::vector<int> w = {1, 2, 3, 4, 5};
  pp::inclusive_scan_by_key(policy, key, w, w, pp::plus{});  // {1, 3, 3, 7, 12}
  ok = ok && w == std::vector<int>{1, 3, 3, 7, 12};

  std::printf("%-4s segment sums %ld %ld; row sums %g %g %g; user totals", name, sums[0], sums[1],
              row_sum[0], row_sum[1], row_sum[2]);
  for (std::size_t s = 0; s < runs; ++s) std::printf(" %d:%ld", users[s], totals[s]);
  std::printf("; running totals by key");
  for (int x : w) std::printf(" %d", x);
  std::printf("\n");
  return ok;
}

int main() {
  bool ok = run(pp::seq, "seq");
#if PARPRIM_HAS_OPENMP
  ok = run(pp::omp.grain(1), "omp") && ok;
#endif
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
