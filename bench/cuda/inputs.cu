/// \file
/// \brief Rotated device inputs, the exact reference sum, the shared stream and registration
/// of the CUDA benchmarks (see cuda_bench.hpp).

#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cuda_bench.hpp"
#include "matrix_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief Element i: splitmix64 of i, reduced to an integer in [-8, 8].
__host__ __device__ std::int64_t element(std::uint64_t i) {
  std::uint64_t z = 0x5eedull + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<std::int64_t>(z % 17) - 8;
}

template <class T>
__global__ void fill(T* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if constexpr (requires { T::from_element(std::int64_t(0), std::uint64_t(0)); })
      x[i] = T::from_element(element(i), i);
    else
      x[i] = static_cast<T>(element(i));
}

/// \brief The exact sum, with integer atomics (a reference, not a competitor).
__global__ void reference_sum(std::size_t n, unsigned long long* out) {
  long long s = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    s += element(i);
  atomicAdd(out, static_cast<unsigned long long>(s));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "parprim-bench (CUDA): %s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// \brief The one live set of inputs.
struct live_set {
  std::string key;
  std::vector<void*> buffers;
  std::shared_ptr<void> typed;  // the rotated_inputs<T> handed out
  ~live_set() { release(); }
  void release() {
    for (void* p : buffers) cudaFree(p);
    buffers.clear();
    typed.reset();
    key.clear();
  }
};

live_set& live() {
  static live_set s;
  return s;
}

}  // namespace

bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

cudaStream_t bench_stream() {
  static cudaStream_t s = [] {
    cudaStream_t st = nullptr;
    check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
    return st;
  }();
  return s;
}

template <class T>
const rotated_inputs<T>& inputs_for(std::size_t n) {
  const std::string key = std::string(type_name<T>()) + "/" + std::to_string(n);
  live_set& l = live();
  if (l.key != key) {
    l.release();
    const std::size_t bytes = n * sizeof(T);
    const std::size_t count = rotation_count(bytes);
    auto in = std::make_shared<rotated_inputs<T>>();
    in->n = n;
    for (std::size_t k = 0; k < count; ++k) {
      void* p = nullptr;
      check(cudaMalloc(&p, bytes), "cudaMalloc (bench input)");
      fill<<<1024, 256>>>(static_cast<T*>(p), n);
      check(cudaGetLastError(), "fill");
      l.buffers.push_back(p);
      in->buffers.push_back(static_cast<const T*>(p));
    }
    unsigned long long* d_sum = nullptr;
    check(cudaMalloc(&d_sum, sizeof(*d_sum)), "cudaMalloc (reference)");
    check(cudaMemset(d_sum, 0, sizeof(*d_sum)), "cudaMemset");
    reference_sum<<<1024, 256>>>(n, d_sum);
    unsigned long long sum = 0;
    check(cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost), "reference sum");
    cudaFree(d_sum);
    in->sum = static_cast<std::int64_t>(sum);
    l.typed = in;
    l.key = key;
  }
  return *static_cast<const rotated_inputs<T>*>(l.typed.get());
}

template const rotated_inputs<std::int32_t>& inputs_for<std::int32_t>(std::size_t);
template const rotated_inputs<float>& inputs_for<float>(std::size_t);
template const rotated_inputs<double>& inputs_for<double>(std::size_t);
// the matrix's other input types (matrix_bench.hpp)
template const rotated_inputs<std::int8_t>& inputs_for<std::int8_t>(std::size_t);
template const rotated_inputs<std::uint32_t>& inputs_for<std::uint32_t>(std::size_t);
template const rotated_inputs<std::int64_t>& inputs_for<std::int64_t>(std::size_t);
template const rotated_inputs<arg_f32_u32>& inputs_for<arg_f32_u32>(std::size_t);
template const rotated_inputs<affine_f64>& inputs_for<affine_f64>(std::size_t);

void register_one(const std::string& name, std::size_t n, std::function<void(benchmark::State&)> fn,
                  double min_time) {
  benchmark::RegisterBenchmark((name + "/n:" + std::to_string(n)).c_str(),
                               [fn](benchmark::State& s) { fn(s); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(min_time)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

void add(const std::string& name, std::function<void(benchmark::State&, std::size_t)> fn) {
  for (std::int64_t n : sizes()) {
    const auto size = static_cast<std::size_t>(n);
    register_one(name, size, [fn, size](benchmark::State& s) { fn(s, size); });
  }
}

}  // namespace parprim_bench::cuda
