// Scratch: one binary per tree for an A/B of the deterministic scans' look-back. Times, in
// rounds, the library's default (deterministic) calls on float32 2^28 and float64 2^27 sums, the
// segmented float64 sum (segments of 1024, byte flags) at 2^27, the affine-map scan (16 bytes,
// not commutative) at 2^27 and a commutative 8-byte struct (arg-min) at 2^27 and rung 5's float32
// sum at 2^28, with CUB's float32 InclusiveSum as the anchor; prints a hash of every result (fixed
// inputs: two trees whose groupings agree print the same hashes). Not part of the build: bash
// dev/sweep.sh dev/ab_scan.cu (AB_ROUNDS, default 3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_scan.cuh>
#include <parprim/parprim.hpp>
#include <random>
#include <vector>

#include "affine_maps.cuh"
#include "median_time.cuh"

namespace pp = parprim;

struct arg {
  float value;
  int index;
};
struct arg_min {
  static constexpr bool is_commutative = true;
  __host__ __device__ arg operator()(const arg& x, const arg& y) const {
    if (y.value < x.value || (y.value == x.value && y.index < x.index)) return y;
    return x;
  }
};

template <class T>
std::uint64_t hash(const pp::device_buffer<T>& b) {
  std::vector<unsigned char> h(b.size() * sizeof(T));
  cudaMemcpy(h.data(), b.data(), h.size(), cudaMemcpyDeviceToHost);
  std::uint64_t x = 1469598103934665603ull;
  for (unsigned char c : h) x = (x ^ c) * 1099511628211ull;
  return x;
}

int main() {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::size_t n28 = std::size_t(1) << 28, n27 = std::size_t(1) << 27;
  std::vector<float> hf(n28);
  for (auto& x : hf) x = static_cast<float>(u(rng));
  std::vector<double> hd(n27);
  for (auto& x : hd) x = u(rng);
  std::vector<std::uint8_t> hflags(n27);
  for (std::size_t i = 0; i < n27; ++i) hflags[i] = i % 1024 == 0;
  std::vector<affine> ha(n27);
  for (auto& x : ha) x = {1.0 + 1e-3 * u(rng), u(rng)};
  std::vector<arg> hg(n27);
  for (std::size_t i = 0; i < n27; ++i) hg[i] = {static_cast<float>(u(rng)), static_cast<int>(i)};

  const pp::device_buffer<float> f_in(hf);
  pp::device_buffer<float> f_out(n28);
  const pp::device_buffer<double> d_in(hd);
  pp::device_buffer<double> d_out(n27);
  const pp::device_buffer<std::uint8_t> flags(hflags);
  const pp::device_buffer<affine> a_in(ha);
  pp::device_buffer<affine> a_out(n27);
  const pp::device_buffer<arg> g_in(hg);
  pp::device_buffer<arg> g_out(n27);

  std::size_t tb = 0;
  cub::DeviceScan::InclusiveSum(nullptr, tb, f_in.data(), f_out.data(), (int)n28);
  void* tmp = nullptr;
  cudaMalloc(&tmp, tb);

  const auto f32 = [&] { pp::inclusive_scan(pp::cuda, f_in.span(), f_out.span(), pp::plus{}); };
  const auto f64 = [&] { pp::inclusive_scan(pp::cuda, d_in.span(), d_out.span(), pp::plus{}); };
  const auto seg = [&] {
    pp::segmented_inclusive_scan(pp::cuda, d_in.span(), flags.span(), d_out.span(), pp::plus{});
  };
  const auto aff = [&] { pp::inclusive_scan(pp::cuda, a_in.span(), a_out.span(), compose{}); };
  const auto am = [&] { pp::inclusive_scan(pp::cuda, g_in.span(), g_out.span(), arg_min{}); };
  const auto k5 = pp::cuda.scan_kernel(pp::cuda_scan::k5_decoupled_look_back);
  const auto f32_k5 = [&] { pp::inclusive_scan(k5, f_in.span(), f_out.span(), pp::plus{}); };
  // Each call once, then the hash of what it wrote (the bits to compare between the trees).
  const auto hashed = [](const char* name, auto call, const auto& out) {
    call();
    std::printf("%s %016llx  ", name, (unsigned long long)hash(out));
  };
  std::printf("hash ");
  hashed("f32", f32, f_out);
  hashed("f64", f64, d_out);
  hashed("seg", seg, d_out);
  hashed("affine", aff, a_out);
  hashed("argmin", am, g_out);
  hashed("f32 rung 5", f32_k5, f_out);
  std::printf("\n");

  const int rounds = std::getenv("AB_ROUNDS") ? std::atoi(std::getenv("AB_ROUNDS")) : 3;
  for (int r = 0; r < rounds; ++r) {
    const float cub = time_us(
        [&] { cub::DeviceScan::InclusiveSum(tmp, tb, f_in.data(), f_out.data(), (int)n28); }, 25);
    std::printf(
        "round %d: CUB f32 %.1f  f32 %.1f  f64 %.1f  seg f64 %.1f  affine %.1f  argmin %.1f  "
        "f32 rung 5 %.1f\n",
        r, cub, time_us(f32, 25), time_us(f64, 25), time_us(seg, 25), time_us(aff, 25),
        time_us(am, 25), time_us(f32_k5, 25));
    std::fflush(stdout);
  }
  cudaFree(tmp);
  return 0;
}
