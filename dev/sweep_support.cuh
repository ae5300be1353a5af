#pragma once
// Scratch (dev/ only): what the int32 look-back sweeps share. A device result compared bit for
// bit with a host one; rung 5 named explicitly (parprim::cuda is rung 6 since 17367c7); the
// int32 plus problem, plain or segmented; CUB's two anchors timed on the same buffers; and one
// look-back variant (a tile, a register cap) run at several waits, each run checked and timed.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "median_time.cuh"
#include "swept_tuning.cuh"

/// Rung 5 by name, for the sweeps that time it beside rung 6.
inline constexpr auto cuda_k5 =
    parprim::cuda.scan_kernel(parprim::cuda_scan::k5_decoupled_look_back);

/// Whether the n = ref.size() values at device `d` equal `ref` bit for bit.
template <class T>
bool same(const T* d, const std::vector<T>& ref) {
  std::vector<T> got(ref.size());
  cudaMemcpy(got.data(), d, ref.size() * sizeof(T), cudaMemcpyDeviceToHost);
  return std::memcmp(got.data(), ref.data(), ref.size() * sizeof(T)) == 0;
}

/// The inclusive int32 plus problem over device buffers (`flags` read when Segmented).
template <bool Segmented>
auto int_plus_problem(const int* in, const std::uint8_t* flags, int* out, std::size_t n) {
  namespace ppc = parprim::detail::cuda;
  if constexpr (Segmented)
    return ppc::segmented_problem<int, int, parprim::plus>{
        in, flags, out, n, parprim::plus{}, false, 0, {}, nullptr};
  else
    return ppc::plain_problem<int, int, parprim::plus>{in, out, n, parprim::plus{}, false, {}};
}

/// CUB's DeviceScan::InclusiveSum and InclusiveSumByKey (keys: the scan of the head flags) on
/// the same buffers, microseconds.
struct cub_anchors {
  float sum = 0;
  float by_key = 0;
};
inline cub_anchors time_cub(const int* keys, const int* in, int* out, std::size_t n) {
  std::size_t tk = 0, tb = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, tk, keys, in, out, (int)n);
  cub::DeviceScan::InclusiveSum(nullptr, tb, in, out, (int)n);
  void* tmp = nullptr;
  cudaMalloc(&tmp, std::max(tk, tb));
  cub_anchors a;
  a.by_key = time_us([&] { cub::DeviceScan::InclusiveSumByKey(tmp, tk, keys, in, out, (int)n); });
  a.sum = time_us([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in, out, (int)n); });
  cudaFree(tmp);
  return a;
}

/// The look-back driver with tile `TileOf` and register cap `MinB` on problem `sp`, once per
/// look-back wait {first, pause} in `waits`: each run checked against `ref` (FAIL printed and
/// counted in `failures`), then timed against `anchor`. `label` starts the printed line, after
/// which the kernel's registers, local memory, shared memory and blocks per SM. `Det`: the
/// look-back's determinism fixed at compile time (look_back_tuning::determinism).
template <template <class> class TileOf, unsigned MinB, int Det = -1, class Problem, class T>
void swept_variant(const char* label, const Problem& sp, const std::vector<T>& ref, float anchor,
                   const std::vector<std::pair<unsigned, unsigned>>& waits, int& failures) {
  namespace ppc = parprim::detail::cuda;
  using D = ppc::single_pass_look_back<TileOf, Problem, swept_tuning<MinB, Det>>;
  auto k = ppc::scan_look_back_kernel<typename D::tile, Problem, MinB, Det>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, k);
  int bps = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, D::tile::block_size, 0);
  std::printf("  %s minB %u (%d regs, %d B local, %d B smem, %d blocks/SM):", label, MinB,
              a.numRegs, (int)a.localSizeBytes, (int)a.sharedSizeBytes, bps);
  ppc::launch_options o{};
  for (const auto& d : waits) {
    swept_first_ns = d.first;
    swept_pause_ns = d.second;
    cudaMemset(sp.out, 0, sp.n * sizeof(T));
    ppc::run_scan<D>(o, sp, "x");
    const bool ok = same(sp.out, ref);
    failures += !ok;
    const float t = time_us([&] { ppc::run_scan<D>(o, sp, "x"); });
    std::printf("  {%u,%u} %.1f (%.3fx)%s", d.first, d.second, t, anchor / t, ok ? "" : " FAIL");
  }
  std::printf("\n");
  std::fflush(stdout);
}
