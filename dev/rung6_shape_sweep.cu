// Scratch: rung 6's tile shape (threads per block x 16-byte chunks per thread, blocks per SM)
// and look-back waits, int32 plus, plain and segmented, each checked against parprim::seq and
// timed against CUB in the same process. Not part of the build:
// bash dev/sweep.sh dev/rung6_shape_sweep.cu   (SWEEP_LIB=... to link a built library)
#include <random>
#include <vector>

#include "sweep_support.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;
/// The look-back waits tried (first wait, pause between polls; ns).
static const std::vector<std::pair<unsigned, unsigned>> waits_tried = {
    {1200, 650}, {3200, 800}, {3200, 1600}};

template <unsigned Block, unsigned Chunks, unsigned Prefetch>
struct shape {
  template <class P>
  using tile = ppc::tile_shared_bulk<Block, P, Chunks, Prefetch>;
};

template <bool Segmented, unsigned Block, unsigned Chunks, unsigned MinB, unsigned Prefetch = 0>
void variant(const ppc::plain_problem<int, int, pp::plus>& plain,
             const ppc::segmented_problem<int, int, pp::plus>& seg, const std::vector<int>& ref,
             float anchor) {
  char label[64];
  std::snprintf(label, sizeof label, "%s %ux%u prefetch %u", Segmented ? "seg  " : "plain", Block,
                Chunks * 4, Prefetch);
  if constexpr (Segmented)
    swept_variant<shape<Block, Chunks, Prefetch>::template tile, MinB>(label, seg, ref, anchor,
                                                                       waits_tried, failures);
  else
    swept_variant<shape<Block, Chunks, Prefetch>::template tile, MinB>(label, plain, ref, anchor,
                                                                       waits_tried, failures);
}

void run(std::size_t n) {
  std::mt19937_64 rng(std::random_device{}());
  const unsigned seed = unsigned(rng());
  std::printf("n=%zu (seed %u)\n", n, seed);
  rng.seed(seed);
  std::vector<int> h(n);
  std::vector<std::uint8_t> f(n);
  for (auto& x : h) x = int(rng() % 2001) - 1000;
  for (std::size_t i = 0; i < n; ++i) f[i] = (i % 1024) == 0 || rng() % 5000 == 0;
  std::vector<int> ref(n), sref(n), hk(n);
  pp::inclusive_scan(pp::seq, h, ref, pp::plus{});
  pp::segmented_inclusive_scan(pp::seq, h, f, sref, pp::plus{});
  int key = 0;
  for (std::size_t i = 0; i < n; ++i) hk[i] = (key += f[i]);
  pp::device_buffer<int> in(n), out(n), keys(n);
  pp::device_buffer<std::uint8_t> fl(n);
  cudaMemcpy(in.data(), h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(fl.data(), f.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(keys.data(), hk.data(), n * 4, cudaMemcpyHostToDevice);

  const cub_anchors c = time_cub(keys.data(), in.data(), out.data(), n);
  const float cub = c.sum, cubk = c.by_key;
  std::printf("  CUB InclusiveSum %.1f  InclusiveSumByKey %.1f\n", cub, cubk);
  const auto o = int_plus_problem<false>(in.data(), fl.data(), out.data(), n);
  const auto g = int_plus_problem<true>(in.data(), fl.data(), out.data(), n);
  variant<false, 256, 7, 7>(o, g, ref, cub);
  variant<false, 256, 7, 7, 128>(o, g, ref, cub);
  variant<false, 256, 7, 7, 256>(o, g, ref, cub);
  variant<false, 256, 7, 7, 512>(o, g, ref, cub);
  variant<false, 256, 7, 7, 924>(o, g, ref, cub);
  variant<false, 256, 11, 5>(o, g, ref, cub);
  variant<false, 256, 11, 5, 256>(o, g, ref, cub);
  variant<true, 256, 7, 6>(o, g, sref, cubk);
  variant<true, 256, 7, 6, 256>(o, g, sref, cubk);
  variant<true, 256, 7, 6, 512>(o, g, sref, cubk);
  // run A of 2026-11-23 (at 3bb5929; its log is in git history under docs/results/) also
  // tried 128 x {20, 28, 36} plain and 128 x {20, 28} segmented: slower than 256 threads at 2^28
}

int main() {
  run(std::size_t(1) << 28);
  run(std::size_t(1) << 24);
  run(1000003);
  std::printf("failures: %d\n", failures);
  return failures != 0;
}
