/// \file
/// \brief The matrix's checks on the GPU (matrix_bench.hpp): a scan element by element against
/// its recurrence, a reduction against an in-order fold (each thread folds a contiguous chunk,
/// the host folds the chunks in order: right for non-commutative operators too). Every
/// operator is exact on the matrix's inputs, so equality is the test.

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "matrix_bench.hpp"

namespace parprim_bench::cuda {
namespace {

constexpr unsigned check_blocks = 1024, check_threads = 256;

template <class In, class Out, class Op>
__global__ void chunk_fold(const In* x, std::size_t n, Out init, Out* partial) {
  const std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t chunk = (n + threads - 1) / threads;
  Out acc = init;
  for (std::size_t i = t * chunk; i < n && i < (t + 1) * chunk; ++i) acc = Op{}(acc, Out(x[i]));
  partial[t] = acc;
}

/// \brief Counts elements that break the recurrence; the first such index in `first`.
template <class In, class Out, class Op>
__global__ void count_wrong(const In* x, const std::uint8_t* flags, const Out* out, std::size_t n,
                            matrix_primitive p, Out init, unsigned long long* wrong,
                            unsigned long long* first) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    Out want;
    if (p == matrix_primitive::exclusive)
      want = i == 0 ? init : Op{}(out[i - 1], Out(x[i - 1]));
    else if (i == 0 || (p == matrix_primitive::segmented && flags[i] != 0))
      want = Out(x[i]);
    else
      want = Op{}(out[i - 1], Out(x[i]));
    if (!(out[i] == want)) {
      ++local;
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
  if (local) atomicAdd(wrong, local);
}

}  // namespace

template <class In, class Out, class Op>
std::string matrix_check(matrix_primitive p, const matrix_args<In, Out>& a, const Out& result) {
  const cudaStream_t s = bench_stream();
  if (p == matrix_primitive::reduce) {
    const std::size_t threads = std::size_t(check_blocks) * check_threads;
    Out* partial = nullptr;
    if (cudaMalloc(&partial, threads * sizeof(Out)) != cudaSuccess)
      return "cudaMalloc (check) failed";
    chunk_fold<In, Out, Op><<<check_blocks, check_threads, 0, s>>>(a.x, a.n, a.init, partial);
    std::vector<Out> host(threads);
    cudaMemcpyAsync(host.data(), partial, threads * sizeof(Out), cudaMemcpyDeviceToHost, s);
    const cudaError_t e = cudaStreamSynchronize(s);
    cudaFree(partial);
    if (e != cudaSuccess) return std::string("CUDA error: ") + cudaGetErrorString(e);
    Out want = a.init;
    for (const Out& v : host) want = Op{}(want, v);
    return result == want ? "" : "wrong reduction";
  }
  unsigned long long* counters = nullptr;
  if (cudaMalloc(&counters, 2 * sizeof(unsigned long long)) != cudaSuccess)
    return "cudaMalloc (check) failed";
  const unsigned long long start[2] = {0, ~0ull};
  unsigned long long wrong[2] = {0, 0};
  cudaMemcpyAsync(counters, start, sizeof(start), cudaMemcpyHostToDevice, s);
  count_wrong<In, Out, Op><<<2 * check_blocks, check_threads, 0, s>>>(
      a.x, a.flags, a.out, a.n, p, a.init, counters, counters + 1);
  cudaMemcpyAsync(wrong, counters, sizeof(wrong), cudaMemcpyDeviceToHost, s);
  const cudaError_t e = cudaStreamSynchronize(s);
  cudaFree(counters);
  if (e != cudaSuccess) return std::string("CUDA error: ") + cudaGetErrorString(e);
  if (wrong[0] == 0) return "";
  return "wrong scan: " + std::to_string(wrong[0]) + " of " + std::to_string(a.n) +
         " elements differ, the first at index " + std::to_string(wrong[1]);
}

#define PARPRIM_MATRIX_CHECK(In, Out, Op)                                                       \
  template std::string matrix_check<In, Out, Op>(matrix_primitive, const matrix_args<In, Out>&, \
                                                 const Out&);
#define PARPRIM_MATRIX_CHECK_BUILTIN(In, Out)     \
  PARPRIM_MATRIX_CHECK(In, Out, parprim::plus)    \
  PARPRIM_MATRIX_CHECK(In, Out, parprim::minimum) \
  PARPRIM_MATRIX_CHECK(In, Out, parprim::maximum)
PARPRIM_MATRIX_CHECK_BUILTIN(std::int8_t, std::int32_t)
PARPRIM_MATRIX_CHECK_BUILTIN(std::int32_t, std::int32_t)
PARPRIM_MATRIX_CHECK_BUILTIN(std::uint32_t, std::uint32_t)
PARPRIM_MATRIX_CHECK_BUILTIN(std::int64_t, std::int64_t)
PARPRIM_MATRIX_CHECK_BUILTIN(float, float)
PARPRIM_MATRIX_CHECK_BUILTIN(double, double)
PARPRIM_MATRIX_CHECK(arg_f32_u32, arg_f32_u32, argmin)
PARPRIM_MATRIX_CHECK(affine_f64, affine_f64, affine_compose)

}  // namespace parprim_bench::cuda
