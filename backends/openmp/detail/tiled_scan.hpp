#pragma once
/// \file
/// \brief The scan driver shared by scan and segmented scan: a three-phase scan (block totals,
/// scan of the totals, block scan with carry-in) run over cache-sized rounds.
///
/// The input is cut into rounds of `p * tile` elements; in each round thread t owns block t.
/// Phase 1 folds the block (reading it from memory into the core's cache) and publishes its
/// total; thread t then waits only for the totals it needs (threads 0 .. t-1 of this round, the
/// rest of the round before), combines them in thread order (p is small), and phase 3 scans its
/// block, now read from cache. Main memory is read once and written once, against twice and
/// twice for the plain two-pass scan. No barrier separates the rounds, so while one thread scans
/// (arithmetic on cached data) another already folds its next block (reads from memory). The
/// driver can also fold each block rounds before it scans it (scan_rounds::fold_ahead).

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/first_exception.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/backends/openmp/detail/write_sequence.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/error.hpp>
#include <parprim/policy.hpp>

namespace parprim::openmp::detail {

/// \brief Bytes of input per round, all threads together, and at least per thread (twice that
/// fits in a core's L2 on current servers). Each round synchronises the threads (tuned when a
/// barrier ended it): with fewer threads each thread's share of the memory bandwidth is larger,
/// its block goes by faster, and the synchronisation would cost more of the round, so a round
/// keeps its bytes as the team shrinks. Tuned on the
/// 16-core host at 16 threads (128 KiB a thread: 2^28 int32 25.7-27.4 ms, 512 KiB 30.6, 2 MiB
/// 32.0; docs/openmp.md) and on the 2-core development machine at 2 threads, 2^24 and 2^26,
/// where 1 MiB a thread was the fastest of 128 KiB - 1 MiB for int32, float32 and float64
/// (docs/results/dev-2core/README.md).
#if defined(PARPRIM_OMP_SCAN_ROUND_BYTES)
inline constexpr std::size_t scan_round_bytes = PARPRIM_OMP_SCAN_ROUND_BYTES;
#else
inline constexpr std::size_t scan_round_bytes = std::size_t{2} << 20;
#endif
#if defined(PARPRIM_OMP_SCAN_TILE_BYTES)
inline constexpr std::size_t scan_tile_bytes = PARPRIM_OMP_SCAN_TILE_BYTES;
#else
inline constexpr std::size_t scan_tile_bytes = 128 * 1024;
#endif

/// \brief Rounds by which an accumulating operator's scans fold each block before scanning it
/// (scan_rounds::fold_ahead); a thread keeps this many blocks more in its cache. None: a round
/// ahead shortened no wait on the 16-core host at 16 threads and lengthened them at 4
/// (docs/openmp.md); the knob stays for A/B runs.
#if defined(PARPRIM_OMP_SCAN_FOLD_AHEAD)
inline constexpr std::size_t scan_fold_ahead = PARPRIM_OMP_SCAN_FOLD_AHEAD;
#else
inline constexpr std::size_t scan_fold_ahead = 0;
#endif

/// \brief The parts of a round the threads take when their blocks follow their speeds
/// (tiled_scan's `balanced`). Every thread keeps its own copy and updates it from the same
/// published speeds in the same order, so all copies agree and the blocks tile each round.
class speed_shares {
 public:
  explicit speed_shares(int p) : share_(static_cast<std::size_t>(p), 1.0 / p) { accumulate(); }

  /// \brief Block `t` of a round of `len` elements.
  block of(std::size_t len, int t) const { return {cut(len, t), cut(len, t + 1)}; }

  /// \brief Thread speed of a block of `length` elements scanned in `seconds`: elements a
  /// second, 0 where the block was empty or took no measurable time (update then skips the round).
  static double speed_of(std::size_t length, double seconds) {
    return length > 0 && seconds > 0 ? static_cast<double>(length) / seconds : 0.0;
  }

