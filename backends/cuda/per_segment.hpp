#pragma once
/// \file
/// \brief The CUDA per-segment calls: `segmented_reduce_impl`, `reduce_by_key_impl` and
/// `scan_by_key_impl` for `basic_cuda_policy<R, S, Sync>` (dispatch.hpp states what each
/// member does). The reductions cut the input into equal tiles whatever the segment lengths
/// (kernels/segment_tiles.cuh); those of head flags and keys count the segments while they
/// reduce, in one pass (kernels/segments_look_back.cuh; `counts_while_reducing`), when `out`
/// has room for n results or for few enough that a temporary of its size holds them on the way,
/// and count them first otherwise. The scans by key make the runs'
/// head flags in a temporary and run the segmented scan of rung `S`. The head-flag and key
/// forms wait for the GPU (they return the count) before anything is written. Offsets are
/// checked in the reduction's own pass by a synchronous call (nothing is written when they
/// fail; it raises after its wait), and before anything is enqueued by a `nosync` one, which
/// then returns once enqueued, as the other calls do. A plain C++
/// translation unit calls the combinations precompiled in `parprim::cuda` (built-in values and
/// operators as for reduce; keys and offsets of int32_t, int64_t or uint64_t); others need nvcc.
/// parprim::exact_plus on float or double (the operator `exact_sum<F>`, an init as its
/// superaccumulator) runs the exact per-segment passes (kernels/segments_exact_sum.cuh), each
/// result rounded once into `out`.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <parprim/backends/cuda/detail/exact_segments_entry.hpp>
#include <parprim/backends/cuda/detail/segments_entry.hpp>
#include <parprim/backends/cuda/detail/temp_storage.hpp>
#include <parprim/backends/cuda/scan.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_sum.hpp>
#include <parprim/device_span.hpp>

#if defined(__CUDACC__)
#include <parprim/backends/cuda/detail/exact_segments_launch.cuh>
#include <parprim/backends/cuda/detail/segments_dispatch.cuh>
#endif

namespace parprim::detail {

/// \brief The compile-time requirements of the CUDA per-segment calls: those of the scans for
/// the values, and where nvcc does not compile the call, precompiled values and keys or offsets
/// of type `Index` (void: none).
template <class Index, class In, class T, class Op>
constexpr void check_cuda_segment_types() {
  check_cuda_scan_types<In, T, Op>();
#if !defined(__CUDACC__)
  static_assert(std::is_void_v<Index> || cuda::precompiled_segment_index_v<Index>,
                "parprim per-segment calls on parprim::cuda from a translation unit not compiled "
                "by nvcc: keys and offsets of int32_t, int64_t or uint64_t are precompiled; for "
                "other types make this a .cu file");
#endif
}

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct segmented_reduce_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  template <class F>
  static cuda::segment_plan plan_flags(const policy_type& policy, device_span<const F> flags) {
    static_assert(sizeof(F) == 1, "parprim: head flags are one byte each (std::uint8_t)");
    return cuda::plan_flag_segments(cuda::options_of(policy),
                                    reinterpret_cast<const std::uint8_t*>(flags.data()),
                                    flags.size());
  }

  /// \brief The front end calls this instead of plan_flags and reduce_flags, whatever `out`'s
  /// size (those two serve exact_plus only): it counts the segments as it reduces, and writes
  /// `out` only when they all fit (cuda::reduce_flag_segments).
  static constexpr bool counts_while_reducing = true;
  static constexpr bool reduces_into_room = true;

  template <class In, class F, class T, class Op>
  static std::size_t reduce_flags_counting(const policy_type& policy, device_span<const In> in,
                                           device_span<const F> flags, device_span<T> out, T init,
                                           Op op) {
    check_cuda_segment_types<void, In, T, Op>();
    return cuda::reduce_flag_segments<In, T, Op>(
        cuda::options_of(policy), in.data(), reinterpret_cast<const std::uint8_t*>(flags.data()),
        in.size(), out.data(), out.size(), init, op);
  }

