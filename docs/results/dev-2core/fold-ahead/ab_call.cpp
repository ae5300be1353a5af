// quick A/B: parprim's OpenMP exact_plus inclusive scan, median ms
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <parprim/parprim.hpp>
#include <string>
#include <vector>
#include "host_timing.hpp"
namespace pp = parprim;
template <class F>
void run(int log2n, int team, int it) {
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<F> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<F>(dev::uniform_input(i));
  std::vector<double> t, tp;
  for (int k = 0; k <= it; ++k) {
    double s = omp_get_wtime();
    pp::inclusive_scan(pp::omp.threads(team), std::span<const F>(in), std::span<F>(out),
                       pp::exact_plus{});
    double m = omp_get_wtime() - s;
    s = omp_get_wtime();
    pp::inclusive_scan(pp::omp.threads(team), std::span<const F>(in), std::span<F>(out),
                       pp::plus{});
    double mp = omp_get_wtime() - s;
    if (k) {
      t.push_back(m * 1e3);
      tp.push_back(mp * 1e3);
    }
  }
  std::printf("%s 2^%d %dt exact %.2f plain %.2f\n", sizeof(F) == 4 ? "f32" : "f64", log2n, team,
              dev::median(t), dev::median(tp));
}
int main(int argc, char** argv) {
  int log2n = std::atoi(argv[1]), team = std::atoi(argv[2]), it = std::atoi(argv[3]);
  if (std::string(argv[4]) == "double")
    run<double>(log2n, team, it);
  else
    run<float>(log2n, team, it);
}