  /// \brief After a round in which thread k scanned at `speed(k)` (speed_of): each share moves
  /// halfway toward the thread's part of the team's speed, kept within a quarter and four times
  /// an even share (then all scaled to sum to one). Unchanged where a speed is 0.
  template <class Speed>
  void update(Speed speed) {
    const std::size_t p = share_.size();
    double total = 0;
    for (std::size_t k = 0; k < p; ++k) {
      if (!(speed(k) > 0)) return;
      total += speed(k);
    }
    const double even = 1.0 / static_cast<double>(p);
    double sum = 0;
    for (std::size_t k = 0; k < p; ++k) {
      const double next = 0.5 * share_[k] + 0.5 * speed(k) / total;
      share_[k] = std::clamp(next, 0.25 * even, 4.0 * even);
      sum += share_[k];
    }
    for (double& v : share_) v /= sum;
    accumulate();
  }

 private:
  std::vector<double> share_;
  std::vector<double> before_;  ///< before_[t]: the shares of threads 0 .. t-1

  void accumulate() {
    before_.assign(share_.size() + 1, 0.0);
    for (std::size_t k = 0; k < share_.size(); ++k) before_[k + 1] = before_[k] + share_[k];
  }
  std::size_t cut(std::size_t len, int t) const {
    if (static_cast<std::size_t>(t) >= share_.size()) return len;
    const auto at =
        static_cast<std::size_t>(before_[static_cast<std::size_t>(t)] * static_cast<double>(len));
    return at < len ? at : len;
  }
};

/// \brief How far the threads of a tiled_scan have got: thread k's word counts the rounds whose
/// totals it has published. A wait spins a while (the awaited fold usually ends within
/// microseconds), then sleeps on a generation counter that every publication moves (C++20
/// atomic wait: a futex on Linux), so a thread whose core is taken by other work does not keep
/// the one it waits for from running. stop() releases every wait (a thread failed).
class round_progress {
 public:
  explicit round_progress(std::size_t p) : done_(p) {}

  /// \brief Thread t has published the totals of its first `rounds` rounds (release: the totals
  /// written before are visible to a thread whose wait returns).
  void publish(int t, std::size_t rounds) {
    done_[static_cast<std::size_t>(t)].value.store(static_cast<std::uint32_t>(rounds),
                                                   std::memory_order_release);
    wake();
  }
  /// \brief Until thread k has published `rounds` rounds; false once stop() was called. (The
  /// words count modulo 2^32: a waiter is never more than two rounds ahead of the word it reads.)
  bool wait(int k, std::size_t rounds) const {
    const auto& word = done_[static_cast<std::size_t>(k)].value;
    const auto want = static_cast<std::uint32_t>(rounds);
    for (int spin = 0;; ++spin) {
      const std::uint32_t generation = generation_.value.load(std::memory_order_acquire);
      if (static_cast<std::int32_t>(word.load(std::memory_order_acquire) - want) >= 0) return true;
      if (stopped_.load(std::memory_order_acquire)) return false;
      if (spin < spins) {
        relax();
      } else {
        generation_.value.wait(generation, std::memory_order_acquire);
      }
    }
  }
  void stop() {
    stopped_.store(true, std::memory_order_release);
    wake();
  }

 private:
  static constexpr int spins = 2000;
  std::vector<cache_padded<std::atomic<std::uint32_t>>> done_;
  cache_padded<std::atomic<std::uint32_t>> generation_{};
  std::atomic<bool> stopped_{false};

