// Development tool (not part of the build): where does a small synchronous call's time go?
// Host wall time (steady_clock, medians of many calls, rounds interleaved) of the CUDA runtime
// calls a parprim call makes, of an empty launch + synchronise, of parprim's scan and reduce
// (synchronous, and enqueue-only) and of CUB's, at a few small n, int32 sums, on a created
// stream. Run: bash dev/sweep.sh dev/small_call_overhead.cu
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <parprim/parprim.hpp>

namespace pp = parprim;

__global__ void empty_kernel() {}

/// Writes `epoch` to a mapped host word once its (one) block is done: how soon a host that spins
/// on that word sees a kernel end, against cudaStreamSynchronize.
__global__ void flag_kernel(volatile unsigned* host_word, unsigned epoch) {
  __threadfence_system();
  *host_word = epoch;
}

/// The same for a grid: the last block to finish (a device counter) writes the host word.
__global__ void flag_grid_kernel(unsigned* counter, volatile unsigned* host_word, unsigned epoch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(counter, 1u) == gridDim.x - 1) {
      *counter = 0;
      __threadfence_system();
      *host_word = epoch;
    }
  }
}

namespace {

using clock_type = std::chrono::steady_clock;

/// Median host time (us) of `reps` calls of f, after 20 warm-ups.
double median_us(const std::function<void()>& f, int reps) {
  for (int i = 0; i < 20; ++i) f();
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    const auto a = clock_type::now();
    f();
    t[i] = std::chrono::duration<double, std::micro>(clock_type::now() - a).count();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct row {
  std::string name;
  std::function<void()> f;
  std::vector<double> medians;
};

}  // namespace

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const std::size_t max_n = std::size_t{1} << 20;
  pp::device_buffer<int> in(max_n), out(max_n), result(1);
  std::vector<int> h(max_n);
  for (std::size_t i = 0; i < max_n; ++i) h[i] = int(i % 17) - 8;
  cudaMemcpy(in.data(), h.data(), max_n * 4, cudaMemcpyHostToDevice);
  int* pinned = nullptr;
  cudaMallocHost(&pinned, sizeof(int));
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  {
    std::size_t a = 0, b = 0;
    cub::DeviceScan::InclusiveSum(nullptr, a, in.data(), out.data(), max_n, s);
    cub::DeviceReduce::Sum(nullptr, b, in.data(), result.data(), max_n, s);
    cub_bytes = std::max(a, b);
    cudaMalloc(&cub_temp, cub_bytes);
  }
  int* const d_in = in.data();
  int* const d_out = out.data();
  int* const d_result = result.data();
  const auto policy = pp::cuda.on(s);
  const auto enqueue = pp::cuda.on(s).nosync();

