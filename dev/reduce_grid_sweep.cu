// Scratch: rung 7's vectorized reduce (the default) with grids of 1, 2, 4, ... times its usual
// one wave (4 blocks a multiprocessor), each block one contiguous share, beside CUB's
// DeviceReduce::Sum and DeviceSegmentedReduce::Sum over segments of 65536, in one process,
// device time (CUDA events, median of 25), rounds interleaved; every result checked. Asks
// whether more, shorter shares read faster than one wave of long ones. Not part of the build:
//   nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I<build>/include -DPARPRIM_HAS_CUDA=1
//     dev/reduce_grid_sweep.cu -o /tmp/grid && /tmp/grid
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <parprim/backends/cuda/kernels/reduce_vectorized_single_pass.cuh>
#include <vector>

#include "median_time.cuh"

namespace ppc = parprim::detail::cuda;

template <class T>
void sweep(std::size_t n, int rounds) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  std::vector<T> h(n);
  T expect = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = static_cast<T>(static_cast<int>((i * 2654435761u) >> 24) % 7 - 3);
    expect += h[i];
  }
  T* in;
  cudaMalloc(&in, n * sizeof(T));
  cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  constexpr unsigned block = 256, unroll = 8;
  using vec = ppc::vector16<T>;
  const std::size_t vectors = n / vec::size, round = std::size_t(block) * unroll;
  const std::size_t rounds_total = (vectors + round - 1) / round;
  T *partials, *result;
  unsigned* ticket;
  cudaMalloc(&partials, (1u << 20) * sizeof(T));
  cudaMalloc(&result, sizeof(T));
  cudaMalloc(&ticket, sizeof(unsigned));
  cudaMemset(ticket, 0, sizeof(unsigned));
  const std::size_t segments = n / 65536;
  std::vector<int> ho(segments + 1);
  for (std::size_t s = 0; s <= segments; ++s) ho[s] = static_cast<int>(s * 65536);
  int* offsets;
  T* seg_out;
  cudaMalloc(&offsets, ho.size() * sizeof(int));
  cudaMalloc(&seg_out, segments * sizeof(T));
  cudaMemcpy(offsets, ho.data(), ho.size() * sizeof(int), cudaMemcpyHostToDevice);
  void* temp = nullptr;
  std::size_t temp_bytes = 0, seg_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, in, result, n);
  cub::DeviceSegmentedReduce::Sum(nullptr, seg_bytes, in, seg_out, static_cast<int>(segments),
                                  offsets, offsets + 1);
  cudaMalloc(&temp, temp_bytes > seg_bytes ? temp_bytes : seg_bytes);
  const int multiples[] = {1, 2, 4, 8, 16, 32, 64};
  std::vector<std::vector<float>> t(9);
  for (int r = 0; r < rounds; ++r) {
    int v = 0;
    for (const int m : multiples) {
      std::size_t grid = std::size_t(sms) * 4 * m;
      if (grid > rounds_total) grid = rounds_total;
      const std::size_t per_block = (rounds_total + grid - 1) / grid * round;
      grid = (vectors + per_block - 1) / per_block;
      const ppc::single_pass_scratch<T> s{partials, ticket, result};
      const auto run = [&] {
        ppc::reduce_vectorized_single_pass_kernel<block, unroll, true, T, T, parprim::plus,
                                                  ppc::static_convert<T>>
            <<<static_cast<unsigned>(grid), block>>>(in, n, per_block, s, T(0), T(0),
                                                     parprim::plus{}, ppc::static_convert<T>{});
      };
      t[v++].push_back(time_us(run, 25));
      T got = 0;
      cudaMemcpy(&got, result, sizeof(T), cudaMemcpyDeviceToHost);
      if (got != expect) std::printf("WRONG: grid x%d\n", m);
    }
    t[v++].push_back(time_us([&] { cub::DeviceReduce::Sum(temp, temp_bytes, in, result, n); }, 25));
    t[v++].push_back(time_us(
        [&] {
          cub::DeviceSegmentedReduce::Sum(temp, seg_bytes, in, seg_out, static_cast<int>(segments),
                                          offsets, offsets + 1);
        },
        25));
  }
  const char* names[] = {"rung7 grid x1 (now)", "rung7 grid x2",  "rung7 grid x4",
                         "rung7 grid x8",       "rung7 grid x16", "rung7 grid x32",
                         "rung7 grid x64",      "CUB Sum",        "CUB SegmentedReduce 65536"};
  std::printf("%s, n = %zu (%zu MiB), device time us, rounds:\n",
              sizeof(T) == 8 ? "8-byte" : "4-byte", n, n * sizeof(T) >> 20);
  for (int v = 0; v < 9; ++v) {
    std::printf("  %-28s", names[v]);
    for (const float x : t[v]) std::printf(" %8.1f", x);
    std::printf("   (%.2f TB/s best)\n",
                n * sizeof(T) / (*std::min_element(t[v].begin(), t[v].end()) * 1e6));
  }
  cudaFree(in);
  cudaFree(partials);
  cudaFree(result);
  cudaFree(ticket);
  cudaFree(offsets);
  cudaFree(seg_out);
  cudaFree(temp);
}

int main() {
  sweep<int>(std::size_t{1} << 28, 3);
  sweep<float>(std::size_t{1} << 28, 3);
  sweep<long long>(std::size_t{1} << 27, 3);
  return 0;
}
