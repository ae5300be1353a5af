// Scratch: segmented_reduce with CSR offsets through the one pass in stretches
// (kernels/segment_tiles.cuh) at small n and spans of several tiles, which the library's own
// plan gives only at large n (one span a tile while the tiles fit one wave of blocks), so that
// compute-sanitizer can check the stretches' shared memory and barriers in seconds. int32 sums
// and double minimum, segments of 1 to 6 tiles (of 2 and 4 tiles exactly: heads on the tiles'
// grid) and a partial last tile, inputs 16-byte aligned
// and not, results against a host fold. Not part of the build: bash dev/sweep.sh
// dev/offsets_stretch_check.cu, then compute-sanitizer --tool racecheck /tmp/smoke/sweep (and
// synccheck, memcheck).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
namespace seg = parprim::detail::cuda::segments;

template <class T, class Op>
int check(std::size_t n, std::size_t length, unsigned per, Op op, T init, std::size_t shift,
          std::mt19937_64& rng) {
  std::vector<T> x(n);
  for (auto& v : x) v = static_cast<T>(static_cast<int>(rng() % 2001) - 1000);
  std::vector<std::int32_t> o{0};
  // lengths that are a multiple of 2 tiles stay exact: every head on the tiles' grid, so
  // stretches of consecutive segments meet
  const bool exact = length % (2 * seg::tile_size) == 0;
  for (std::size_t at = 0; at < n;) {
    at = std::min(n, at + length - (!exact && rng() % 3 == 0 ? rng() % 100 : 0));
    o.push_back(static_cast<std::int32_t>(at));
    if (rng() % 7 == 0) o.push_back(static_cast<std::int32_t>(at));  // an empty segment
  }
  if (o.back() != static_cast<std::int32_t>(n)) o.push_back(static_cast<std::int32_t>(n));
  const std::size_t k = o.size() - 1;
  std::vector<T> want(k);
  for (std::size_t s = 0; s < k; ++s) {
    T acc = init;
    for (std::int32_t i = o[s]; i < o[s + 1]; ++i) acc = op(acc, x[i]);
    want[s] = acc;
  }
  pp::device_buffer<T> in(n + 1), out(k);  // the input from element `shift`
  pp::device_buffer<std::int32_t> begins(k + 1);
  cudaMemcpy(in.data() + shift, x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(begins.data(), o.data(), (k + 1) * 4, cudaMemcpyHostToDevice);
  const std::size_t tiles = seg::tile_count(n);
  const seg::offset_span_plan plan{tiles, per, ppc::look_back_tuning::no_sleep, true, 0,
                                   true,  true};
  ppc::launch_options opt{};
  seg::reduce_offsets<std::int32_t, T, T, Op>(
      opt, 0, seg::offset_heads<std::int32_t>{begins.data(), k}, in.data() + shift, n, out.data(),
      init, op, true, &plan);
  std::vector<T> got(k);
  cudaMemcpy(got.data(), out.data(), k * sizeof(T), cudaMemcpyDeviceToHost);
  const bool ok = got == want;
  std::printf(
      "n %zu, segments of about %zu (k %zu), %u tiles a span, %zu bytes, from element %zu: "
      "%s\n",
      n, length, k, per, sizeof(T), shift, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  int failures = 0;
  const std::size_t t = seg::tile_size;
  for (std::size_t n : {6 * t + 7, 3 * t, 9 * t + 4000})
    for (std::size_t length : {t, 2 * t, 2 * t + 5, 4 * t, 5 * t, n})
      for (unsigned per : {1u, 2u, 3u, 4u, 10u})
        for (std::size_t shift : {0, 1}) {  // 1: not 16-byte aligned (the striped scalar loads)
          failures += check<int>(n, length, per, pp::plus{}, 3, shift, rng);
          failures += check<double>(n, length, per, pp::minimum{}, 1e300, shift, rng);
        }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