  template <class In, class Fl, class F>
  static void reduce_flags(const policy_type& policy, const cuda::segment_plan& plan,
                           device_span<const In> in, device_span<const Fl> flags,
                           device_span<F> out, exact_accumulator<F> init, exact_sum<F>) {
    check_cuda_exact_segment_types<void, In, F>();
    cuda::exact_flag_segments<In, F>(cuda::options_of(policy), plan, in.data(),
                                     reinterpret_cast<const std::uint8_t*>(flags.data()),
                                     out.data(), init);
  }

  template <class I>
  static void check_offsets(const policy_type& policy, device_span<const I> offsets, std::size_t n,
                            const char* fn) {
    cuda::check_segment_offsets<I>(cuda::options_of(policy), offsets.data(), offsets.size() - 1, n,
                                   fn);
  }

  template <class In, class I, class T, class Op>
  static void reduce_offsets(const policy_type& policy, device_span<const In> in,
                             device_span<const I> offsets, device_span<T> out, T init, Op op) {
    reduce_offsets_of<true>(policy, in, offsets, out, init, op);
  }

  template <class In, class I, class F>
  static void reduce_offsets(const policy_type& policy, device_span<const In> in,
                             device_span<const I> offsets, device_span<F> out,
                             exact_accumulator<F> init, exact_sum<F>) {
    check_cuda_exact_segment_types<I, In, F>();
    cuda::exact_offset_segments<I, In, F>(cuda::options_of(policy), in.data(), in.size(),
                                          offsets.data(), offsets.size() - 1, out.data(), init);
  }

  /// The check of the offsets in the reduction's own pass (a synchronous call then waits once).
  static constexpr bool checks_offsets_while_reducing = true;

  template <class In, class I, class T, class Op>
  static void reduce_offsets_checking(const policy_type& policy, device_span<const In> in,
                                      device_span<const I> offsets, device_span<T> out, T init,
                                      Op op) {
    reduce_offsets_of<false>(policy, in, offsets, out, init, op);
  }

  template <class In, class I, class F>
  static void reduce_offsets_checking(const policy_type& policy, device_span<const In> in,
                                      device_span<const I> offsets, device_span<F> out,
                                      exact_accumulator<F> init, exact_sum<F> op) {
    check_offsets(policy, offsets, in.size(), "segmented_reduce");
    reduce_offsets(policy, in, offsets, out, init, op);
  }

 private:
  template <bool Checked, class In, class I, class T, class Op>
  static void reduce_offsets_of(const policy_type& policy, device_span<const In> in,
                                device_span<const I> offsets, device_span<T> out, T init, Op op) {
    check_cuda_segment_types<I, In, T, Op>();
    cuda::reduce_offset_segments<I, In, T, Op>(cuda::options_of(policy), in.data(), in.size(),
                                               offsets.data(), offsets.size() - 1, out.data(), init,
                                               op, Checked);
  }
};

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct reduce_by_key_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  template <class K>
  static cuda::segment_plan plan(const policy_type& policy, device_span<const K> keys) {
#if !defined(__CUDACC__)
    static_assert(cuda::precompiled_segment_index_v<K>,
                  "parprim::reduce_by_key on parprim::cuda from a translation unit not compiled "
                  "by nvcc: keys of int32_t, int64_t or uint64_t are precompiled; for other key "
                  "types make this a .cu file");
#endif
    return cuda::plan_key_segments<K>(cuda::options_of(policy), keys.data(), keys.size());
  }

  /// \brief The front end calls this instead of plan and reduce, whatever the outputs' sizes
  /// (those two serve exact_plus only): it counts the runs as it reduces, and writes the
  /// outputs only when they all fit (cuda::reduce_key_segments).
  static constexpr bool counts_while_reducing = true;
  static constexpr bool reduces_into_room = true;

  template <class K, class In, class KOut, class T, class Op>
  static std::size_t reduce_counting(const policy_type& policy, device_span<const K> keys,
                                     device_span<const In> in, device_span<KOut> keys_out,
                                     device_span<T> out, Op op) {
    static_assert(std::is_same_v<K, KOut>,
                  "parprim::reduce_by_key on parprim::cuda: the output keys have the keys' type");
    check_cuda_segment_types<K, In, T, Op>();
    return cuda::reduce_key_segments<K, In, T, Op>(
        cuda::options_of(policy), keys.data(), in.data(), keys.size(), keys_out.data(), out.data(),
        keys_out.size() < out.size() ? keys_out.size() : out.size(), op);
  }

  template <class K, class In, class KOut, class F>
  static void reduce(const policy_type& policy, const cuda::segment_plan& plan,
                     device_span<const K> keys, device_span<const In> in,
                     device_span<KOut> keys_out, device_span<F> out, exact_sum<F>) {
    static_assert(std::is_same_v<K, KOut>,
                  "parprim::reduce_by_key on parprim::cuda: the output keys have the keys' type");
    check_cuda_exact_segment_types<K, In, F>();
    cuda::exact_key_segments<K, In, F>(cuda::options_of(policy), plan, keys.data(), in.data(),
                                       keys_out.data(), out.data());
  }
};

