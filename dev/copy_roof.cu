// Scratch: how fast can a kernel with the scan's memory traffic (read n, write n) go on this GPU,
// by the way it moves the bytes? cudaMemcpy D2D, a grid-stride 16-byte copy, a one-tile-per-block
// register copy shaped like rung 5's tile (256 threads x Rows x 16 B), and a one-tile-per-block
// TMA bulk copy (cp.async.bulk global -> shared -> global), against CUB InclusiveSum and parprim's
// rung 5 in the same run. Not part of the build: bash dev/sweep.sh dev/copy_roof.cu
#include <cstdint>
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <parprim/backends/cuda/detail/bulk_copy.cuh>
#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;
namespace ppc = parprim::detail::cuda;
/// Rung 5 by name (parprim::cuda is rung 6 since 17367c7).
static const auto k5_policy = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);

__global__ void copy_grid_stride(const int4* in, int4* out, std::size_t n4) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// One tile per block: all rows loaded into registers, then stored (rung 5's shape).
template <int Rows, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks) copy_tile(const int4* in, int4* out) {
  const std::size_t base = blockIdx.x * std::size_t(256 * Rows) + threadIdx.x;
  int4 v[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) v[r] = in[base + r * 256];
#pragma unroll
  for (int r = 0; r < Rows; ++r) out[base + r * 256] = v[r];
}

// Same, through cache-streaming loads/stores (ld.global.cs / st.global.cs).
template <int Rows, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks) copy_tile_cs(const int4* in, int4* out) {
  const std::size_t base = blockIdx.x * std::size_t(256 * Rows) + threadIdx.x;
  int4 v[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) v[r] = __ldcs(in + base + r * 256);
#pragma unroll
  for (int r = 0; r < Rows; ++r) __stcs(out + base + r * 256, v[r]);
}

// One tile per block through TMA (backends/cuda/detail/bulk_copy.cuh): thread 0 issues the bulk
// load into shared memory (completing on an mbarrier), the block waits, thread 0 issues the bulk
// store back and waits for its reads. `Chunks` bulk copies of bytes/Chunks each (a single huge
// copy may serialise in one engine).
template <int Chunks>
__global__ void copy_tma(const char* in, char* out, unsigned bytes) {
  extern __shared__ __align__(128) char tile[];
  __shared__ __align__(8) std::uint64_t bar;
  const std::size_t off = blockIdx.x * std::size_t(bytes);
  const unsigned chunk = bytes / Chunks;
  if (threadIdx.x == 0) ppc::bulk_barrier_init(&bar);
  __syncthreads();
  if (threadIdx.x == 0) {
    ppc::bulk_barrier_expect(&bar, bytes);
    for (int c = 0; c < Chunks; ++c)
      ppc::bulk_load(tile + c * chunk, in + off + c * chunk, chunk, &bar);
  }
  ppc::bulk_barrier_wait(&bar);
  if (threadIdx.x == 0) {
    for (int c = 0; c < Chunks; ++c)
      ppc::bulk_store(out + off + c * chunk, tile + c * chunk, chunk);
    ppc::bulk_store_wait_read();
  }
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::printf("  %s: %s\n", what, cudaGetErrorString(e));
}