  void wake() {
    generation_.value.fetch_add(1, std::memory_order_acq_rel);
    generation_.value.notify_all();
  }
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
};

/// \brief How tiled_scan runs its rounds.
struct scan_rounds {
  /// Size each thread's block by its scans' speed in the rounds before (speed_shares; the
  /// speeds of rounds every thread has seen published when it starts a round) instead of
  /// evenly: only where the results do not depend on the blocks (an exact operator), since the
  /// blocks then change from call to call. Threads that stay slower than the rest (the 16-core
  /// host: the slowest thread's scans 41 ms in a call where the mean was 33) take less, so the
  /// others wait less for their totals.
  bool balanced = false;
  /// Fold round r + fold_ahead before scanning round r (at most max_fold_ahead): a total is then
  /// published that many rounds before the carries that need it, so a thread that runs late
  /// (the scan phase's arithmetic, the host's other work) holds the others back only when it
  /// is more rounds late. Each thread then keeps that many blocks more in its cache, so only
  /// for blocks small against the cache (an accumulating operator's: scan_tile).
  std::size_t fold_ahead = 0;
  static constexpr std::size_t max_fold_ahead = 6;
};

/// \brief Runs the three phases over `[0, n)` with `team` threads. The first exception thrown by
/// `total`, `combine` or `scan_block` on any thread is rethrown here after the region.
/// \param carry  the carry into element 0: null for inclusive scans, `&init` for exclusive
/// \param total  `Carry total(begin, end)` for a non-empty block
/// \param combine  `Carry combine(Carry left, Carry right)`, associative
/// \param scan_block  `void scan_block(begin, end, const Carry* carry_in)`, null for no carry
/// \param how  even or speed-sized blocks, each folded just before its scan or rounds before
///
/// Thread t folds its block of round r into the total of slot r % rounds_kept and publishes it
/// (just before scanning round r - d, d = fold_ahead). For round r's scan it adds the totals of
/// round r - 1 from threads t+1 .. p-1 to its running value (waiting for each); then its carry
/// is that value and the totals of round r from threads 0 .. t-1 (waiting for each). Every carry
/// combines the same totals in the same order as a barrier per round would, so the results are
/// those of the same blocks with barriers. Thread t folds round r after scanning round r - 1 - d,
/// whose carry waited for every thread's total of round r - 2 - d, published by each thread after
/// it scanned round r - 3 - 2d: that round's scan speeds are seen then (speed_shares). A slot is
/// written again K = rounds_kept rounds later, after every thread has read it: thread t folds round
/// r + K after scanning round r + K - 1 - d, which waited for every total of round r + K - 2 - d,
/// and each thread folds that round only after it has read the totals of round r (in its scan of
/// round r + 1, at most round r + K - 3 - 2d): K >= 4 + 2d. A thread reads the speeds of round r
/// in its fold of round r + 3 + 2d, before it publishes that round, so before any thread scans
/// round r + K.
template <class Carry, class Total, class Combine, class ScanBlock>
void tiled_scan(std::size_t n, int team, std::size_t tile, const Carry* carry, Total total,
                Combine combine, ScanBlock scan_block, scan_rounds how = {}) {
  if (team <= 1) {
    if (n > 0) scan_block(std::size_t{0}, n, carry);
    return;
  }
  constexpr std::size_t rounds_kept = 4 + 2 * scan_rounds::max_fold_ahead;
  if (how.fold_ahead > scan_rounds::max_fold_ahead)
    throw parprim::invalid_argument("tiled_scan: fold_ahead above scan_rounds::max_fold_ahead");
  const auto slots = static_cast<std::size_t>(team);
  std::vector<cache_padded<std::optional<Carry>>> totals(rounds_kept * slots);
  // each thread's scan speed a round (speed_shares::speed_of), written by that thread
  std::vector<cache_padded<double>> speeds(how.balanced ? rounds_kept * slots : 0);
  round_progress progress(slots);
  first_exception error;
#pragma omp parallel num_threads(team)
  {
    const int p = omp_get_num_threads();
    const int t = omp_get_thread_num();
    const std::size_t round_len = tile * static_cast<std::size_t>(p);
    const std::size_t rounds = (n + round_len - 1) / round_len;
    const std::size_t ahead = how.fold_ahead;
    const std::size_t seen_back = 3 + 2 * ahead;  // the scan speeds every thread has seen
    // the slot of round r, thread k, in the rings of totals and speeds
    const auto slot = [&](std::size_t r, int k) {
      return (r % rounds_kept) * slots + static_cast<std::size_t>(k);
    };
    const auto add = [&](std::optional<Carry>& to, const std::optional<Carry>& v) {
      if (v) to = to ? combine(*to, *v) : *v;
    };
    std::optional<Carry> running;  // the rounds before, and this round's blocks up to t
    if (carry) running.emplace(*carry);
    speed_shares shares(how.balanced ? p : 1);
    block blocks[scan_rounds::max_fold_ahead + 1];  // this thread's of rounds r .. r + d, [b, e)
    // round r's block: fold it, publish its total; false after a failure
    const auto fold = [&](std::size_t r) {
      const std::size_t base = r * round_len, len = std::min(round_len, n - base);
      if (how.balanced && r >= seen_back) {
        const std::size_t before = slot(r - seen_back, 0);
        shares.update([&](std::size_t k) { return speeds[before + k].value; });
      }
      const block blk = how.balanced ? shares.of(len, t) : block_of(len, p, t);
      const std::size_t b = base + blk.begin, e = base + blk.end;
      blocks[r % (ahead + 1)] = {b, e};
      auto& mine = totals[slot(r, t)].value;
      mine.reset();
      if (b < e) error.run([&] { mine.emplace(total(b, e)); });
      if (error.failed()) return false;
      progress.publish(t, r + 1);
      return true;
    };
    for (std::size_t r = 0; r < rounds; ++r) {
      bool folded = true;  // rounds 0 .. d - 1 first, then round r + d
      for (std::size_t q = r == 0 ? 0 : r + ahead; q <= r + ahead && q < rounds && folded; ++q)
        folded = fold(q);
      if (!folded) break;
      // (a wait returns false only after a failure: then error.failed() holds too)
      if (r >= 1)
        for (int k = t + 1; k < p && !error.failed() && progress.wait(k, r); ++k)
          error.run([&] { add(running, totals[slot(r - 1, k)].value); });
      std::optional<Carry> in = running;
      for (int k = 0; k < t && !error.failed() && progress.wait(k, r + 1); ++k)
        error.run([&] { add(in, totals[slot(r, k)].value); });
      if (error.failed()) break;
      const auto [b, e] = blocks[r % (ahead + 1)];
      const double start = how.balanced ? omp_get_wtime() : 0.0;
      error.run([&] {
        if (b < e) scan_block(b, e, in ? &*in : nullptr);
        add(in, totals[slot(r, t)].value);
        running = std::move(in);
      });
      if (error.failed()) break;
      if (how.balanced)
        speeds[slot(r, t)].value = speed_shares::speed_of(e - b, omp_get_wtime() - start);
    }
    if (error.failed()) progress.stop();
  }
  error.rethrow_if_failed();
}

/// \brief Block memos for an operator that has them (detail/accumulating.hpp), d + 1 a thread
/// for scans that fold d rounds ahead (scan_rounds::fold_ahead): the fold of a thread's block in
/// a round fills one, the scan of that block reads it, the others wait for their rounds' scans.
/// A block's memo is its round's (its first element over the round's length) modulo d + 1.
/// Nothing for other operators (`of(b)` is null).
template <class Op>
struct thread_memos {
  using memo = void;
  thread_memos(int /*team*/, std::size_t /*round*/, std::size_t /*fold_ahead*/) {}
  static memo* of(std::size_t /*b*/) { return nullptr; }
};
template <parprim::detail::memo_operator Op>
struct thread_memos<Op> {
  using memo = typename std::remove_cvref_t<Op>::block_memo;
  std::vector<cache_padded<memo>> memos;
  std::size_t round = 0;  ///< elements of a round (0: one thread, no memos)
  std::size_t kept = 1;   ///< memos a thread: fold_ahead + 1
  thread_memos(int team, std::size_t round_len, std::size_t fold_ahead)
      : memos(team > 1 && round_len > 0 ? (fold_ahead + 1) * static_cast<std::size_t>(team) : 0),
        round(round_len),
        kept(fold_ahead + 1) {}
  /// \brief This thread's memo for its block that starts at element `b`.
  memo* of(std::size_t b) {
    if (memos.empty()) return nullptr;
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    return &memos[kept * t + (b / round) % kept].value;
  }
};

/// \brief Threads for a scan of `n` elements: as every primitive (team_size). Two threads pay
/// on cached data too: the fold pass is vectorized, so the parallel scan's 2n operator
/// applications cost less than twice the sequential scan's n (docs/openmp.md).
inline int scan_team_size(const omp_policy& policy, std::size_t n, std::size_t /*in_size*/) {
  return team_size(policy, n);
}

/// \brief Elements per thread per round for input elements of `in_size` bytes and `team`
/// threads: the round's bytes shared by the team, at least scan_tile_bytes and `grain` elements.
/// An accumulating operator (the exact sums: tens of operations an element) keeps
/// scan_tile_bytes: its rounds are long against their waits anyway, and a larger block no longer
/// stays in L2 between the phases (2-core development machine, 2 threads, 2^24 float64 exact
/// scans: 14.7 ms at 128 KiB a thread, 16.3 at 1 MiB).
inline std::size_t scan_tile(std::size_t grain, std::size_t in_size, int team,
                             bool accumulating = false) {
  const std::size_t share = scan_round_bytes / static_cast<std::size_t>(team > 1 ? team : 1);
  const std::size_t bytes = accumulating ? scan_tile_bytes : std::max(scan_tile_bytes, share);
  return std::max(grain, bytes / in_size);
}

/// \brief scan_tile for a scan of `Input` with `Op` by `team` threads of `policy`.
template <class Input, class Op>
std::size_t scan_tile_elements(const omp_policy& policy, int team) {
  return scan_tile(policy.grain_size(), sizeof(typename Input::value_type), team,
                   parprim::detail::accumulating_operator<Op>);
}

/// \brief Asks the cache for the element a round ahead of element k (the same thread's block in
/// the next round) while a round's scan phase runs: where the running
/// value is a chain of floating-point additions the scan phase is bound by that chain, and the
/// next round's fold then reads from cache instead of waiting on memory after it. Only for
/// floating-point results of contiguous inputs: integer scans keep pace with memory, and lost
/// 3-5 % with it. 2-core development machine, 2 threads, 2^24: float32 5.60-5.73 -> 4.81-4.83
/// ms (the two-pass scan 5.17-5.26), float64 within the noise, int32 3.70-3.80 -> 3.97-4.02
/// (docs/results/dev-2core/README.md).
template <class Out, class Input>
struct next_round_prefetch {
  static constexpr bool active = std::is_floating_point_v<Out> && requires(const Input& in) {
    in.data();
  };
  const void* data = nullptr;
  std::size_t ahead = 0;  // elements: a round
  std::size_t n = 0;

