// Scratch: where the reduction of an 8-byte user struct loses to CUB at small n (the matrix's
// arg_f32_u32 argmin cell at 2^16, device time). Device time of reduce_into (nosync) and of
// CUB's DeviceReduce::Reduce, each captured 20 times into a CUDA graph (median of AB_REPS
// launches / 20), at 2^16 and 2^20, for: the bench's argmin (branches), the same order with
// selects only, a cheap commutative struct op (both fields added), and double plus (8 bytes,
// an identity). First checks both arg-min forms against the host's fold; with PROBE_NCU set,
// runs each parprim call once, alone, for ncu. Not part of the build: bash
// dev/struct_reduce_check.sh (or SWEEP_BUILD=/tmp/probe bash dev/sweep.sh <this file>).
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;

struct arg_f32_u32 {
  float value;
  std::uint32_t index;
};
/// the bench's argmin (bench/cuda/matrix_bench.hpp)
struct argmin_branches {
  static constexpr bool is_commutative = true;
  __host__ __device__ arg_f32_u32 operator()(const arg_f32_u32& l, const arg_f32_u32& r) const {
    if (r.value < l.value) return r;
    if (l.value < r.value) return l;
    return r.index < l.index ? r : l;
  }
};
/// the same result, one predicate and two selects
struct argmin_selects {
  static constexpr bool is_commutative = true;
  __host__ __device__ arg_f32_u32 operator()(const arg_f32_u32& l, const arg_f32_u32& r) const {
    const bool take_r = r.value < l.value || (!(l.value < r.value) && r.index < l.index);
    return {take_r ? r.value : l.value, take_r ? r.index : l.index};
  }
};
/// a cheap commutative op on the same struct
struct both_plus {
  static constexpr bool is_commutative = true;
  __host__ __device__ arg_f32_u32 operator()(const arg_f32_u32& l, const arg_f32_u32& r) const {
    return {l.value + r.value, l.index + r.index};
  }
};

cudaStream_t stream;
int reps = 15;

template <class T, class Op>
void cell(const char* name, std::size_t n, const std::vector<T>& host, T init, bool ncu_only) {
  pp::device_buffer<T> in(std::vector<T>(host.begin(), host.begin() + n)), out(1);
  const auto policy = pp::cuda.on(stream).nosync();
  const auto ours = [&] {
    pp::reduce_into(policy, std::as_const(in).span(), out.span(), init, Op{});
  };
  if (ncu_only) {
    ours();
    cudaStreamSynchronize(stream);
    return;
  }
  std::size_t tb = 0;
  cub::DeviceReduce::Reduce(nullptr, tb, in.data(), out.data(), (int)n, Op{}, init);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);
  const auto theirs = [&] {
    cub::DeviceReduce::Reduce(tmp, tb, in.data(), out.data(), (int)n, Op{}, init, stream);
  };
  std::printf("%-16s 2^%-2d parprim %7.2f  CUB %7.2f\n", name, __builtin_ctzll(n),
              graph_us(ours, stream, reps), graph_us(theirs, stream, reps));
  std::fflush(stdout);
  cudaFree(tmp);
}

/// parprim's arg-min (both operator forms) against the host's left fold, bit for bit, at sizes
/// around the rounds and blocks, from offsets 0 and 1 (aligned and misaligned vectors).
template <class Op>
int check(const char* name, const std::vector<arg_f32_u32>& a) {
  int bad = 0;
  pp::device_buffer<arg_f32_u32> in(a);
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(17), std::size_t(511),
                        std::size_t(4095), std::size_t(4097), std::size_t(65536),
                        std::size_t(65539), std::size_t(300007), std::size_t(1) << 19}) {
    for (std::size_t off : {std::size_t(0), std::size_t(1)}) {
      arg_f32_u32 want{1e30f, ~0u};
      for (std::size_t i = off; i < off + n; ++i) want = Op{}(want, a[i]);
      const arg_f32_u32 got = pp::reduce(pp::cuda, std::as_const(in).span().subspan(off, n),
                                         arg_f32_u32{1e30f, ~0u}, Op{});
      if (got.value != want.value || got.index != want.index) {
        std::printf("MISMATCH %s n %zu off %zu: %g %u against %g %u\n", name, n, off, got.value,
                    got.index, want.value, want.index);
        ++bad;
      }
    }
  }
  std::printf("check %s: %s\n", name, bad == 0 ? "ok" : "FAILED");
  return bad;
}

int main() {
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (const char* s = std::getenv("AB_REPS")) reps = std::atoi(s);
  const bool ncu_only = std::getenv("PROBE_NCU") != nullptr;
  const std::size_t big = std::size_t(1) << 20;
  std::mt19937_64 rng(42);
  std::vector<arg_f32_u32> a(big);
  std::vector<double> d(big);
  for (std::size_t i = 0; i < big; ++i) {
    a[i] = {static_cast<float>(static_cast<std::int64_t>(rng() % 2000001) - 1000000),
            static_cast<std::uint32_t>(i)};
    d[i] = static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);
  }
  const arg_f32_u32 ainit{1e30f, ~0u};
  if (!ncu_only) {
    // values from few distinct ones, so ties (the lower index wins) are common
    std::vector<arg_f32_u32> ties(a);
    for (auto& x : ties) x.value = static_cast<float>(rng() % 64);
    if (check<argmin_branches>("argmin_branches", a) + check<argmin_selects>("argmin_selects", a) +
            check<argmin_branches>("argmin_branches ties", ties) !=
        0)
      return 1;
  }
  for (int round = 0; round < (ncu_only ? 1 : 2); ++round)
    for (std::size_t n : {std::size_t(1) << 16, big}) {
      cell<arg_f32_u32, argmin_branches>("argmin_branches", n, a, ainit, ncu_only);
      cell<arg_f32_u32, argmin_selects>("argmin_selects", n, a, ainit, ncu_only);
      cell<arg_f32_u32, both_plus>("both_plus", n, a, arg_f32_u32{0, 0}, ncu_only);
      cell<double, pp::plus>("double_plus", n, d, 0.0, ncu_only);
    }
}
