#pragma once
/// \file
/// \brief OpenMP inclusive and exclusive scan on the cache-tiled three-phase driver.

#include <cstddef>
#include <optional>
#include <span>

#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/backends/openmp/detail/tiled_scan.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct scan_impl<omp_policy> {
  template <class In, class Out, class Op>
  static void inclusive(const omp_policy& policy, std::span<const In> in, std::span<Out> out,
                        Op op) {
    const auto scan_block = [&](std::size_t b, std::size_t e, const std::optional<Out>& carry) {
      Out acc = carry ? *carry : static_cast<Out>(in[b]);
      std::size_t i = b;
      if (!carry) out[i++] = acc;
      for (; i < e; ++i) {
        acc = static_cast<Out>(op(acc, in[i]));
        out[i] = acc;
      }
    };
    run(policy, in, std::optional<Out>{}, op, scan_block);
  }

  template <class In, class Out, class Op>
  static void exclusive(const omp_policy& policy, std::span<const In> in, std::span<Out> out,
                        Out init, Op op) {
    const auto scan_block = [&](std::size_t b, std::size_t e, const std::optional<Out>& carry) {
      Out acc = *carry;  // always set: the running carry starts at init
      for (std::size_t i = b; i < e; ++i) {
        const In x = in[i];  // read before writing: out may be in
        out[i] = acc;
        acc = static_cast<Out>(op(acc, x));
      }
    };
    run(policy, in, std::optional<Out>{init}, op, scan_block);
  }

 private:
  template <class In, class Out, class Op, class ScanBlock>
  static void run(const omp_policy& policy, std::span<const In> in, const std::optional<Out>& carry,
                  Op op, ScanBlock scan_block) {
    namespace od = openmp::detail;
    const std::size_t n = in.size();
    const int team = od::splittable_v<Op, In, Out> ? od::team_size(policy, n) : 1;
    const auto total = [&](std::size_t b, std::size_t e) {
      return od::fold_nonempty<Out>(in.data() + b, e - b, op);
    };
    const auto combine = [&](const Out& a, const Out& b) { return static_cast<Out>(op(a, b)); };
    od::tiled_scan<Out>(n, team, od::scan_tile(policy.grain_size(), sizeof(In)), carry, total,
                        combine, scan_block);
  }
};

}  // namespace parprim::detail
