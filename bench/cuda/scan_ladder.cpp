/// \file
/// \brief The scan ladder, every rung, through parprim's public API from a plain C++ file
/// (precompiled instantiations), and the registration of every CUDA scan benchmark (the CUB and
/// Thrust anchors are in scan_cub_thrust.cu). Names and method: scan_bench.hpp.
///
/// Registration order is (type, n, segment length) outermost and competitor innermost, so each
/// input set (values; flags and keys) is made once and every competitor of that set reads the
/// same buffers one after the other.

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>

#include <parprim/parprim.hpp>

#include "scan_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief The segment lengths (0: random, mean 1024).
constexpr std::size_t segment_lengths[] = {32, 1024, 65536, 0};
/// \brief Rungs 1-3 are measured on segmented scans at this length only (they rank there as
/// on plain scans; all four lengths would add a minute to the run).
constexpr std::size_t slow_rung_segment_length = 1024;
/// \brief parprim::inclusive_scan_by_key (int32) is measured at this length, on the keys of the
/// CUB InclusiveSumByKey row beside it (segments_bench.hpp lists it).
constexpr std::size_t by_key_segment_length = 1024;

template <class Policy>
std::string rung_competitor(const Policy&) {
  return std::string("cuda_") + parprim::cuda_scan_name(Policy::scan_rung);
}

/// \brief f(policy) for each policy of a tuple.
template <class Tuple, class F>
void for_each_policy(const Tuple& policies, F f) {
  std::apply([&](const auto&... p) { (f(p), ...); }, policies);
}