template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct scan_by_key_impl<basic_cuda_policy<R, S, Sync>> {
  using policy_type = basic_cuda_policy<R, S, Sync>;

  template <class K, class In, class T, class Op>
  static void inclusive(const policy_type& policy, device_span<const K> keys,
                        device_span<const In> in, device_span<T> out, Op op) {
    run(policy, keys, in, out, cuda::scan_kind::inclusive, static_cast<const T*>(nullptr), op);
  }

  template <class K, class In, class T, class Op>
  static void exclusive(const policy_type& policy, device_span<const K> keys,
                        device_span<const In> in, device_span<T> out, T init, Op op) {
    run(policy, keys, in, out, cuda::scan_kind::exclusive, &init, op);
  }

  /// \brief parprim::exact_plus on float or double: the exact segmented scan of the runs.
  template <class K, class In, class F>
  static void inclusive(const policy_type& policy, device_span<const K> keys,
                        device_span<const In> in, device_span<F> out, exact_sum<F> op) {
    run(policy, keys, in, out, cuda::scan_kind::inclusive,
        static_cast<const exact_accumulator<F>*>(nullptr), op);
  }
  template <class K, class In, class F>
  static void exclusive(const policy_type& policy, device_span<const K> keys,
                        device_span<const In> in, device_span<F> out, exact_accumulator<F> init,
                        exact_sum<F> op) {
    run(policy, keys, in, out, cuda::scan_kind::exclusive, &init, op);
  }

 private:
  /// \brief The default rung reads the keys in its tiles where `keys_read_in_tiles_v` says so
  /// (key_segmented_scan); other keys, the other rungs and the exact passes for exact_sum<T>
  /// (`Init` then its superaccumulator) take the runs' head flags from a temporary.
  template <class K, class In, class T, class Init, class Op>
  static void run(const policy_type& policy, device_span<const K> keys, device_span<const In> in,
                  device_span<T> out, cuda::scan_kind kind, const Init* init, Op op) {
    constexpr bool exact = std::is_same_v<Op, exact_sum<T>>;
    if constexpr (exact)
      check_cuda_exact_segment_types<K, In, T>();
    else
      check_cuda_segment_types<K, In, T, Op>();
    const std::size_t n = in.size();
    if (n == 0) return;
    const cuda::launch_options options = cuda::options_of(policy);
    cuda::check_device_pointer(
        keys.data(),
        kind == cuda::scan_kind::exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key",
        "the keys");
    if constexpr (!exact && S == cuda_scan_rung::tma_staged_look_back &&
                  cuda::keys_read_in_tiles_v<K, In, T>) {
      cuda::key_segmented_scan<S, K, In, T, Op>(options, in.data(), keys.data(), out.data(), n,
                                                kind, init, op);
    } else {
      // the flags live until the scan's work is done (freed in stream order after it)
      cuda::temp_block flags(options.device, options.stream, options.memory, n);
      auto* f = static_cast<std::uint8_t*>(flags.get());
      cuda::enqueue_key_run_flags<K>(options, keys.data(), n, f);
      if constexpr (exact)
        cuda::exact_segmented_scan<In, T>(options, in.data(), f, out.data(), n, kind, init);
      else
        cuda::segmented_scan<S, In, T, Op>(options, in.data(), f, out.data(), n, kind, init,
                                           static_cast<const T*>(nullptr), op);
    }
  }
};

}  // namespace parprim::detail
