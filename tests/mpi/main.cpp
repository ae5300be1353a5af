/// \file
/// \brief Entry point of parprim-test-mpi: initialises MPI, broadcasts the seed from rank 0,
/// lets rank 0 print the full GoogleTest report and the other ranks only their failures
/// (prefixed with the rank), and returns non-zero on every rank if any rank failed.

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "support.hpp"

namespace parprim_mpi_test {

namespace {
std::uint64_t g_seed = 0;

/// Prints failed assertions with the rank; everything else stays quiet. The test's name is
/// taken when it starts: GoogleTest holds its own lock while it reports an exception that left a
/// test, so asking it for the current test there would deadlock.
class failure_printer : public ::testing::EmptyTestEventListener {
 public:
  explicit failure_printer(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& info) override {
    test_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] FAILED %s\n%s:%d: %s\n", rank_, test_.c_str(),
                 r.file_name() != nullptr ? r.file_name() : "?", r.line_number(), r.message());
  }

 private:
  int rank_;
  std::string test_ = "?";
};
}  // namespace

std::uint64_t seed() {
  return g_seed;
}

}  // namespace parprim_mpi_test

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const auto w = parprim_mpi_test::comm_world();

  unsigned long long s = 0;
  if (w.rank == 0) {
    const char* env = std::getenv("PARPRIM_TEST_SEED");
    if (env != nullptr && *env != '\0') {
      s = std::strtoull(env, nullptr, 0);
    } else {
      std::random_device rd;
      s = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    }
    std::printf("parprim-test-mpi: %d ranks, seed %llu (rerun with PARPRIM_TEST_SEED=%llu)\n",
                w.size, s, s);
  }
  MPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  parprim_mpi_test::g_seed = s;

  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (w.rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new parprim_mpi_test::failure_printer(w.rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
