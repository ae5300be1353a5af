#pragma once
/// \file
/// \brief OpenMP reduce: each thread folds one contiguous block into its own cache line; the
/// partials are combined in thread order on the calling thread. T_P = n/p + p.

#include <omp.h>

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <parprim/backends/openmp/detail/cache_padded.hpp>
#include <parprim/backends/openmp/detail/first_exception.hpp>
#include <parprim/backends/openmp/detail/fold.hpp>
#include <parprim/backends/openmp/detail/team.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct reduce_impl<omp_policy> {
  /// \param in  a `std::span` or a transform view (detail/transform_view.hpp)
  template <class Input, class T, class Op>
  static T apply(const omp_policy& policy, const Input& in, T init, Op op) {
    namespace od = openmp::detail;
    const std::size_t n = in.size();
    const int team = od::team_size(policy, n);
    if (team <= 1) return od::fold(std::move(init), in, 0, n, op);

    std::vector<od::cache_padded<std::optional<T>>> partial(static_cast<std::size_t>(team));
    od::first_exception error;
#pragma omp parallel num_threads(team)
    {
      const auto [b, e] = od::block_of(n, omp_get_num_threads(), omp_get_thread_num());
      if (b < e)
        error.run([&, b = b, e = e] {
          partial[omp_get_thread_num()].value.emplace(od::fold_nonempty<T>(in, b, e, op));
        });
    }
    error.rethrow_if_failed();
    for (const auto& p : partial)
      if (p.value) init = static_cast<T>(op(std::move(init), *p.value));
    return init;
  }
};

}  // namespace parprim::detail