template <class T>
void register_for(std::size_t n) {
  const std::string t = type_name<T>();
  namespace s = parprim::cuda_scan;
  const auto ladder = std::make_tuple(parprim::cuda.scan_kernel(s::k1_kogge_stone),
                                      parprim::cuda.scan_kernel(s::k2_brent_kung),
                                      parprim::cuda.scan_kernel(s::k3_coarsened_three_phase),
                                      parprim::cuda.scan_kernel(s::k4_warp_reduce_then_scan),
                                      parprim::cuda.scan_kernel(s::k5_decoupled_look_back),
                                      parprim::cuda.scan_kernel(s::k6_tma_staged_look_back));

  // --- plain scans ---------------------------------------------------------------------------
  scan_setup plain;
  plain.n = n;
  std::apply(
      [&](const auto&... policy) {
        (register_one("scan/inclusive/" + rung_competitor(policy) + "/" + t, n,
                      [plain, policy](benchmark::State& st) {
                        run_scan<T>(st, plain, [&](const scan_args<T>& a) {
                          parprim::inclusive_scan(
                              policy.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
                              parprim::device_span<T>(a.out, a.n), parprim::plus{});
                        });
                      }),
         ...);
      },
      ladder);
  register_one("scan/inclusive/cuda_transform_identity/" + t, n, [plain](benchmark::State& st) {
    run_scan<T>(st, plain, &cuda_transform_inclusive_scan<T>);
  });
  if constexpr (std::is_floating_point_v<T>) {
    // the look-back folding whichever predecessors are ready (as CUB does): not bitwise
    // reproducible from run to run, for comparison with the deterministic default
    register_one("scan/inclusive/cuda_nondeterministic/" + t, n, [plain](benchmark::State& st) {
      run_scan<T>(st, plain, [](const scan_args<T>& a) {
        parprim::inclusive_scan(parprim::cuda.deterministic(false).on(bench_stream()),
                                parprim::device_span<const T>(a.x, a.n),
                                parprim::device_span<T>(a.out, a.n), parprim::plus{});
      });
    });
    // parprim::exact_plus: every output the exact prefix rounded once (its cost beside plus)
    register_one("scan/inclusive/cuda_exact_plus/" + t, n, [plain](benchmark::State& st) {
      run_scan<T>(st, plain, [](const scan_args<T>& a) {
        parprim::inclusive_scan(parprim::cuda.on(bench_stream()),
                                parprim::device_span<const T>(a.x, a.n),
                                parprim::device_span<T>(a.out, a.n), parprim::exact_plus{});
      });
    });
  }
  scan_setup exclusive = plain;
  exclusive.what = scan_check::exclusive;
  // the look-back rungs (the ladder's last two) exclusive, init 0
  for_each_policy(std::make_tuple(parprim::cuda.scan_kernel(s::k5_decoupled_look_back),
                                  parprim::cuda.scan_kernel(s::k6_tma_staged_look_back)),
                  [&](const auto& policy) {
                    register_one(
                        "scan/exclusive/" + rung_competitor(policy) + "/" + t, n,
                        [exclusive, policy](benchmark::State& st) {
                          run_scan<T>(st, exclusive, [&](const scan_args<T>& a) {
                            parprim::exclusive_scan(
                                policy.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
                                parprim::device_span<T>(a.out, a.n), T(0), parprim::plus{});
                          });
                        });
                  });
  register_one("scan/inclusive/cub_inclusive_sum/" + t, n,
               [plain](benchmark::State& st) { run_scan<T>(st, plain, &cub_inclusive_sum<T>); });
  register_one("scan/exclusive/cub_exclusive_sum/" + t, n, [exclusive](benchmark::State& st) {
    run_scan<T>(st, exclusive, &cub_exclusive_sum<T>);
  });
  register_one("scan/inclusive/cub_inclusive_scan/" + t, n,
               [plain](benchmark::State& st) { run_scan<T>(st, plain, &cub_inclusive_scan<T>); });
  register_one("scan/inclusive/thrust_inclusive_scan/" + t, n, [plain](benchmark::State& st) {
    run_scan<T>(st, plain, &thrust_inclusive_scan<T>);
  });

  // --- segmented scans ------------------------------------------------------------------------
  for (const std::size_t length : segment_lengths) {
    const std::string suffix = "/" + t + "/seg:" + segment_name(length);
    scan_setup flags;
    flags.n = n;
    flags.segmented = true;
    flags.length = length;
    flags.what = scan_check::segmented_inclusive;
    scan_setup keys = flags;
    keys.keys = true;
    std::apply(
        [&](const auto&... policy) {
          const auto one = [&](const auto& p) {
            using P = std::remove_cvref_t<decltype(p)>;
            if (static_cast<int>(P::scan_rung) <= 3 && length != slow_rung_segment_length) return;
            register_one("segmented_scan/inclusive/" + rung_competitor(p) + suffix, n,
                         [flags, p](benchmark::State& st) {
                           run_scan<T>(st, flags, [&](const scan_args<T>& a) {
                             parprim::segmented_inclusive_scan(
                                 p.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
                                 parprim::device_span<const std::uint8_t>(a.flags, a.n),
                                 parprim::device_span<T>(a.out, a.n), parprim::plus{});
                           });
                         });
          };
          (one(policy), ...);
        },
        ladder);
    if constexpr (std::is_floating_point_v<T>)
      register_one("segmented_scan/inclusive/cuda_nondeterministic" + suffix, n,
                   [flags](benchmark::State& st) {
                     run_scan<T>(st, flags, [](const scan_args<T>& a) {
                       parprim::segmented_inclusive_scan(
                           parprim::cuda.deterministic(false).on(bench_stream()),
                           parprim::device_span<const T>(a.x, a.n),
                           parprim::device_span<const std::uint8_t>(a.flags, a.n),
                           parprim::device_span<T>(a.out, a.n), parprim::plus{});
                     });
                   });
    // every output the exact sum rounded once (its cost beside plus; one segment length)
    if constexpr (std::is_floating_point_v<T>)
      if (length == by_key_segment_length)
        register_one(
            "segmented_scan/inclusive/cuda_exact_plus" + suffix, n, [flags](benchmark::State& st) {
              run_scan<T>(st, flags, [](const scan_args<T>& a) {
                parprim::segmented_inclusive_scan(
                    parprim::cuda.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
                    parprim::device_span<const std::uint8_t>(a.flags, a.n),
                    parprim::device_span<T>(a.out, a.n), parprim::exact_plus{});
              });
            });
    if constexpr (std::is_same_v<T, std::int32_t>) {
      if (length == by_key_segment_length)
        register_one("segmented_scan/inclusive/cuda_inclusive_scan_by_key" + suffix, n,
                     [keys](benchmark::State& st) {
                       run_scan<T>(st, keys, [](const scan_args<T>& a) {
                         parprim::inclusive_scan_by_key(
                             parprim::cuda.on(bench_stream()),
                             parprim::device_span<const std::int32_t>(a.keys, a.n),
                             parprim::device_span<const T>(a.x, a.n),
                             parprim::device_span<T>(a.out, a.n), parprim::plus{});
                       });
                     });
    }
    register_one(
        "segmented_scan/inclusive/cub_inclusive_sum_by_key" + suffix, n,
        [keys](benchmark::State& st) { run_scan<T>(st, keys, &cub_inclusive_sum_by_key<T>); });
    register_one(
        "segmented_scan/inclusive/thrust_inclusive_scan_by_key" + suffix, n,
        [keys](benchmark::State& st) { run_scan<T>(st, keys, &thrust_inclusive_scan_by_key<T>); });
  }
}

const bool registered = register_benchmarks([] {
  for (const std::int64_t n : sizes()) register_for<std::int32_t>(static_cast<std::size_t>(n));
  for (const std::int64_t n : sizes()) register_for<float>(static_cast<std::size_t>(n));
  for (const std::int64_t n : sizes()) register_for<double>(static_cast<std::size_t>(n));
});

}  // namespace
}  // namespace parprim_bench::cuda
