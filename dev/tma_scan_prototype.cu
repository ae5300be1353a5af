// Scratch: does a scan whose tile lives in shared memory (TMA bulk load in, bulk store out, few
// registers per thread, so more tiles in flight per SM) beat rung 5's register tile? int32 plus,
// full tiles only (the tail is not handled: timings cover tiles * tile_size elements and are
// scaled to n). Not part of the build: bash dev/sweep.sh dev/tma_scan_prototype.cu
#include <cstdint>
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/parprim.hpp>
#include <vector>

#include "median_time.cuh"

namespace pp = parprim;
/// Rung 5 by name (parprim::cuda is rung 6 since 17367c7).
static const auto k5_policy = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);
namespace ppc = parprim::detail::cuda;

struct delays {
  unsigned first_ns, pause_ns;
};

// status word: epoch << 34 | kind << 32 | value (kind 1 aggregate, 2 inclusive)
using word = unsigned long long;
__device__ __forceinline__ void publish(word* s, unsigned epoch, unsigned kind, int v) {
  cuda::atomic_ref<word, cuda::thread_scope_device> a(*s);
  a.store(word(epoch) << 34 | word(kind) << 32 | unsigned(v), cuda::memory_order_relaxed);
}
__device__ __forceinline__ word peek(word* s) {
  cuda::atomic_ref<word, cuda::thread_scope_device> a(*s);
  return a.load(cuda::memory_order_relaxed);
}

template <int Threads, int Items, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    tma_scan(const int* in, int* out, std::size_t tiles, word* status, unsigned* ticket,
             unsigned epoch, delays d) {
  constexpr int tile_size = Threads * Items;
  constexpr unsigned tile_bytes = tile_size * sizeof(int);
  constexpr int warps = Threads / 32;
  __shared__ __align__(128) int tile[tile_size];
  __shared__ __align__(8) std::uint64_t bar;
  __shared__ int warp_total[warps];
  __shared__ int carry;
  __shared__ unsigned tile_slot;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    const unsigned id = atomicAdd(ticket, 1u);
    if (id == tiles - 1) *ticket = 0;
    tile_slot = id;
    ppc::bulk_barrier_init(&bar);
    ppc::bulk_barrier_expect(&bar, tile_bytes);
    ppc::bulk_load(tile, in + std::size_t(id) * tile_size, tile_bytes, &bar);
  }
  __syncthreads();
  const std::size_t t = tile_slot;
  ppc::bulk_barrier_wait(&bar);
  // pass 1: the thread's total over its Items contiguous values
  const int4* mine = reinterpret_cast<const int4*>(tile + threadIdx.x * Items);
  int sum = 0;
#pragma unroll
  for (int j = 0; j < Items / 4; ++j) {
    const int4 v = mine[j];
    sum += v.x + v.y + v.z + v.w;
  }
  int incl = sum;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const int y = __shfl_up_sync(~0u, incl, o);
    if (lane >= o) incl += y;
  }
  if (lane == 31) warp_total[warp] = incl;
  __syncthreads();
  int before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    const int x = warp_total[w];
    if (w < warp) before += x;
    total += x;
  }
  if (warp == 0) {
    int prefix = 0;
    if (t == 0) {
      if (lane == 0) publish(status + t, epoch, 2, total);
    } else {
      if (lane == 0) publish(status + t, epoch, 1, total);
      if (d.first_ns && tiles >= 512) __nanosleep(d.first_ns);
      long long base = (long long)t - 1;
      for (;;) {
        const long long at = base - lane;
        word s;
        unsigned kind;
        for (;;) {
          s = at >= 0 ? peek(status + at) : (word(epoch) << 34 | word(2) << 32);
          kind = (s >> 34) == epoch ? unsigned(s >> 32) & 3u : 0u;
          if (__all_sync(~0u, kind != 0)) break;
          __nanosleep(d.pause_ns);
        }
        const unsigned inclusive = __ballot_sync(~0u, kind == 2);
        const int stop = inclusive ? __ffs(inclusive) - 1 : 31;
        int v = lane <= stop ? int(unsigned(s)) : 0;
#pragma unroll
        for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(~0u, v, o);
        prefix += v;
        if (inclusive) break;
        base -= 32;
      }
      if (lane == 0) publish(status + t, epoch, 2, prefix + total);
    }
    if (lane == 0) carry = prefix;
  }
  __syncthreads();
  // pass 2: scan the thread's values again with its prefix, in place
  int run = carry + before + incl - sum;
  int4* mine_w = reinterpret_cast<int4*>(tile + threadIdx.x * Items);
