#pragma once
/// \file
/// \brief add_seq_and_omp: one primitive's rows on parprim's CPU backends, parprim::seq and
/// (where the OpenMP backend is built) parprim::omp.threads(t) over threads 1..max, from one
/// run function.

#include <parprim/parprim.hpp>

#include "common.hpp"

#include <string>

namespace parprim_bench {

/// \brief Registers `<primitive>/seq/<type>/<label>/n:<N>` and
/// `<primitive>/omp/<type>/<label>/threads:<T>/n:<N>/real_time` over pow2_sizes(), each
/// running `run(state, key, policy, n, threads)`; `key` (first_time's: the result is checked
/// once per key) is `<primitive>/seq/<label>/<N>` or `<primitive>/omp/<label>/<T>/<N>`.
template <class T, class Run>
void add_seq_and_omp(const std::string& primitive, const std::string& label, Run run) {
  add_seq(join({primitive, "seq", type_name<T>(), label}), pow2_sizes(),
          [=](benchmark::State& s, std::size_t n) {
            run(s, join({primitive, "seq", label, std::to_string(n)}), parprim::seq, n, 1);
          });
#if defined(PARPRIM_HAS_OPENMP) && PARPRIM_HAS_OPENMP
  add_par(join({primitive, "omp", type_name<T>(), label}), pow2_sizes(), thread_counts(),
          [=](benchmark::State& s, int t, std::size_t n) {
            run(s, join({primitive, "omp", label, std::to_string(t), std::to_string(n)}),
                parprim::omp.threads(t), n, t);
          });
#endif
}

}  // namespace parprim_bench
