/// \file
/// \brief The stream gate of the device-time benchmarks (declared in cuda_bench.hpp): a kernel
/// that holds the bench stream until the host opens it, so that the work enqueued behind it
/// runs back to back on the GPU, without the host's launch gaps between its kernels.

#include <cuda_runtime.h>

#include <atomic>

#include "cuda_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief The nanosecond global timer.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// \brief Holds its stream until `*open != 0` (host-mapped memory written by the host) or
/// `timeout_ns` have passed; counts a timeout in `*timeouts`.
__global__ void gate_kernel(const volatile int* open, volatile int* timeouts,
                            unsigned long long timeout_ns) {
  const unsigned long long t0 = global_ns();
  while (*open == 0) {
    if (global_ns() - t0 > timeout_ns) {
      *timeouts = *timeouts + 1;
      return;
    }
    __nanosleep(200);
  }
}

/// \brief The gate's two words in mapped pinned memory: [0] open, [1] timeouts.
class stream_gate {
 public:
  stream_gate() {
    void* host = nullptr;
    void* device = nullptr;
    if (cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess) return;
    if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) {
      cudaFreeHost(host);
      return;
    }
    host_ = static_cast<volatile int*>(host);
    device_ = static_cast<volatile int*>(device);
    host_[0] = 0;
    host_[1] = 0;
  }
  ~stream_gate() {
    if (host_) cudaFreeHost(const_cast<int*>(host_));
  }
  stream_gate(const stream_gate&) = delete;
  stream_gate& operator=(const stream_gate&) = delete;

  bool ok() const { return host_ != nullptr; }
  bool close(cudaStream_t stream) {
    host_[0] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    gate_kernel<<<1, 1, 0, stream>>>(device_, device_ + 1, timeout_ns);
    return cudaGetLastError() == cudaSuccess;
  }
  void open() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    host_[0] = 1;
  }
  int timeouts() const { return host_[1]; }

 private:
  static constexpr unsigned long long timeout_ns = 200'000'000;  // 0.2 s
  volatile int* host_ = nullptr;
  volatile int* device_ = nullptr;
};

stream_gate& gate() {
  static stream_gate g;
  return g;
}

}  // namespace

bool gate_ready() {
  return gate().ok();
}
bool gate_close(cudaStream_t stream) {
  return gate().close(stream);
}
void gate_open() {
  gate().open();
}
int gate_timeouts() {
  return gate().timeouts();
}

}  // namespace parprim_bench::cuda
