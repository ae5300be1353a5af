#include <parprim/parprim.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
template <class T, class Op>
void run(const char* name, Op op, int dens_num, int dens_den, int th, bool keyed, bool with_init) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<T> in(n);
  std::vector<unsigned char> f(n);
  using K = std::conditional_t<sizeof(T) == 4, int, long long>;
  std::vector<K> keys(n);
  std::mt19937_64 g(dens_den * 7 + th);
  K key = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) in[i] = T(double(int64_t(g() % 2000001) - 1000000) / 1000.0);
    else in[i] = T(g());
    f[i] = int(g() % dens_den) < dens_num; key += f[i]; keys[i] = key;
  }
  if constexpr (std::is_floating_point_v<T>) { in[5] = -0.0; in[17] = std::numeric_limits<T>::quiet_NaN(); in[100] = -std::numeric_limits<T>::quiet_NaN(); in[1000] = 0.0; }
  std::size_t k = 1; for (std::size_t i = 1; i < n; ++i) k += f[i];
  std::vector<T> out(k), ref(k);
  std::vector<K> kout(k), kref(k);
  std::vector<double> ts;
  T init = T(3);
  auto call = [&](auto pol, std::vector<T>& o, std::vector<K>& ko) {
    if (keyed) parprim::reduce_by_key(pol, std::span<const K>(keys), std::span<const T>(in), std::span<K>(ko), std::span<T>(o), op);
    else if (with_init) parprim::segmented_reduce(pol, std::span<const T>(in), std::span<const unsigned char>(f), std::span<T>(o), init, op);
    else parprim::segmented_reduce(pol, std::span<const T>(in), std::span<const unsigned char>(f), std::span<T>(o), T(0), op);
  };
  call(parprim::seq, ref, kref);
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    call(parprim::omp.threads(th), out, kout);
    auto t1 = std::chrono::steady_clock::now();
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  bool ok = std::memcmp(out.data(), ref.data(), k * sizeof(T)) == 0 && (!keyed || kout == kref);
  std::sort(ts.begin(), ts.end());
  std::printf("%-12s %s %d/%d th%d: %.1f ms %s\n", name, keyed ? "rbk " : "flag", dens_num, dens_den, th, ts[3], ok ? "ok" : "MISMATCH");
}
int main(int argc, char** argv) {
  if (argc > 2) { for (auto [a, b] : {std::pair{1, 10}, {1, 3}}) { run<int>("int32 plus", parprim::plus{}, a, b, atoi(argv[1]), false, true); run<int>("int32 max", parprim::maximum{}, a, b, atoi(argv[1]), false, true); run<float>("f32 min", parprim::minimum{}, a, b, atoi(argv[1]), false, true); run<int>("int32 max", parprim::maximum{}, a, b, atoi(argv[1]), true, false);} return 0; }
  int th = atoi(argv[1]);
  for (auto [a, b] : {std::pair{1, 10}, {1, 3}, {1,40}, {3,4}, {1, 1}}) {
    run<int>("int32 max", parprim::maximum{}, a, b, th, false, true);
    run<unsigned>("u32 min", parprim::minimum{}, a, b, th, false, true);
    run<long long>("i64 max", parprim::maximum{}, a, b, th, false, false);
    run<unsigned long long>("u64 min", parprim::minimum{}, a, b, th, false, true);
    run<int>("int32 mul", parprim::multiplies{}, a, b, th, false, true);
    run<int>("int32 xor", parprim::bit_xor{}, a, b, th, false, true);
    run<float>("f32 min", parprim::minimum{}, a, b, th, false, true);
    run<float>("f32 max", parprim::maximum{}, a, b, th, false, false);
    run<double>("f64 max", parprim::maximum{}, a, b, th, false, true);
    run<int>("int32 max", parprim::maximum{}, a, b, th, true, false);
    run<double>("f64 min", parprim::minimum{}, a, b, th, true, false);
  }
}
