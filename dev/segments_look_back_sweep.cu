// Scratch: the one-pass per-segment reduction (kernels/segments_look_back.cuh), reduce_by_key of
// int32 keys and values at 2^28 and 2^24, runs of 1, 32 and 1024, against the library's call (its
// result is the reference): the library's kernel at 4 and 5 tiles per SM, at the waits {1200,
// 650}. Earlier forms of this file swept the waits, the register cap and the staged keys stored
// one after the other (key_heads_one_by_one; docs/results/h100/per-segment/). Not part of the
// build: SWEEP_LIB=build-dev/libparprim_cuda.a bash dev/sweep.sh dev/segments_look_back_sweep.cu
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;

static int failures = 0;

/// key_heads storing the staged keys one per iteration (a load, then its store).
template <class K>
struct key_heads_one_by_one : ppc::segments::key_heads<K> {
  template <unsigned Block, unsigned Per>
  __device__ void store_staged(std::size_t t0, const std::uint16_t* position, std::size_t first_id,
                               unsigned h) const {
    for (unsigned j = threadIdx.x; j < h; j += Block) this->on_head(t0 + position[j], first_id + j);
  }
};

template <unsigned MinB, class Heads = ppc::segments::key_heads<int>>
void variant(std::size_t n, const int* keys, const int* in, int* keys_out, int* out,
             const std::vector<int>& want, std::size_t runs, ppc::look_back_delays d) {
  ppc::launch_options o{};
  o.sync = true;
  const auto call = [&] {
    Heads h{};
    h.keys = keys;
    h.keys_out = keys_out;
    return ppc::segments::reduce_counted<Heads, int, int, pp::plus, MinB>(o, 0, h, in, n, out,
                                                                          false, 0, pp::plus{}, &d);
  };
  std::vector<int> got(runs);
  const std::size_t k = call();
  cudaMemcpy(got.data(), out, runs * 4, cudaMemcpyDeviceToHost);
  const bool ok = k == runs && got == want;
  failures += ok ? 0 : 1;
  const float us = time_us([&] { call(); }, 25);
  std::printf("  %u blocks/SM, waits {%u, %u, %u}%s: %8.1f us%s\n", MinB, d.first_ns, d.pause_ns,
              d.max_pause_ns,
              std::is_same_v<Heads, ppc::segments::key_heads<int>> ? "" : ", keys one by one", us,
              ok ? "" : "  WRONG");
}

int main() {
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t{1} << 28, std::size_t{1} << 24}) {
    std::vector<int> x(n);
    for (auto& v : x) v = int(rng() % 201) - 100;
    pp::device_buffer<int> in(n), keys(n), keys_out(n), out(n);
    cudaMemcpy(in.data(), x.data(), n * 4, cudaMemcpyHostToDevice);
    for (std::size_t len : {std::size_t{1}, std::size_t{32}, std::size_t{1024}}) {
      std::vector<int> k(n);
      for (std::size_t i = 0; i < n; ++i) k[i] = int(i / len);
      cudaMemcpy(keys.data(), k.data(), n * 4, cudaMemcpyHostToDevice);
      const std::size_t runs = pp::reduce_by_key(pp::cuda, keys.span(), in.span(), keys_out.span(),
                                                 out.span(), pp::plus{});
      std::vector<int> want(runs);
      cudaMemcpy(want.data(), out.data(), runs * 4, cudaMemcpyDeviceToHost);
      const float lib = time_us(
          [&] {
            pp::reduce_by_key(pp::cuda, keys.span(), in.span(), keys_out.span(), out.span(),
                              pp::plus{});
          },
          25);
      std::printf("n = 2^%d, runs of %zu: library call %.1f us\n",
                  n == (std::size_t{1} << 28) ? 28 : 24, len, lib);
      for (int round = 0; round < 2; ++round)
        for (ppc::look_back_delays d : {ppc::look_back_delays{1200, 650, 650}}) {
          variant<4>(n, keys.data(), in.data(), keys_out.data(), out.data(), want, runs, d);
          variant<5>(n, keys.data(), in.data(), keys_out.data(), out.data(), want, runs, d);
        }
    }
  }
  std::printf("failures: %d\n", failures);
  return failures == 0 ? 0 : 1;
}