  next_round_prefetch(const Input& in, std::size_t round) : ahead(round), n(in.size()) {
    if constexpr (active) data = in.data();
  }
  /// (Every element, the index clamped: GCC 12 dropped a prefetch under a branch, such as one
  /// per 64-byte line; the floating-point chain leaves the issue slots free.)
  void operator()(std::size_t k) const {
    if constexpr (active) {
      if (ahead == 0) return;  // one thread: no rounds (a test the compiler hoists out of loops)
      using In = typename Input::value_type;
      const std::size_t at = k + ahead < n ? k + ahead : n - 1;
      __builtin_prefetch(static_cast<const In*>(data) + at);
    }
  }
};

/// \brief sequence_store for an accumulating operator's block step that also says how far
/// ahead its input will be read (detail/accumulating.hpp): a round, the same thread's block in
/// the next round, whose fold then reads from cache while the block step's arithmetic hides the
/// memory's latency (16-core host, 2^28 float32 exact_plus scans at 16 threads: 46.9 -> 43.4 ms,
/// docs/results/h200/cpu-16core/exact-scan-memo/).
template <class Out>
struct read_ahead_store : sequence_store<Out> {
  std::size_t ahead = 0;  ///< elements; 0: none (one thread)
  std::size_t read_ahead() const { return ahead; }
};

}  // namespace parprim::openmp::detail
