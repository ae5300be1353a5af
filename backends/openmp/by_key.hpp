#pragma once
/// \file
/// \brief OpenMP reduce_by_key (the driver of detail/segments.hpp, heads where the key changes)
/// and scans by key (the OpenMP segmented scans reading the runs of equal keys through a head
/// view, detail/heads.hpp: no flags are built, each key is read where its flag would be).

#include <cstddef>
#include <span>

#include <parprim/backends/openmp/detail/segments.hpp>
#include <parprim/backends/openmp/detail/segments_in_rounds.hpp>
#include <parprim/backends/openmp/segmented_scan.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/heads.hpp>
#include <parprim/policy.hpp>

namespace parprim::detail {

template <>
struct reduce_by_key_impl<omp_policy> {
  template <class Key>
  static openmp::detail::segment_plan plan(const omp_policy& policy, std::span<const Key> keys) {
    return openmp::detail::plan_segments(policy, key_heads<Key>(keys));
  }

  template <class Key, class Input, class KeyOut, class Out, class Op>
  static void reduce(const omp_policy&, const openmp::detail::segment_plan& plan,
                     std::span<const Key> keys, const Input& in, std::span<KeyOut> keys_out,
                     std::span<Out> out, Op op) {
    openmp::detail::reduce_segments<Out>(plan, in, key_heads<Key>(keys),
                                         static_cast<const Out*>(nullptr), op,
                                         openmp::detail::store_keyed_results<Key, KeyOut, Out>{
                                             keys.data(), keys_out.data(), out.data()});
  }

  /// \brief The front end calls this instead of plan and reduce when `keys_out` and `out` have
  /// room for n results: the keys are then read once (reduce_segments_reading_once).
  static constexpr bool counts_while_reducing = true;

  template <class Key, class Input, class KeyOut, class Out, class Op>
  static std::size_t reduce_counting(const omp_policy& policy, std::span<const Key> keys,
                                     const Input& in, std::span<KeyOut> keys_out,
                                     std::span<Out> out, Op op) {
    return openmp::detail::reduce_segments_reading_once<Out>(
        policy, in, key_heads<Key>(keys), static_cast<const Out*>(nullptr), op,
        openmp::detail::store_keyed_results<Key, KeyOut, Out>{keys.data(), keys_out.data(),
                                                              out.data()});
  }
};

template <>
struct scan_by_key_impl<omp_policy> {
  template <class Key, class Input, class Out, class Op>
  static void inclusive(const omp_policy& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, Op op) {
    segmented_scan_impl<omp_policy>::inclusive(policy, in, key_heads<Key>(keys), out, op);
  }

  template <class Key, class Input, class Out, class Op>
  static void exclusive(const omp_policy& policy, std::span<const Key> keys, const Input& in,
                        std::span<Out> out, accumulator_t<Op, Out> init, Op op) {
    segmented_scan_impl<omp_policy>::exclusive(policy, in, key_heads<Key>(keys), out, init, op);
  }
};

}  // namespace parprim::detail
