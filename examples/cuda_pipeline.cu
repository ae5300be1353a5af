// A GPU pipeline without host waits: normalise a vector (x / |x|) and take its running sum,
// enqueued on one stream with nosync() calls and a kernel that reads the norm from device
// memory, captured once into a CUDA graph and replayed on new data. Temporaries come from the
// stream-ordered allocator, so the graph owns its memory. Exits 77 (CTest: skipped) without a
// GPU, non-zero if a result is wrong.
#include <cuda_runtime.h>

#include <parprim/parprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace pp = parprim;

struct square {
  __host__ __device__ double operator()(float x) const { return double{x} * x; }
};

__global__ void scale_by_inverse_norm(const float* x, const double* sum_of_squares, float* y,
                                      std::size_t n) {
  const double inv = 1.0 / sqrt(*sum_of_squares);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = static_cast<float>(x[i] * inv);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: cuda_pipeline skipped\n");
    return 77;
  }
  const std::size_t n = 1 << 20;
  pp::device_buffer<float> x(n), y(n), cumulative(n);
  pp::device_buffer<double> norm2(1);

  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  pp::cuda_async_memory_resource pool;
  const auto gpu = pp::cuda.on(stream).nosync().memory(pool);

  // Record the pipeline once.
  cudaGraph_t graph = nullptr;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  pp::transform_reduce_into(gpu, std::as_const(x).span(), norm2.span(), 0.0, pp::plus{}, square{});
  scale_by_inverse_norm<<<264, 256, 0, stream>>>(x.span().data(), norm2.span().data(),
                                                 y.span().data(), n);
  pp::inclusive_scan(gpu, std::as_const(y).span(), cumulative.span(), pp::plus{});
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return 1;

  bool ok = true;
  for (int round = 1; round <= 3; ++round) {
    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>((i * round) % 7) - 3.0f;
    x.copy_from_host(host);
    cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);  // the only host wait of the round
    double want_norm2 = 0;
    for (float v : host) want_norm2 += double{v} * v;
    const double got_norm2 = norm2.to_host()[0];
    const float last = cumulative.to_host()[n - 1];
    double want_last = 0;
    for (float v : host) want_last += v / std::sqrt(want_norm2);
    const bool round_ok = got_norm2 == want_norm2 && std::fabs(last - want_last) < 1e-2;
    std::printf("round %d: |x|^2 = %.1f (expected %.1f), sum of x/|x| = %.5f (expected %.5f)\n",
                round, got_norm2, want_norm2, last, want_last);
    ok = ok && round_ok;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
