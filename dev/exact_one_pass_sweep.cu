// Scratch (dev/ only): the one-pass exact_plus scan (dev/exact_scan_dd_one_pass.cuh) with 2, 4
// and 8 warps a block tile, beside the two launches and the plain `plus` scan, in one process:
// each configuration's one-pass kernel (its outputs compared bit for bit with the two
// launches': equal unless a tile handed the call over, which the line then says), CUDA-event
// medians of 15 calls. (The results of c5669f0 also timed the one pass with the two launches
// enqueued behind it, gated by its `redo` word, as the library's form of that commit ran it.)
// Inputs from fixed seeds (dev/exact_inputs.cuh; the results of 2026-12-04 drew the same
// distributions from dev/exact_scan_ab.cu's splitmix64): float32 2^28 and 2^24, float64 2^27,
// uniform in (-1, 1) and with exponents over -20..20. Built with SWEEP_HOST_ONLY=1 by
// dev/sweep.sh (it instantiates the drivers itself).
#include <cstdio>
#include <cstring>
#include <parprim/parprim.hpp>
#include <vector>

#include "exact_inputs.cuh"
#include "exact_scan_dd_one_pass.cuh"
#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

template <class F>
void run(int log2n, std::uint64_t seed, bool wide) {
  const std::size_t n = std::size_t(1) << log2n;
  const std::vector<F> h = exact_sweep_inputs<F>(n, wide, seed);
  pp::device_buffer<F> in(h), out(n), ref(n);
  using load_t = ppc::converting_load<F, F>;
  const ppc::launch_options o{};
  const ppc::exact_scan_problem<F, load_t> two{load_t{in.data()}, ref.data(), n, false, {}};
  ppc::run_scan<ppc::exact_scan_two_pass<F, load_t>>(o, two, "two");
  const std::vector<F> want = ref.to_host();
  const float t_two =
      time_us([&] { ppc::run_scan<ppc::exact_scan_two_pass<F, load_t>>(o, two, "two"); });
  const float t_plain =
      time_us([&] { pp::inclusive_scan(pp::cuda, in.span(), out.span(), pp::plus{}); });
  std::printf("%s 2^%d %-17s: two launches %8.1f us, plain %7.1f\n",
              sizeof(F) == 4 ? "float32" : "float64", log2n, exact_sweep_label(wide), t_two,
              t_plain);
  const ppc::exact_one_pass_problem<F, load_t> one{{load_t{in.data()}, out.data(), n, false, {}},
                                                   ppc::exact_dd{0.0, 0.0, 0.0, 0u}};
  const auto config = [&]<unsigned Warps>() {
    cudaMemset(out.data(), 0, n * sizeof(F));
    ppc::run_scan<ppc::exact_scan_one_pass<F, load_t, Warps>>(o, one, "one");
    const bool ok = std::memcmp(out.to_host().data(), want.data(), n * sizeof(F)) == 0;
    const float t =
        time_us([&] { ppc::run_scan<ppc::exact_scan_one_pass<F, load_t, Warps>>(o, one, "one"); });
    std::printf("  %u warps: one pass %8.1f us (%s), %.3fx plain, %.3fx two launches\n", Warps, t,
                ok ? "equal" : "HANDED OVER", t / t_plain, t / t_two);
    std::fflush(stdout);
  };
  config.template operator()<2>();
  config.template operator()<4>();
  config.template operator()<8>();
}

int main() {
  run<float>(28, 1, false);
  run<float>(28, 2, false);
  run<float>(28, 3, true);
  run<float>(24, 1, false);
  run<double>(27, 1, false);
  run<double>(27, 3, true);
  return 0;
}
