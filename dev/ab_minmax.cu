// Scratch: one binary per tree for an A/B of float and double minimum / maximum on the GPU (the
// ordered keys, backends/cuda/detail/ordered_key_op.cuh). Device time: each call enqueued 20
// times (nosync, on one stream) into a CUDA graph, the graph launched and timed with events,
// the median of AB_REPS launches over 20. Cells: inclusive and exclusive scans and reduce_into
// of float32 / float64 minimum and maximum at 2^16, 2^20, 2^24 and 2^28 (float64 2^27), int32
// and int64 minimum beside them, and CUB's (DeviceScan::InclusiveScan, DeviceReduce::Min/Max)
// for reference. First prints a hash of every call's result on inputs with NaNs of both signs,
// signed zeros and infinities (two trees that agree print the same hashes). Not part of the
// build: AB_FILE=dev/ab_minmax.cu bash dev/ab_check.sh (AB_ROUNDS, default 2).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <parprim/parprim.hpp>

#include "median_time.cuh"

namespace pp = parprim;

template <class T>
std::uint64_t hash(const T* p, std::size_t n) {
  std::vector<unsigned char> h(n * sizeof(T));
  cudaMemcpy(h.data(), p, h.size(), cudaMemcpyDeviceToHost);
  std::uint64_t x = 1469598103934665603ull;
  for (unsigned char c : h) x = (x ^ c) * 1099511628211ull;
  return x;
}

cudaStream_t stream;

template <class T>
std::vector<T> inputs(std::size_t n, bool special, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const std::uint64_t w = rng();
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(static_cast<double>(w >> 11) * 0x1.0p-53 * 2000.0 - 1000.0);
      if (special) {
        switch (w % 16) {
          case 0:
            x = std::numeric_limits<T>::quiet_NaN();
            break;
          case 1:
            x = -std::numeric_limits<T>::quiet_NaN();
            break;
          case 2:
            x = T(0);
            break;
          case 3:
            x = -T(0);
            break;
          case 4:
            x = std::numeric_limits<T>::infinity();
            break;
          case 5:
            x = -std::numeric_limits<T>::infinity();
            break;
          default:
            break;
        }
      }
    } else {
      x = static_cast<T>(w);
    }
  }
  return v;
}

template <class T>
struct cell_data {
  std::size_t n;
  pp::device_buffer<T> in, out;
  explicit cell_data(std::size_t n_, bool special, std::uint64_t seed)
      : n(n_), in(inputs<T>(n_, special, seed)), out(n_) {}
};

int reps = 15;

/// parprim's three calls and CUB's inclusive scan and reduction of one type, operator and size.
template <class T, class Op, class CubOp>
void cells(const char* type, const char* op_name, std::size_t n, bool with_cub) {
  cell_data<T> d(n, false, n * 7 + sizeof(T));
  const auto policy = pp::cuda.on(stream).nosync();
  const T init = T(3);
  const auto incl = [&] {
    pp::inclusive_scan(policy, std::as_const(d.in).span(), d.out.span(), Op{});
  };
  const auto excl = [&] {
    pp::exclusive_scan(policy, std::as_const(d.in).span(), d.out.span(), init, Op{});
  };
  const auto red = [&] {
    pp::reduce_into(policy, std::as_const(d.in).span(), d.out.span().subspan(0, 1), init, Op{});
  };
  std::printf("%-8s %-8s 2^%-2d  incl %8.2f  excl %8.2f  reduce_into %8.2f", type, op_name,
              __builtin_ctzll(n), graph_us(incl, stream, reps), graph_us(excl, stream, reps),
              graph_us(red, stream, reps));
  if (with_cub) {
    std::size_t tb_scan = 0, tb_red = 0;
    cub::DeviceScan::InclusiveScan(nullptr, tb_scan, d.in.data(), d.out.data(), CubOp{}, (int)n);
    cub::DeviceReduce::Reduce(nullptr, tb_red, d.in.data(), d.out.data(), (int)n, CubOp{}, init);
    void* tmp = nullptr;
    cudaMalloc(&tmp, tb_scan > tb_red ? tb_scan : tb_red);
    const auto cub_scan = [&] {
      cub::DeviceScan::InclusiveScan(tmp, tb_scan, d.in.data(), d.out.data(), CubOp{}, (int)n,
                                     stream);
    };
    const auto cub_red = [&] {
      cub::DeviceReduce::Reduce(tmp, tb_red, d.in.data(), d.out.data(), (int)n, CubOp{}, init,
                                stream);
    };
    std::printf("  | CUB incl %8.2f  reduce %8.2f", graph_us(cub_scan, stream, reps),
                graph_us(cub_red, stream, reps));
    cudaFree(tmp);
  }
  std::printf("\n");
  std::fflush(stdout);
}

/// The hashes of every call's results on special values (bits to compare between trees).
template <class T, class Op>
void hashes(const char* type, const char* op_name, std::size_t n) {
  cell_data<T> d(n, true, n + 11);
  const T init = -T(0);
  std::printf("hash %-7s %-8s n %-8zu", type, op_name, n);
  pp::inclusive_scan(pp::cuda, std::as_const(d.in).span(), d.out.span(), Op{});
  std::printf(" incl %016llx", (unsigned long long)hash(d.out.data(), n));
  pp::exclusive_scan(pp::cuda, std::as_const(d.in).span(), d.out.span(), init, Op{});
  std::printf(" excl %016llx", (unsigned long long)hash(d.out.data(), n));
  const T r = pp::reduce(pp::cuda, std::as_const(d.in).span(), init, Op{});
  pp::reduce_into(pp::cuda, std::as_const(d.in).span(), d.out.span().subspan(0, 1), init, Op{});
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  std::printf(" reduce %016llx into %016llx\n", (unsigned long long)std::bit_cast<U>(r),
              (unsigned long long)std::bit_cast<U>(d.out.to_host()[0]));
  std::fflush(stdout);
}

int main() {
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (const char* s = std::getenv("AB_REPS")) reps = std::atoi(s);
  for (std::size_t n : {std::size_t(1) << 10, std::size_t(1) << 20, (std::size_t(1) << 22) + 17}) {
    hashes<float, pp::minimum>("float32", "minimum", n);
    hashes<float, pp::maximum>("float32", "maximum", n);
    hashes<double, pp::minimum>("float64", "minimum", n);
    hashes<double, pp::maximum>("float64", "maximum", n);
  }
  const int rounds = std::getenv("AB_ROUNDS") ? std::atoi(std::getenv("AB_ROUNDS")) : 2;
  const bool with_cub = std::getenv("AB_CUB") != nullptr;
  for (int r = 0; r < rounds; ++r) {
    std::printf("round %d\n", r);
    for (int k : {16, 20, 24, 28}) {
      const std::size_t n = std::size_t(1) << k, n8 = std::size_t(1) << (k == 28 ? 27 : k);
      cells<float, pp::minimum, cuda::minimum<>>("float32", "minimum", n, with_cub);
      cells<float, pp::maximum, cuda::maximum<>>("float32", "maximum", n, with_cub);
      cells<std::int32_t, pp::minimum, cuda::minimum<>>("int32", "minimum", n, with_cub);
      cells<double, pp::minimum, cuda::minimum<>>("float64", "minimum", n8, with_cub);
      cells<double, pp::maximum, cuda::maximum<>>("float64", "maximum", n8, with_cub);
      cells<std::int64_t, pp::minimum, cuda::minimum<>>("int64", "minimum", n8, with_cub);
    }
  }
  return 0;
}
