/// \file
/// \brief The scan benchmarks' inputs besides the values (head flags, keys derived from them),
/// the shared output buffer, and the element-by-element check on the GPU (see scan_bench.hpp).

#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "scan_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief Whether element i is a segment head: every `length`-th element, or (length 0) with
/// probability 1/1024 from a hash of i; element 0 always.
__device__ bool is_head(std::size_t i, std::size_t length) {
  if (i == 0) return true;
  if (length) return i % length == 0;
  std::uint64_t z = 0x5e9ull + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (z & 1023u) == 0;
}

__global__ void fill_flags(std::uint8_t* f, std::size_t n, std::size_t length) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    f[i] = is_head(i, length) ? 1 : 0;
}

struct flag_to_key {
  __host__ __device__ std::int32_t operator()(std::uint8_t f) const { return f ? 1 : 0; }
};

/// \brief The one live set of flags and keys.
struct segment_cache {
  std::size_t n = 0, length = 0, copies = 0;
  std::vector<void*> flag_buffers, key_buffers;
  segment_inputs view;
  ~segment_cache() { release(); }
  void release() {
    for (void* p : flag_buffers) cudaFree(p);
    for (void* p : key_buffers) cudaFree(p);
    flag_buffers.clear();
    key_buffers.clear();
    view = segment_inputs{};
    n = length = copies = 0;
  }
};

segment_cache& cache() {
  static segment_cache c;
  return c;
}

/// \brief Counts wrong elements (see check_scan).
template <class T>
__global__ void count_wrong(const T* x, const std::uint8_t* flags, const T* out, std::size_t n,
                            int what, unsigned long long* wrong, unsigned long long* first) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    T want;
    if (what == static_cast<int>(scan_check::exclusive))
      want = i == 0 ? T(0) : static_cast<T>(out[i - 1] + x[i - 1]);
    else if (what == static_cast<int>(scan_check::segmented_inclusive))
      want = (i == 0 || flags[i] != 0) ? x[i] : static_cast<T>(out[i - 1] + x[i]);
    else
      want = i == 0 ? x[0] : static_cast<T>(out[i - 1] + x[i]);
    if (!(out[i] == want)) {
      ++local;
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
  if (local) atomicAdd(wrong, local);
}

}  // namespace

const segment_inputs* segments_for(std::size_t n, std::size_t length, std::size_t copies,
                                   bool keys) {
  segment_cache& c = cache();
  if (c.n != n || c.length != length || c.copies != copies) {
    c.release();
    for (std::size_t k = 0; k < copies; ++k) {
      void* p = nullptr;
      if (cudaMalloc(&p, n) != cudaSuccess) {
        c.release();
        return nullptr;
      }
      c.flag_buffers.push_back(p);
      c.view.flags.push_back(static_cast<const std::uint8_t*>(p));
      fill_flags<<<1024, 256, 0, bench_stream()>>>(static_cast<std::uint8_t*>(p), n, length);
    }
    c.n = n;
    c.length = length;
    c.copies = copies;
  }
  if (keys && c.key_buffers.empty()) {
    for (std::size_t k = 0; k < copies; ++k) {
      void* p = nullptr;
      if (cudaMalloc(&p, n * sizeof(std::int32_t)) != cudaSuccess) {
        c.release();
        return nullptr;
      }
      c.key_buffers.push_back(p);
      c.view.keys.push_back(static_cast<const std::int32_t*>(p));
      const auto* f = static_cast<const std::uint8_t*>(c.flag_buffers[k]);
      auto* out = static_cast<std::int32_t*>(p);
      if (k == 0)
        thrust::inclusive_scan(thrust::cuda::par.on(bench_stream()),
                               thrust::make_transform_iterator(f, flag_to_key{}),
                               thrust::make_transform_iterator(f + n, flag_to_key{}), out);
      else
        cudaMemcpyAsync(out, c.key_buffers[0], n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice,
                        bench_stream());
    }
  }
  if (cudaStreamSynchronize(bench_stream()) != cudaSuccess) {
    c.release();
    return nullptr;
  }
  return &c.view;
}

void* scan_output(std::size_t bytes) {
  static void* p = nullptr;
  static std::size_t size = 0;
  if (bytes != size) {
    cudaFree(p);
    p = nullptr;
    size = 0;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    size = bytes;
  }
  return p;
}

bool scan_fits(std::size_t bytes) {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return false;
  return bytes <= total / 4 * 3;
}

template <class T>
std::string check_scan(const T* x, const std::uint8_t* flags, const T* out, std::size_t n,
                       scan_check what) {
  unsigned long long* counters = nullptr;
  if (cudaMalloc(&counters, 2 * sizeof(unsigned long long)) != cudaSuccess)
    return "cudaMalloc (check) failed";
  // Everything on the (non-blocking) bench stream, in order.
  const unsigned long long start[2] = {0, ~0ull};
  unsigned long long result[2] = {0, 0};
  cudaMemcpyAsync(counters, start, sizeof(start), cudaMemcpyHostToDevice, bench_stream());
  count_wrong<<<2048, 256, 0, bench_stream()>>>(x, flags, out, n, static_cast<int>(what), counters,
                                                counters + 1);
  cudaMemcpyAsync(result, counters, sizeof(result), cudaMemcpyDeviceToHost, bench_stream());
  const cudaError_t e = cudaStreamSynchronize(bench_stream());
  cudaFree(counters);
  if (e != cudaSuccess) return std::string("CUDA error: ") + cudaGetErrorString(e);
  if (result[0] == 0) return "";
  return "wrong scan: " + std::to_string(result[0]) + " of " + std::to_string(n) +
         " elements differ, the first at index " + std::to_string(result[1]);
}

template std::string check_scan<std::int32_t>(const std::int32_t*, const std::uint8_t*,
                                              const std::int32_t*, std::size_t, scan_check);
template std::string check_scan<float>(const float*, const std::uint8_t*, const float*, std::size_t,
                                       scan_check);
template std::string check_scan<double>(const double*, const std::uint8_t*, const double*,
                                        std::size_t, scan_check);

}  // namespace parprim_bench::cuda
