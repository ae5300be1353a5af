#pragma once
/// \file
/// \brief parprim::reduce_by_key, parprim::inclusive_scan_by_key and
/// parprim::exclusive_scan_by_key: segments are the maximal runs of equal keys (compared with
/// `==`, as Thrust's), with no head flags to build. Keys equal but not adjacent are different
/// runs; a key that is not equal to itself (a NaN) is a run of its own.
///
/// The accumulator type `T` is the output's value type: elements (and `init`) are converted to
/// it before they meet the operator, which is applied in sequence order within each run.

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <parprim/check_operators.hpp>
#include <parprim/detail/concepts.hpp>
#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/operators.hpp>
#include <parprim/scan.hpp>

namespace parprim {

namespace detail {

/// \brief Readable compile errors for keys.
template <class Key>
constexpr void require_keys() {
  static_assert(
      requires(const Key& a, const Key& b) {
        { a == b } -> std::convertible_to<bool>;
      },
      "parprim: keys are compared with ==, which this key type lacks");
}

/// \brief The checks of reduce_by_key that need no pass over the data.
template <class Op, class KeySpan, class InputSpan, class KeyOutputSpan, class OutputSpan>
void check_reduce_by_key_args(const KeySpan& keys, const InputSpan& in,
                              const KeyOutputSpan& keys_out, const OutputSpan& out, const char* fn,
                              const Op& op) {
  using key_t = typename KeySpan::value_type;
  using acc_t = typename OutputSpan::value_type;
  require_keys<key_t>();
  static_assert(std::is_assignable_v<typename KeyOutputSpan::value_type&, const key_t&>,
                "parprim::reduce_by_key: keys_out's elements must be assignable from the keys");
  require_operator<typename InputSpan::value_type, acc_t, Op>();
  check_data(keys, fn, "keys");
  check_data(in, fn, "in");
  check_data(keys_out, fn, "keys_out");
  check_data(out, fn, "out");
  check_same_size(keys, in, fn, "keys", "in");
  check_disjoint(in, out, fn, "in", "out");
  check_disjoint(keys, out, fn, "keys", "out");
  check_disjoint(in, keys_out, fn, "in", "keys_out");
  check_disjoint(keys, keys_out, fn, "keys", "keys_out");
  check_disjoint(keys_out, out, fn, "keys_out", "out");
  maybe_check_operator<acc_t>(fn, op, in, static_cast<const acc_t*>(nullptr));
}

/// \brief The checks of the scans by key: those of the scans (in place allowed) and the keys'.
template <class Op, class KeySpan, class InputSpan, class OutputSpan>
void check_scan_by_key_args(const KeySpan& keys, const InputSpan& in, const OutputSpan& out,
                            const char* fn, const Op& op,
                            const typename OutputSpan::value_type* init = nullptr) {
  require_keys<typename KeySpan::value_type>();
  check_scan_args(in, out, fn, op, init);
  check_data(keys, fn, "keys");
  check_same_size(in, keys, fn, "in", "keys");
  check_disjoint(keys, out, fn, "keys", "out");
}

}  // namespace detail

/// \brief One result per run of equal keys: `keys_out[s]` is the run's first key and `out[s]`
/// the fold of its elements, `x_first op ... op x_last` in order (as `thrust::reduce_by_key`).
///
/// Example (examples/per_segment.cpp):
/// \code
///   std::vector<int> user = {7, 7, 3, 3, 3, 7};
///   std::vector<long> bytes = {10, 20, 1, 2, 3, 5};
///   std::vector<int> users(user.size());
///   std::vector<long> totals(user.size());
///   std::size_t k = parprim::reduce_by_key(parprim::omp, user, bytes, users, totals);
///   // k == 3, users[0..3) == {7, 3, 7}, totals[0..3) == {30, 6, 5}
/// \endcode
///
/// \param keys  n keys, compared with `==`
/// \param in  n elements
/// \param keys_out, out  room for at least the number of runs each; elements past it are not
///   written. The accumulator type `T` is `out`'s value type.
/// \return the number of runs (0 when n == 0)
/// \pre `op` is callable as `T op(T, T)` and associative; elements are converted to `T`.
/// \par Complexity  O(n) applications of `op` and O(n) key comparisons; the keys are read twice
///   (once to count the runs, before anything is written), but once on parprim::cuda when both
///   outputs have n elements or at most n sizeof(K) / (2 (sizeof(K) + sizeof(T))) (the results
///   then pass through a temporary of that size and are copied into the outputs when they
///   fit), and on parprim::omp where the runs are long (at least 64 keys on average).
/// \par Errors  parprim::invalid_argument, before anything is written, if `keys` and `in`
///   differ in size, data is null with a non-zero size, an output overlaps an input or the
///   other output, or `keys_out` or `out` has fewer elements than there are runs.
/// \par Determinism  as parprim::reduce, per run.
template <class Policy, class KeyRange, class InputRange, class KeyOutputRange, class OutputRange,
          class BinaryOp = plus>
std::size_t reduce_by_key(const Policy& policy, const KeyRange& keys, const InputRange& in,
                          KeyOutputRange&& keys_out, OutputRange&& out, BinaryOp op = {}) {
  using impl = detail::reduce_by_key_impl<Policy>;
  if constexpr (detail::reduce_by_key_call_ok<Policy, impl, KeyRange, InputRange, KeyOutputRange,
                                              OutputRange, BinaryOp>()) {
    const auto key_span = detail::as_input_span(keys);
    const auto input = detail::as_input_span(in);
    const auto key_output = detail::as_output_span(std::forward<KeyOutputRange>(keys_out));
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    detail::check_reduce_by_key_args(key_span, input, key_output, output, "reduce_by_key", op);
    using acc_t = typename decltype(output)::value_type;
    const auto check_rooms = [&](std::size_t runs) {
      detail::check_room("reduce_by_key", "keys_out", key_output.size(), runs, "key runs");
      detail::check_room("reduce_by_key", "out", output.size(), runs, "key runs");
    };
    return detail::per_segment_call<impl, BinaryOp, acc_t>(
        key_output.size() >= input.size() && output.size() >= input.size(),
        [&](auto backend) {  // one call, counting: nothing written when the runs do not fit
          const std::size_t runs = decltype(backend)::type::reduce_counting(
              policy, key_span, input, key_output, output, detail::backend_op<acc_t>(op));
          check_rooms(runs);
          return runs;
        },
        [&](auto backend) {
          using backend_t = typename decltype(backend)::type;
          const auto plan = backend_t::plan(policy, key_span);
          check_rooms(plan.segments());
          detail::routed_per_segment(output, plan.segments(), op, [&](auto results, auto bop) {
            backend_t::reduce(policy, plan, key_span, input, key_output, results, bop);
          });
          return plan.segments();
        });
  } else {
    return 0;  // not reached: a static_assert of the check failed
  }
}

/// \brief Inclusive scan within each run of equal keys: `out[i] = in[h] op ... op in[i]`, h the
/// first index of i's run (as `thrust::inclusive_scan_by_key`).
///
/// Example (examples/per_segment.cpp):
/// \code
///   std::vector<int> key = {1, 1, 2, 2, 2};
///   std::vector<int> v = {1, 2, 3, 4, 5};
///   parprim::inclusive_scan_by_key(parprim::omp, key, v, v, parprim::plus{});  // {1,3,3,7,12}
/// \endcode
///
/// \param keys  n keys, compared with `==`; must not overlap `out`
/// \param in  n elements
/// \param out  n elements; may be the same range as `in`
/// \par Complexity  O(n) applications of `op` and O(n) key comparisons (no flags are built).
/// \par Errors  parprim::invalid_argument, before anything is written, if the sizes differ,
///   data is null with n > 0, `out` partially overlaps `in` or overlaps `keys`.
/// \par Determinism  as parprim::inclusive_scan.
template <class Policy, class KeyRange, class InputRange, class OutputRange, class BinaryOp = plus>
void inclusive_scan_by_key(const Policy& policy, const KeyRange& keys, const InputRange& in,
                           OutputRange&& out, BinaryOp op = {}) {
  using impl = detail::scan_by_key_impl<Policy>;
  if constexpr (detail::scan_by_key_call_ok<Policy, impl, KeyRange, InputRange, OutputRange,
                                            BinaryOp>()) {
    const auto key_span = detail::as_input_span(keys);
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    detail::check_scan_by_key_args(key_span, input, output, "inclusive_scan_by_key", op);
    impl::inclusive(policy, key_span, input, output, detail::backend_op<acc_t>(op));
  }
}

/// \brief Exclusive scan within each run of equal keys: `init` at each run's first element,
/// then `out[i] = init op in[h] op ... op in[i - 1]`. Otherwise as inclusive_scan_by_key.
template <class Policy, class KeyRange, class InputRange, class OutputRange, class T,
          class BinaryOp = plus>
void exclusive_scan_by_key(const Policy& policy, const KeyRange& keys, const InputRange& in,
                           OutputRange&& out, T init, BinaryOp op = {}) {
  using impl = detail::scan_by_key_impl<Policy>;
  if constexpr (detail::scan_by_key_call_ok<Policy, impl, KeyRange, InputRange, OutputRange,
                                            BinaryOp, T>()) {
    const auto key_span = detail::as_input_span(keys);
    const auto input = detail::as_input_span(in);
    const auto output = detail::as_output_span(std::forward<OutputRange>(out));
    using acc_t = typename decltype(output)::value_type;
    const acc_t start = static_cast<acc_t>(std::move(init));
    detail::check_scan_by_key_args(key_span, input, output, "exclusive_scan_by_key", op, &start);
    impl::exclusive(policy, key_span, input, output, detail::backend_init<BinaryOp>(start),
                    detail::backend_op<acc_t>(op));
  }
}

}  // namespace parprim
