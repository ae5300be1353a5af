/// \file
/// \brief The reduction ladder, every rung, through the public API from a plain C++ file
/// (precompiled instantiations): reduce/cuda_kN_<name>/<type>/n:<N>/manual_time. Each call
/// returns the result on the host (the kernels, the copy of the result and the stream
/// synchronisation are all inside the timed interval). For float and double also
/// reduce/cuda_exact_plus/<type>: parprim::exact_plus, the correctly rounded sum (its cost
/// beside plus, rung 7, is the price of the same bits everywhere).

#include <cstdint>
#include <string>
#include <tuple>

#include <parprim/parprim.hpp>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

template <class T, class Policy>
void add_rung(const Policy& policy) {
  add(std::string("reduce/cuda_") + parprim::cuda_reduce_name(Policy::reduce_rung) + "/" +
          type_name<T>(),
      [policy](benchmark::State& state, std::size_t n) {
        run_reduce<T>(state, n, [&](const T* x) {
          return parprim::reduce(policy.on(bench_stream()), parprim::device_span<const T>(x, n),
                                 T(0), parprim::plus{});
        });
      });
}

template <class T>
void add_ladder() {
  namespace r = parprim::cuda_reduce;
  std::apply([](const auto&... p) { (add_rung<T>(p), ...); },
             std::make_tuple(parprim::cuda.reduce_kernel(r::k1_interleaved_divergent),
                             parprim::cuda.reduce_kernel(r::k2_interleaved_strided),
                             parprim::cuda.reduce_kernel(r::k3_sequential_addressing),
                             parprim::cuda.reduce_kernel(r::k4_first_add_during_load),
                             parprim::cuda.reduce_kernel(r::k5_unrolled_last_warp),
                             parprim::cuda.reduce_kernel(r::k6_grid_stride_multiple_elements),
                             parprim::cuda.reduce_kernel(r::k7_vectorized_single_pass)));
}

template <class T>
void add_exact_plus() {
  add(std::string("reduce/cuda_exact_plus/") + type_name<T>(),
      [](benchmark::State& state, std::size_t n) {
        run_reduce<T>(state, n, [n](const T* x) {
          return parprim::reduce(parprim::cuda.on(bench_stream()),
                                 parprim::device_span<const T>(x, n), T(0), parprim::exact_plus{});
        });
      });
}

const bool registered = register_benchmarks([] {
  add_ladder<std::int32_t>();
  add_ladder<float>();
  add_exact_plus<float>();
  add_ladder<double>();
  add_exact_plus<double>();
});

}  // namespace
}  // namespace parprim_bench::cuda
