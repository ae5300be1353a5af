/// \file
/// \brief dev: where each thread's time goes in the OpenMP exact_plus scan's rounds. The rounds
/// of backends/openmp/detail/tiled_scan.hpp (no barrier: each thread waits only for the totals
/// its carry needs), with even blocks (the library sizes them by the threads' speeds), written
/// out with the same block steps (the exact fold recording its chunk surveys, the waits, the
/// carries, the exact block scan reading them and the next round ahead), each phase timed on
/// each thread; prints, over the threads, the mean and largest time in the folds, in the waits
/// and in the scans, the round loop's time, and parprim's own call beside it (medians of the
/// iterations, ms). n floats (or doubles) uniform in [-1, 1), 2 MiB-aligned (huge pages where
/// the kernel gives them). Each block is folded `ahead` rounds before its scan (0: just before;
/// the library's exact scans: scan_fold_ahead, scan_rounds::fold_ahead).
///
///   g++ -std=c++20 -O3 -DNDEBUG -fopenmp -DPARPRIM_HAS_OPENMP=1 -Iinclude -I<build>/include
///     dev/exact_scan_rounds.cpp -o /tmp/rounds
///   /tmp/rounds [log2 n] [threads] [iterations] [float|double] [ahead]
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/parprim.hpp>

#include "host_timing.hpp"

namespace pp = parprim;
namespace od = parprim::openmp::detail;

