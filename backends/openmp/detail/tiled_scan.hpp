#pragma once
/// \file
/// \brief The scan driver shared by scan and segmented scan: a three-phase scan (block totals,
/// scan of the totals, block scan with carry-in) run over cache-sized rounds.
///
/// The input is cut into rounds of `p * tile` elements; in each round thread t owns block t.
/// Phase 1 folds the block (reading it from memory into the core's cache), one barrier, then
/// every thread combines the totals left of it in thread order (p is small) and phase 3
/// scans its block, now read from cache. Main memory is read once and written once, against
/// twice and twice for the plain two-pass scan. Totals are double-buffered by round parity,
/// so one barrier per round suffices: a thread writing round r+1's totals has passed round
/// r's barrier, which every thread reaches only after reading round r-1's totals.

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/first_exception.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/policy.hpp>

namespace parprim::openmp::detail {

/// \brief Bytes of input per thread per round: twice fits in a core's L2 on current servers.
#if defined(PARPRIM_OMP_SCAN_TILE_BYTES)
inline constexpr std::size_t scan_tile_bytes = PARPRIM_OMP_SCAN_TILE_BYTES;
#else
inline constexpr std::size_t scan_tile_bytes = 128 * 1024;
#endif

/// \brief Runs the three phases over `[0, n)` with `team` threads. The first exception thrown by
/// `total`, `combine` or `scan_block` on any thread is rethrown here after the region.
/// \param carry  the carry into element 0: null for inclusive scans, `&init` for exclusive
/// \param total  `Carry total(begin, end)` for a non-empty block
/// \param combine  `Carry combine(Carry left, Carry right)`, associative
/// \param scan_block  `void scan_block(begin, end, const Carry* carry_in)`, null for no carry
template <class Carry, class Total, class Combine, class ScanBlock>
void tiled_scan(std::size_t n, int team, std::size_t tile, const Carry* carry, Total total,
                Combine combine, ScanBlock scan_block) {
  if (team <= 1) {
    if (n > 0) scan_block(std::size_t{0}, n, carry);
    return;
  }
  const auto slots = static_cast<std::size_t>(team);
  std::vector<cache_padded<std::optional<Carry>>> totals(2 * slots);
  first_exception error;
#pragma omp parallel num_threads(team)
  {
    const int p = omp_get_num_threads();
    const int t = omp_get_thread_num();
    const std::size_t round_len = tile * static_cast<std::size_t>(p);
    std::optional<Carry> running;
    if (carry) running.emplace(*carry);
    for (std::size_t base = 0, r = 0; base < n; base += round_len, ++r) {
      const std::size_t len = std::min(round_len, n - base);
      const block blk = block_of(len, p, t);
      const std::size_t b = base + blk.begin, e = base + blk.end;
      cache_padded<std::optional<Carry>>* round_totals = totals.data() + (r % 2) * slots;
      round_totals[t].value.reset();
      if (b < e) error.run([&] { round_totals[t].value.emplace(total(b, e)); });
#pragma omp barrier
      // After a failure every thread still passes each round's barrier, doing no work.
      error.run([&] {
        std::optional<Carry> mine;
        for (int k = 0; k < p; ++k) {
          if (k == t) mine = running;
          const auto& v = round_totals[k].value;
          if (v) running = running ? combine(*running, *v) : *v;
        }
        if (b < e) scan_block(b, e, mine ? &*mine : nullptr);
      });
    }
  }
  error.rethrow_if_failed();
}

/// \brief Threads for a scan of `n` elements: as every primitive (team_size). Two threads pay
/// on cached data too: the fold pass is vectorized, so the parallel scan's 2n operator
/// applications cost less than twice the sequential scan's n (docs/openmp.md).
inline int scan_team_size(const omp_policy& policy, std::size_t n, std::size_t /*in_size*/) {
  return team_size(policy, n);
}

/// \brief Elements per thread per round for input elements of `in_size` bytes.
inline std::size_t scan_tile(std::size_t grain, std::size_t in_size) {
  return std::max(grain, scan_tile_bytes / in_size);
}

}  // namespace parprim::openmp::detail