  std::vector<row> rows;
  auto add = [&](std::string name, std::function<void()> f) {
    rows.push_back({std::move(name), std::move(f), {}});
  };
  // The runtime calls of a call's host path, one at a time.
  add("api/cudaGetDevice", [&] {
    int d;
    cudaGetDevice(&d);
  });
  add("api/cudaStreamIsCapturing", [&] {
    cudaStreamCaptureStatus c;
    cudaStreamIsCapturing(s, &c);
  });
  add("api/cudaStreamGetDevice", [&] {
    int d;
    cudaStreamGetDevice(s, &d);
  });
  add("api/cudaPointerGetAttributes", [&] {
    cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, in.data());
  });
  add("api/cudaStreamSynchronize_idle", [&] { cudaStreamSynchronize(s); });
  add("api/empty_launch", [&] { empty_kernel<<<1, 1, 0, s>>>(); });
  add("api/empty_launch+sync", [&] {
    empty_kernel<<<1, 1, 0, s>>>();
    cudaStreamSynchronize(s);
  });
  add("api/empty_launch+memcpy_result", [&] {
    empty_kernel<<<1, 1, 0, s>>>();
    cudaMemcpyAsync(pinned, result.data(), sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  });
  // A kernel's end seen through a mapped host word it writes, spinning, against the stream's
  // synchronisation (and a spin on cudaStreamQuery).
  unsigned* host_word = nullptr;
  cudaHostAlloc(&host_word, sizeof(unsigned), cudaHostAllocMapped);
  *host_word = 0;
  unsigned* dev_word = nullptr;
  cudaHostGetDevicePointer(&dev_word, host_word, 0);
  unsigned* counter = nullptr;
  cudaMalloc(&counter, sizeof(unsigned));
  cudaMemset(counter, 0, sizeof(unsigned));
  unsigned epoch = 0;
  add("api/flag_launch+sync", [&] {
    flag_kernel<<<1, 1, 0, s>>>(dev_word, ++epoch);
    cudaStreamSynchronize(s);
  });
  add("api/flag_launch+spin", [&] {
    const unsigned e = ++epoch;
    flag_kernel<<<1, 1, 0, s>>>(dev_word, e);
    while (*reinterpret_cast<volatile unsigned*>(host_word) != e) {
    }
  });
  add("api/empty_launch+query_spin", [&] {
    empty_kernel<<<1, 1, 0, s>>>();
    while (cudaStreamQuery(s) == cudaErrorNotReady) {
    }
  });
  add("api/flag_grid64x256+sync", [&] {
    flag_grid_kernel<<<64, 256, 0, s>>>(counter, dev_word, ++epoch);
    cudaStreamSynchronize(s);
  });
  add("api/flag_grid64x256+spin", [&] {
    const unsigned e = ++epoch;
    flag_grid_kernel<<<64, 256, 0, s>>>(counter, dev_word, e);
    while (*reinterpret_cast<volatile unsigned*>(host_word) != e) {
    }
  });
  add("api/flag_grid64x256+spin+sync", [&] {
    const unsigned e = ++epoch;
    flag_grid_kernel<<<64, 256, 0, s>>>(counter, dev_word, e);
    while (*reinterpret_cast<volatile unsigned*>(host_word) != e) {
    }
    cudaStreamSynchronize(s);
  });
  for (std::size_t n : {std::size_t{1} << 12, std::size_t{1} << 16, std::size_t{1} << 20}) {
    const std::string tag = "/n:" + std::to_string(n);
    const pp::device_span<const int> x(in.data(), n);
    const pp::device_span<int> y(out.data(), n);
    add("scan/parprim_sync" + tag, [=] { pp::inclusive_scan(policy, x, y); });
    add("scan/parprim_enqueue_only" + tag, [=] { pp::inclusive_scan(enqueue, x, y); });
    add("scan/parprim_enqueue+sync" + tag, [=] {
      pp::inclusive_scan(enqueue, x, y);
      cudaStreamSynchronize(s);
    });
    add("scan/cub_sync" + tag, [=] {
      std::size_t b = cub_bytes;
      cub::DeviceScan::InclusiveSum(cub_temp, b, d_in, d_out, n, s);
      cudaStreamSynchronize(s);
    });
    add("scan/cub_enqueue_only" + tag, [=] {
      std::size_t b = cub_bytes;
      cub::DeviceScan::InclusiveSum(cub_temp, b, d_in, d_out, n, s);
    });
    add("reduce/parprim_sync" + tag, [=] {
      volatile int v = pp::reduce(policy, x, 0, pp::plus{});
      (void)v;
    });
    add("reduce/cub_sync_memcpy" + tag, [=] {
      std::size_t b = cub_bytes;
      cub::DeviceReduce::Sum(cub_temp, b, d_in, d_result, n, s);
      cudaMemcpyAsync(pinned, d_result, sizeof(int), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
    });
  }
  // Rounds: every row once per round, rows in order then reversed, so drift meets all alike.
  const int rounds = 6;
  for (int r = 0; r < rounds; ++r) {
    std::vector<row*> order;
    for (auto& x : rows) order.push_back(&x);
    if (r % 2) std::reverse(order.begin(), order.end());
    for (row* x : order) {
      x->medians.push_back(median_us(x->f, 1000));
      cudaStreamSynchronize(s);
    }
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::printf("CUDA error %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%-40s %10s %10s %10s   (us, median of 1000 calls per round, %d rounds)\n", "row",
              "min", "median", "max", rounds);
  for (auto& x : rows) {
    auto m = x.medians;
    std::sort(m.begin(), m.end());
    std::printf("%-40s %10.2f %10.2f %10.2f\n", x.name.c_str(), m.front(), m[m.size() / 2],
                m.back());
  }
  cudaFreeHost(pinned);
  cudaFreeHost(host_word);
  cudaFree(counter);
  cudaFree(cub_temp);
  cudaStreamDestroy(s);
  return 0;
}