static bool same(const int* a, const int* b, std::size_t n) {
  // first, middle and last 4 KiB of the copied range
  static int ha[1024], hb[1024];
  for (std::size_t at : {std::size_t(0), n / 2, n - 1024}) {
    cudaMemcpy(ha, a + at, sizeof ha, cudaMemcpyDeviceToHost);
    cudaMemcpy(hb, b + at, sizeof hb, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 1024; ++i)
      if (ha[i] != hb[i]) return false;
  }
  return true;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int log2n : {28, 24, 20}) {
    const std::size_t n = std::size_t(1) << log2n;
    pp::device_buffer<int> in(n), out(n);
    {
      std::vector<int> h(n);
      for (std::size_t i = 0; i < n; ++i) h[i] = int((i * 2654435761u) >> 7);
      cudaMemcpy(in.data(), h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    }
    const double bytes_in = double(n) * sizeof(int);
    auto report = [&](const char* name, float ms, double covered = 1.0, bool ok = true) {
      // time scaled to the whole n where a kernel covered only whole tiles
      const float us = ms * 1e3f / float(covered);
      std::printf("  %-44s %9.1f us  %7.1f GB/s of input%s\n", name, us, bytes_in / (us * 1e3),
                  ok ? "" : "  WRONG");
    };
    std::printf("int32 n=2^%d\n", log2n);
    std::size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, in.data(), out.data(), (int)n);
    void* tmp = nullptr;
    cudaMalloc(&tmp, tb);
    report("CUB DeviceScan::InclusiveSum",
           median_ms([&] { cub::DeviceScan::InclusiveSum(tmp, tb, in.data(), out.data(), (int)n); },
                     25));
    report(
        "parprim inclusive_scan (rung 5)",
        median_ms([&] { pp::inclusive_scan(k5_policy, in.span(), out.span(), pp::plus{}); }, 25));
    cudaFree(tmp);
    report(
        "cudaMemcpy D2D",
        median_ms(
            [&] { cudaMemcpy(out.data(), in.data(), n * sizeof(int), cudaMemcpyDeviceToDevice); },
            25));
    const auto* i4 = reinterpret_cast<const int4*>(in.data());
    auto* o4 = reinterpret_cast<int4*>(out.data());
    for (int per_sm : {4, 8, 16, 32}) {
      cudaMemset(out.data(), 0, n * sizeof(int));
      const float ms =
          median_ms([&] { copy_grid_stride<<<sms * per_sm, 256>>>(i4, o4, n / 4); }, 25);
      char name[64];
      std::snprintf(name, sizeof name, "grid-stride int4, %d blocks/SM", per_sm);
      report(name, ms, 1.0, same(in.data(), out.data(), n));
    }
    auto tile_run = [&](auto kernel, int rows, const char* what) {
      const std::size_t tiles = n / (4 * 256 * std::size_t(rows));
      if (tiles == 0) return;
      cudaMemset(out.data(), 0, n * sizeof(int));
      const float ms = median_ms([&] { kernel<<<(unsigned)tiles, 256>>>(i4, o4); }, 25);
      check(cudaGetLastError(), what);
      char name[64];
      std::snprintf(name, sizeof name, "%s 256 x %d", what, 4 * rows);
      report(name, ms, double(tiles * 1024 * rows) / double(n),
             same(in.data(), out.data(), tiles * 1024 * rows));
    };
    tile_run(copy_tile<4, 1>, 4, "register tile");
    tile_run(copy_tile<6, 1>, 6, "register tile");
    tile_run(copy_tile<7, 1>, 7, "register tile");
    tile_run(copy_tile<7, 4>, 7, "register tile (4 blocks/SM cap)");
    tile_run(copy_tile<8, 1>, 8, "register tile");
    tile_run(copy_tile<12, 1>, 12, "register tile");
    tile_run(copy_tile_cs<7, 1>, 7, "register tile .cs");
    for (unsigned kb : {16u, 28u, 32u, 56u, 64u, 96u}) {
      const unsigned bytes = kb * 1024;
      const std::size_t tiles = n * sizeof(int) / bytes;
      if (tiles == 0) continue;
      for (int chunks : {1, 4}) {
        auto k = chunks == 1 ? copy_tma<1> : copy_tma<4>;
        check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
              "smem attr");
        for (int threads : {32, 256}) {
          cudaMemset(out.data(), 0, n * sizeof(int));
          const float ms = median_ms(
              [&] {
                k<<<(unsigned)tiles, threads, bytes>>>(reinterpret_cast<const char*>(in.data()),
                                                       reinterpret_cast<char*>(out.data()), bytes);
              },
              25);
          check(cudaGetLastError(), "tma");
          int bps = 0;
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, threads, bytes);
          char name[64];
          std::snprintf(name, sizeof name, "TMA tile %u KiB x%d, %d thr (%d blocks/SM)", kb, chunks,
                        threads, bps);
          report(name, ms, double(tiles * bytes) / double(n * sizeof(int)),
                 same(in.data(), out.data(), tiles * bytes / sizeof(int)));
        }
      }
    }
  }
  return 0;
}