#pragma unroll
  for (int j = 0; j < Items / 4; ++j) {
    int4 v = mine_w[j];
    v.x = run += v.x;
    v.y = run += v.y;
    v.z = run += v.z;
    v.w = run += v.w;
    mine_w[j] = v;
  }
  ppc::fence_shared_for_bulk();
  __syncthreads();
  if (threadIdx.x == 0) {
    ppc::bulk_store(out + t * tile_size, tile, tile_bytes);
    ppc::bulk_store_wait_read();
  }
}

int main() {
  for (int log2n : {28, 24, 20}) {
    const std::size_t n = std::size_t(1) << log2n;
    std::vector<int> h(n), ref(n);
    unsigned x = 12345u + log2n;
    for (std::size_t i = 0; i < n; ++i) {
      x = x * 1664525u + 1013904223u;
      h[i] = int(x >> 20) - 2048;
    }
    int run = 0;
    for (std::size_t i = 0; i < n; ++i) ref[i] = run += h[i];
    pp::device_buffer<int> in(n), out(n);
    cudaMemcpy(in.data(), h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    word* status;
    unsigned* ticket;
    cudaMalloc(&status, (n / 1024 + 64) * sizeof(word));
    cudaMemset(status, 0, (n / 1024 + 64) * sizeof(word));
    cudaMalloc(&ticket, sizeof(unsigned));
    cudaMemset(ticket, 0, sizeof(unsigned));
    unsigned epoch = 1;
    std::printf("int32 n=2^%d\n", log2n);
    std::size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
    void* tmp = nullptr;
    cudaMalloc(&tmp, tb);
    const float cub_us =
        1e3f *
        median_ms([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); },
                  25);
    const float k5_us =
        1e3f *
        median_ms([&] { pp::inclusive_scan(k5_policy, in.span(), out.span(), pp::plus{}); }, 25);
    std::printf("  CUB InclusiveSum %.1f us, parprim rung 5 %.1f us (%.3fx CUB)\n", cub_us, k5_us,
                cub_us / k5_us);
    cudaFree(tmp);
    auto trial = [&](auto kernel, int threads, int items, const char* what) {
      const std::size_t tile_size = std::size_t(threads) * items;
      const std::size_t tiles = n / tile_size;
      int bps = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, kernel, threads, 0);
      cudaFuncAttributes a{};
      cudaFuncGetAttributes(&a, kernel);
      std::printf("  %s %dx%d (%d regs, %d blocks/SM):", what, threads, items, a.numRegs, bps);
      for (delays d : {delays{0, 32}, delays{700, 350}, delays{1200, 650}, delays{400, 200}}) {
        cudaMemset(out.data(), 0, n * sizeof(int));
        kernel<<<(unsigned)tiles, threads>>>(in.data(), out.data(), tiles, status, ticket, epoch++,
                                             d);
        const cudaError_t e = cudaDeviceSynchronize();
        std::vector<int> got(tiles * tile_size);
        cudaMemcpy(got.data(), out.data(), got.size() * sizeof(int), cudaMemcpyDeviceToHost);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != ref[i];
        const float us = 1e3f *
                         median_ms(
                             [&] {
                               kernel<<<(unsigned)tiles, threads>>>(in.data(), out.data(), tiles,
                                                                    status, ticket, epoch++, d);
                             },
                             25) *
                         float(n) / float(tiles * tile_size);
        std::printf("  {%u,%u} %.1f us (%.3fx CUB)%s%s", d.first_ns, d.pause_ns, us, cub_us / us,
                    bad ? " WRONG" : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
      }
      std::printf("\n");
    };
    trial(tma_scan<256, 28, 1>, 256, 28, "tma smem tile");
    trial(tma_scan<256, 28, 7>, 256, 28, "tma smem tile (7/SM cap)");
    trial(tma_scan<256, 20, 1>, 256, 20, "tma smem tile");
    trial(tma_scan<256, 36, 1>, 256, 36, "tma smem tile");
    trial(tma_scan<256, 44, 1>, 256, 44, "tma smem tile");
    trial(tma_scan<128, 44, 1>, 128, 44, "tma smem tile");
    cudaFree(status);
    cudaFree(ticket);
  }
  return 0;
}
