/// \file
/// \brief parprim-bench's entry point: Google Benchmark's flags, plus the build and machine
/// facts a result needs to be read later, written into the JSON's "context".
/// The console output goes through display_reporter.hpp (no "Library was built as DEBUG"
/// line: Debian's libbenchmark is compiled without NDEBUG; the timed loops are built here).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include <parprim/config.hpp>

#include "common.hpp"
#include "display_reporter.hpp"

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

void add_context() {
  benchmark::AddCustomContext("parprim_version", PARPRIM_VERSION);
  benchmark::AddCustomContext("parprim_build_type", PARPRIM_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", __VERSION__);
  std::string backends = "seq";
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  backends += ",omp";
#endif
#if defined(PARPRIM_HAS_CUDA) && PARPRIM_HAS_CUDA
  backends += ",cuda";
#endif
  benchmark::AddCustomContext("parprim_backends", backends);
#if defined(PARPRIM_BENCH_HAVE_TBB)
  benchmark::AddCustomContext("std_par", "libstdc++ PSTL on TBB");
#else
  benchmark::AddCustomContext("std_par", "not built (no TBB)");
#endif
  benchmark::AddCustomContext("max_threads", std::to_string(parprim_bench::max_threads()));
  for (const char* var : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY"})
    benchmark::AddCustomContext(var, env_or(var, "(unset)"));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_context();
  parprim_bench::display_reporter display(PARPRIM_BENCH_BUILD_TYPE);
  benchmark::RunSpecifiedBenchmarks(&display);
  benchmark::Shutdown();
  return 0;
}