namespace {
template <class F>
F* huge_array(std::size_t n) {
  const std::size_t bytes = (n * sizeof(F) + (2u << 20) - 1) / (2u << 20) * (2u << 20);
  void* p = std::aligned_alloc(2u << 20, bytes);
  madvise(p, bytes, MADV_HUGEPAGE);
  return static_cast<F*>(p);
}

template <class F>
void run(int log2n, int team, int iterations, std::size_t ahead) {
  const std::size_t n = std::size_t{1} << log2n;
  F* in = huge_array<F>(n);
  F* out = huge_array<F>(n);
#pragma omp parallel for num_threads(team)
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = dev::uniform_input(i);
    out[i] = 0;
  }
  const std::span<const F> x(in, n);
  using op_t = pp::detail::exact_sum<F>;
  using acc_t = typename op_t::accumulator_type;
  const op_t op{};
  const std::size_t tile = od::scan_tile(1, sizeof(F), team, true);
  const std::size_t round_len = tile * static_cast<std::size_t>(team);
  const bool stream = od::use_streaming(team, n * sizeof(F));
  const std::size_t kept = 4 + 2 * ahead;  // as tiled_scan's ring (K >= 4 + 2d)
  const std::size_t rounds = (n + round_len - 1) / round_len;
  std::vector<double> fold_mean, fold_max, wait_mean, wait_max, scan_mean, scan_max, loop, call;
  for (int it = 0; it < iterations + 1; ++it) {
    std::vector<od::cache_padded<std::optional<acc_t>>> totals(kept * team);
    od::round_progress progress(static_cast<std::size_t>(team));
    std::vector<double> fold_t(team), wait_t(team), scan_t(team);
    const double start = omp_get_wtime();
#pragma omp parallel num_threads(team)
    {
      const int t = omp_get_thread_num();
      // rounds r .. r + ahead, by round modulo ahead + 1
      std::vector<typename op_t::block_memo> memos(ahead + 1);
      std::vector<od::block> blocks(ahead + 1);
      std::optional<acc_t> running;
      double f = 0, w = 0, s = 0;
      const auto total_of = [&](std::size_t r, int k) -> std::optional<acc_t>& {
        return totals[(r % kept) * team + k].value;
      };
      const auto add = [&](std::optional<acc_t>& to, const std::optional<acc_t>& v) {
        if (v) to = to ? op(*to, *v) : *v;
      };
      const auto fold = [&](std::size_t r) {
        const std::size_t base = r * round_len, len = std::min(round_len, n - base);
        const od::block blk = od::block_of(len, team, t);
        const std::size_t b = base + blk.begin, e = base + blk.end;
        blocks[r % (ahead + 1)] = {b, e};
        auto& mine = total_of(r, t);
        mine.reset();
        if (b < e) mine.emplace(op.fold(acc_t{}, x, b, e - b, &memos[r % (ahead + 1)]));
        progress.publish(t, r + 1);
      };
      for (std::size_t r = 0; r < rounds; ++r) {
        const double t0 = omp_get_wtime();
        for (std::size_t q = r == 0 ? 0 : r + ahead; q <= r + ahead && q < rounds; ++q) fold(q);
        const double t1 = omp_get_wtime();
        if (r >= 1)
          for (int k = t + 1; k < team; ++k) {
            progress.wait(k, r);
            add(running, total_of(r - 1, k));
          }
        std::optional<acc_t> carry = running;
        for (int k = 0; k < t; ++k) {
          progress.wait(k, r + 1);
          add(carry, total_of(r, k));
        }
        const double t2 = omp_get_wtime();
        const auto [b, e] = blocks[r % (ahead + 1)];
        if (b < e)
          op.scan_block(x, b, e, carry ? &*carry : nullptr, nullptr, pp::detail::no_flags, false,
                        od::read_ahead_store<F>{{out, stream}, (1 + ahead) * round_len},
                        &memos[r % (ahead + 1)]);
        add(carry, total_of(r, t));
        running = std::move(carry);
        const double t3 = omp_get_wtime();
        f += t1 - t0;
        w += t2 - t1;
        s += t3 - t2;
      }
      fold_t[t] = f;
      wait_t[t] = w;
      scan_t[t] = s;
    }
    const double loop_s = omp_get_wtime() - start;
    const F last = out[n - 1];
    const double c0 = omp_get_wtime();
    pp::inclusive_scan(pp::omp.threads(team), x, std::span<F>(out, n), pp::exact_plus{});
    const double call_s = omp_get_wtime() - c0;
    if (out[n - 1] != last) std::printf("the rounds and parprim's call differ!\n");
    if (it == 0) continue;
    const auto mean = [](const std::vector<double>& v) {
      double a = 0;
      for (double d : v) a += d;
      return a / static_cast<double>(v.size());
    };
    fold_mean.push_back(mean(fold_t) * 1e3);
    fold_max.push_back(*std::max_element(fold_t.begin(), fold_t.end()) * 1e3);
    wait_mean.push_back(mean(wait_t) * 1e3);
    wait_max.push_back(*std::max_element(wait_t.begin(), wait_t.end()) * 1e3);
    scan_mean.push_back(mean(scan_t) * 1e3);
    scan_max.push_back(*std::max_element(scan_t.begin(), scan_t.end()) * 1e3);
    loop.push_back(loop_s * 1e3);
    call.push_back(call_s * 1e3);
  }
  std::printf("n = 2^%d %s, %d threads, %zu rounds%s, medians of %d (ms):\n", log2n,
              sizeof(F) == 4 ? "floats" : "doubles", team, rounds,
              ahead > 0 ? (", each block folded " + std::to_string(ahead) +
                           (ahead == 1 ? " round" : " rounds") + " ahead")
                              .c_str()
                        : "",
              iterations);
  std::printf("  folds   mean %7.2f  max %7.2f\n", dev::median(fold_mean), dev::median(fold_max));
  std::printf("  waits   mean %7.2f  max %7.2f\n", dev::median(wait_mean), dev::median(wait_max));
  std::printf("  scans   mean %7.2f  max %7.2f\n", dev::median(scan_mean), dev::median(scan_max));
  std::printf("  rounds  %7.2f   parprim's call %7.2f\n", dev::median(loop), dev::median(call));
  std::free(in);
  std::free(out);
}
}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  const int team = argc > 2 ? std::atoi(argv[2]) : 16;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 7;
  const std::size_t ahead = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 0;
  if (argc > 4 && std::string(argv[4]) == "double")
    run<double>(log2n, team, iterations, ahead);
  else
    run<float>(log2n, team, iterations, ahead);
}
