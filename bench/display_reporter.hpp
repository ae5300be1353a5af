#pragma once
/// \file
/// \brief The console reporter of parprim's bench programs: Google Benchmark's default display
/// reporter (so --benchmark_format and colours behave as usual) without its
/// "***WARNING*** Library was built as DEBUG" line.
///
/// Google Benchmark prints that line whenever its own library was compiled without NDEBUG,
/// which is how Debian and Ubuntu build the libbenchmark package. It concerns only the
/// library's internal checks: the timed loop (`for (auto _ : state)`) is inline code compiled in
/// the bench program, with parprim, in the build's own type (Release in every preset that
/// benches). The reporter prints a line saying so instead; the JSON output keeps Google
/// Benchmark's `library_build_type`.

#include <benchmark/benchmark.h>

#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace parprim_bench {

class display_reporter : public benchmark::BenchmarkReporter {
 public:
  /// \param build_type  the bench program's CMake build type, e.g. "Release"
  explicit display_reporter(std::string build_type)
      : inner_(benchmark::CreateDefaultDisplayReporter()), build_type_(std::move(build_type)) {}

  bool ReportContext(const Context& context) override {
    std::ostringstream captured;
    std::ostream& err = inner_->GetErrorStream();
    inner_->SetErrorStream(&captured);
    const bool ok = inner_->ReportContext(context);
    inner_->SetErrorStream(&err);
    std::istringstream lines(captured.str());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("Library was built as DEBUG") != std::string::npos)
        err << "Note: Google Benchmark's own library was compiled without NDEBUG (as Debian's "
               "libbenchmark package is); the timed loops are this program's code, built "
            << build_type_ << ".\n";
      else
        err << line << '\n';
    }
    return ok;
  }
  void ReportRuns(const std::vector<Run>& runs) override { inner_->ReportRuns(runs); }
  void Finalize() override { inner_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::string build_type_;
};

}  // namespace parprim_bench
