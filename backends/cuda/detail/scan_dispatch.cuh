#pragma once
/// \file
/// \brief The definitions of `parprim::detail::cuda::scan` and `segmented_scan` (declared in
/// detail/scan_entry.hpp): each rung's tile and driver, the problem built from the arguments,
/// one synchronous run. Compiled by nvcc only: user .cu files include it through scan.hpp.

#if !defined(__CUDACC__)
#error "parprim: scan_dispatch.cuh holds CUDA kernels; compile this file with nvcc"
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <parprim/backends/cuda/detail/exact_scan_launch.cuh>
#include <parprim/backends/cuda/detail/ordered_key_problem.cuh>
#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/backends/cuda/detail/scan_launch.cuh>
#include <parprim/error.hpp>

namespace parprim::detail::cuda {

/// \brief Sections of rung 3: as long as possible up to 16 elements, with the tile, its padding
/// and the section totals within 44000 bytes of shared memory.
template <class V>
inline constexpr unsigned rung3_coarsening_v =
    44000 / sizeof(V) <= 512
        ? 1u
        : ((44000 / sizeof(V) - 512) * 32 / 33 / 256 > 16
               ? 16u
               : ((44000 / sizeof(V) - 512) * 32 / 33 / 256 > 0
                      ? static_cast<unsigned>((44000 / sizeof(V) - 512) * 32 / 33 / 256)
                      : 1u));

/// \brief The tiles of the rungs, with their tuning: rung 1 512 threads; rung 2 512 threads
/// x 2; rung 3 256 threads x sections of up to 16; rung 4 256 threads x register_items_v; rung 5
/// below (rung5_shape).
template <class P>
using tile_rung1 = tile_kogge_stone<512, P>;
template <class P>
using tile_rung2 = tile_brent_kung<512, P>;
template <class P>
using tile_rung3 = tile_coarsened_three_phase<256, rung3_coarsening_v<typename P::value_type>, P>;
template <class P>
using input_of_t = std::remove_cv_t<std::remove_pointer_t<decltype(P::in)>>;
template <unsigned BlockSize, class P>
using tile_registers_for =
    tile_registers<BlockSize, register_items_v<input_of_t<P>, typename P::element_type>,
                   vector_items_v<input_of_t<P>>, P>;
template <class P>
using tile_rung4 = tile_registers_for<256, P>;
/// \brief Rung 5's tile (measured on the H200: dev/scan_sweep.cu, dev/segmented_sweep.cu,
/// docs/kernels.md): plain scans of 4-byte inputs 256 threads x 28, of 8-byte inputs 256 x 12,
/// of 1- and 2-byte inputs into 4-byte values 256 x 32 (no spill at 64 registers); segmented
/// scans of 4-byte inputs with an exact operator 256 x 24 (values and a head bitmask);
/// the 4-byte tiles' registers capped for 4 blocks per SM (tile_registers::min_blocks_per_sm);
/// everything else 512 threads x register_items_v.
template <class P>
struct rung5_shape {
  using E = typename P::element_type;
  static constexpr std::size_t in_bytes = sizeof(input_of_t<P>);
  /// narrow inputs (1 and 2 bytes) widened into 4-byte values: 256 x 32 (two 16-byte vectors
  /// of int8 input a thread)
  static constexpr bool narrow_tuned = !P::segmented && in_bytes < 4 && sizeof(E) == 4;
  static constexpr bool plain_tuned =
      !P::segmented && (in_bytes == 4 || in_bytes == 8) && sizeof(E) <= 8;
  static constexpr bool segmented_tuned =
      P::segmented && exact_grouping_v<typename P::op_type, typename P::value_type> &&
      in_bytes == 4 && sizeof(E) <= 4;
  static constexpr unsigned block = plain_tuned || segmented_tuned || narrow_tuned
                                        ? look_back_tuning::block_size_small
                                        : look_back_tuning::block_size_large;
  static constexpr unsigned items = segmented_tuned ? look_back_tuning::segmented_items
                                    : narrow_tuned  ? 32u
                                    : plain_tuned && sizeof(E) <= 4 ? look_back_tuning::plain_items
                                    : plain_tuned                   ? 12u
                                                  : register_items_v<input_of_t<P>, E>;
};
template <class P>
using tile_rung5 =
    tile_registers<rung5_shape<P>::block, rung5_shape<P>::items, vector_items_v<input_of_t<P>>, P>;
/// \brief Whether rung 6 stages problem P's tiles in shared memory: plain and segmented scans of
/// 4-, 8- and 16-byte values (built-in or trivially copyable structs) read unconverted, and plain
/// scans (the transforms included) of inputs of their values' size or narrower (else it runs
/// rung 5's tile and tuning).
template <class P>
inline constexpr bool rung6_staged_v = shared_bulk_tile_fits_v<P, input_of_t<P>>;
/// \brief Rung 6's tile: 256 threads x 112 bytes staged in shared memory by bulk copies
/// (tile_shared_bulk: 256 x 28 for 4-byte values, 256 x 14 for 8-byte, 256 x 7 for 16-byte;
/// dev/tma_scan_prototype.cu),
/// with tma_look_back_tuning's L2 prefetch distance; rung 5's tile otherwise.
template <class P>
using tile_rung6 = std::conditional_t<rung6_staged_v<P>,
                                      tile_shared_bulk<look_back_tuning::block_size_small, P, 7,
                                                       tma_look_back_tuning::prefetch_tiles<P>>,
                                      tile_rung5<P>>;

/// \brief The driver of rung `S` for problem `P`.
template <cuda_scan_rung S, class P>
struct scan_driver;
template <class P>
struct scan_driver<cuda_scan_rung::kogge_stone, P> {
  using type = scan_then_add<tile_rung1, P>;
};
template <class P>
struct scan_driver<cuda_scan_rung::brent_kung, P> {
  using type = scan_then_add<tile_rung2, P>;
};
template <class P>
struct scan_driver<cuda_scan_rung::coarsened_three_phase, P> {
  using type = scan_then_add<tile_rung3, P>;
};
template <class P>
struct scan_driver<cuda_scan_rung::warp_reduce_then_scan, P> {
  using type = reduce_then_scan<tile_rung4, P>;
};
template <class P>
struct scan_driver<cuda_scan_rung::decoupled_look_back, P> {
  using type = single_pass_look_back<tile_rung5, P>;
};
template <class P>
struct scan_driver<cuda_scan_rung::tma_staged_look_back, P> {
  // rung 6's waits where its tile is the shared-memory one, rung 5's where it falls back
  using type = single_pass_look_back<
      tile_rung6, P, std::conditional_t<rung6_staged_v<P>, tma_look_back_tuning, look_back_tuning>>;
};

inline void check_scan_operands(const void* in, const void* out, std::size_t n, scan_kind kind,
                                const void* init, const char* fn) {
  if (kind == scan_kind::exclusive && init == nullptr)
    throw invalid_argument(std::string("parprim::") + fn + ": an exclusive scan needs init");
  if (n == 0) return;
  if (in == nullptr || out == nullptr)
    throw invalid_argument(std::string("parprim::") + fn +
                           ": null data with n = " + std::to_string(n));
  check_device_pointer(in, fn, "the input");
  check_device_pointer(out, fn, "the output");
}

/// \brief check_scan_operands, and for n > 0 the head flags (not null, device memory).
inline void check_segmented_scan_operands(const void* in, const std::uint8_t* flags,
                                          const void* out, std::size_t n, scan_kind kind,
                                          const void* init, const char* fn) {
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  if (flags == nullptr)
    throw invalid_argument(std::string("parprim::") + fn + ": the head flags are null");
  check_device_pointer(flags, fn, "the head flags");
}

/// \brief Runs rung `S` on plain problem `p` with its prefix: `init` (exclusive), `carry`.
template <cuda_scan_rung S, class P, class T>
void run_plain_scan(const launch_options& options, P p, const T* init, const T* carry,
                    const char* fn) {
  if (init != nullptr && p.exclusive) {
    p.prefix_ops.a = *init;
    p.prefix_ops.has_a = true;
  }
  if (carry != nullptr) {
    p.prefix_ops.b = *carry;
    p.prefix_ops.has_b = true;
  }
  run_scan<typename scan_driver<S, P>::type>(options, p, fn);
}

/// \brief How rung `S` scans `T` with `Op` on ordered keys (ordered_key_problem.cuh): only the
/// single-pass rungs, minimum and maximum of float or double read unconverted. Measured on the
/// H200 (dev/ab_minmax.cu, device time, docs/kernels.md):
/// - double (`tiles`: the tiles' folds on keys): 4-11 % faster at 2^16-2^27 elements;
/// - float minimum (`elements`: every element on its key): 7 % faster at 2^24, 3 % at 2^28;
/// - float maximum keeps the values (`none`): its key costs more instructions (the numbers'
///   sign flipped first), and both forms were slower than the values at 2^24-2^28; so were
///   float minimum's tiles on keys at 2^24.
enum class scan_keys { none, tiles, elements };
template <cuda_scan_rung S, class T, class Op>
inline constexpr scan_keys scan_keys_v =
    !((S == cuda_scan_rung::decoupled_look_back || S == cuda_scan_rung::tma_staged_look_back) &&
      ordered_key_operator_v<Op, T>)
        ? scan_keys::none
    : sizeof(T) == 8              ? scan_keys::tiles
    : std::is_same_v<Op, minimum> ? scan_keys::elements
                                  : scan_keys::none;

template <cuda_scan_rung S, class In, class T, class Op>
void scan(const launch_options& options, const In* in, T* out, std::size_t n, scan_kind kind,
          const T* init, const T* carry, Op op) {
  const char* fn = kind == scan_kind::exclusive ? "exclusive_scan" : "inclusive_scan";
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  constexpr scan_keys keys = std::is_same_v<In, T> ? scan_keys_v<S, T, Op> : scan_keys::none;
  if constexpr (keys != scan_keys::none) {
    constexpr bool max = std::is_same_v<Op, maximum>;
    using key = ordered_key<max, T>;
    using K = typename key::key_type;
    const K init_key = init != nullptr ? key::of(*init) : K{};
    const K carry_key = carry != nullptr ? key::of(*carry) : K{};
    const K* init_keys = init != nullptr ? &init_key : nullptr;
    const K* carry_keys = carry != nullptr ? &carry_key : nullptr;
    const bool exclusive = kind == scan_kind::exclusive;
    if constexpr (keys == scan_keys::tiles) {
      using P = ordered_key_problem<max, T>;
      run_plain_scan<S>(options, P{{in, out, n, op, exclusive, {}}, {}}, init_keys, carry_keys, fn);
    } else {
      using P = ordered_key_element_problem<max, T>;
      // the outputs are stored as the bits of their values
      run_plain_scan<S>(
          options, P{{in, reinterpret_cast<K*>(out), n, ordered_key_op<max, T>{}, exclusive, {}}},
          init_keys, carry_keys, fn);
    }
  } else {
    using P = plain_problem<In, T, Op>;
    run_plain_scan<S>(options, P{in, out, n, op, kind == scan_kind::exclusive, {}}, init, carry,
                      fn);
  }
}

/// \brief The scan of `T(f(in[i]))`: rung `S` with the transform applied where elements are
/// read (rung 6: after staging, when inputs and values have one size; else rung 5's tile).
template <cuda_scan_rung S, class In, class T, class Op, class F>
void transform_scan(const launch_options& options, const In* in, T* out, std::size_t n,
                    scan_kind kind, const T* init, Op op, F f) {
  const char* fn =
      kind == scan_kind::exclusive ? "transform_exclusive_scan" : "transform_inclusive_scan";
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  using P = plain_problem<In, T, Op, transform_convert<T, F>>;
  run_plain_scan<S>(options,
                    P{in, out, n, op, kind == scan_kind::exclusive, {}, transform_convert<T, F>{f}},
                    init, static_cast<const T*>(nullptr), fn);
}

template <class In, class F>
void exact_scan(const launch_options& options, const In* in, F* out, std::size_t n, scan_kind kind,
                const exact_accumulator<F>* init, const exact_accumulator<F>* carry) {
  const char* fn = kind == scan_kind::exclusive ? "exclusive_scan" : "inclusive_scan";
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  run_exact_scan(options, converting_load<In, F>{in}, out, n, kind, init, carry, fn);
}

/// \brief parprim::exact_plus scans of `F(f(in[i]))` (float or double `F`).
template <class In, class F, class Fn>
void exact_transform_scan(const launch_options& options, const In* in, F* out, std::size_t n,
                          scan_kind kind, const exact_accumulator<F>* init, Fn f) {
  const char* fn =
      kind == scan_kind::exclusive ? "transform_exclusive_scan" : "transform_inclusive_scan";
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  run_exact_scan(options, unary_transform_load<In, F, Fn>{in, f}, out, n, kind, init,
                 static_cast<const exact_accumulator<F>*>(nullptr), fn);
}

template <cuda_scan_rung S, class In, class T, class Op>
void segmented_scan(const launch_options& options, const In* in, const std::uint8_t* flags, T* out,
                    std::size_t n, scan_kind kind, const T* init, const T* carry, Op op) {
  const char* fn =
      kind == scan_kind::exclusive ? "segmented_exclusive_scan" : "segmented_inclusive_scan";
  check_segmented_scan_operands(in, flags, out, n, kind, init, fn);
  if (n == 0) return;
  using P = segmented_problem<In, T, Op>;
  P p{in, {flags}, out, n, op, kind == scan_kind::exclusive, init ? *init : T{}, {}, nullptr};
  if (carry != nullptr) {
    p.prefix_ops.a = flagged<T>{*carry, false};
    p.prefix_ops.has_a = true;
  }
  run_scan<typename scan_driver<S, P>::type>(options, p, fn);
}

/// \brief The scans by key: the segmented scan of rung `S` whose segments are the runs of equal
/// keys, read from the keys themselves (key_run_heads: no head flags in memory). `keys` is a
/// device pointer (checked by the caller) that `out` does not overlap.
template <cuda_scan_rung S, class K, class In, class T, class Op>
void key_segmented_scan(const launch_options& options, const In* in, const K* keys, T* out,
                        std::size_t n, scan_kind kind, const T* init, Op op) {
  const char* fn = kind == scan_kind::exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key";
  check_scan_operands(in, out, n, kind, init, fn);
  if (n == 0) return;
  using P = segmented_problem<In, T, Op, key_run_heads<K>>;
  const P p{in, {keys}, out, n, op, kind == scan_kind::exclusive, init ? *init : T{}, {}, nullptr};
  run_scan<typename scan_driver<S, P>::type>(options, p, fn);
}

}  // namespace parprim::detail::cuda
