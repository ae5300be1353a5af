#pragma once
/// \file
/// \brief The CUDA policy `parprim::cuda` and the kernel ladders it can select.
///
/// \code
///   namespace pp = parprim;
///   pp::device_span<const float> in = ...;                        // device memory only
///   float a = pp::reduce(pp::cuda, in, 0.0f, pp::plus{});          // default kernel (rung 7)
///   float b = pp::reduce(pp::cuda.on(stream), in, 0.0f, pp::plus{});
///   float c = pp::reduce(pp::cuda.reduce_kernel(pp::cuda_reduce::k3_sequential_addressing),
///                        in, 0.0f, pp::plus{});
///   pp::device_span<float> out = ...;
///   pp::inclusive_scan(pp::cuda.scan_kernel(pp::cuda_scan::k1_kogge_stone), in, out);
/// \endcode
///
/// The kernel of a ladder is part of the policy's *type*: misuse is found at compile time
/// (a non-commutative operator given to a rung that reorders operands is a `static_assert`).
/// Stream and device are run-time options. This header names no CUDA type: a stream is passed
/// as `CUstream_st*`, which is what `cudaStream_t` is.

#include <string>

#include <parprim/cuda_memory.hpp>
#include <parprim/detail/policy_traits.hpp>
#include <parprim/error.hpp>

struct CUstream_st;

namespace parprim {

/// \brief The rungs of the CUDA reduction ladder (docs/kernels.md), numbered as in the lecture.
enum class cuda_reduce_rung : int {
  interleaved_divergent = 1,          ///< `tid % (2*s)`: divergent warps
  interleaved_strided = 2,            ///< strided index: no divergence, bank conflicts
  sequential_addressing = 3,          ///< conflict-free; reorders operands
  first_add_during_load = 4,          ///< half the blocks; reorders operands
  unrolled_last_warp = 5,             ///< compile-time block size, shuffles for the last warp
  grid_stride_multiple_elements = 6,  ///< cost-optimal block count, grid-stride loop
  vectorized_single_pass = 7,         ///< the default: 16-byte loads, one launch, Hopper-tuned
};

/// \brief Whether a rung's combination tree reorders operands (then it needs a commutative
/// operator). Rungs 1 and 2 combine neighbours; rung 7 keeps sequence order by construction.
constexpr bool cuda_reduce_reorders(cuda_reduce_rung r) noexcept {
  return r != cuda_reduce_rung::interleaved_divergent &&
         r != cuda_reduce_rung::interleaved_strided &&
         r != cuda_reduce_rung::vectorized_single_pass;
}

/// \brief The short name of a rung, e.g. "k3_sequential_addressing".
constexpr const char* cuda_reduce_name(cuda_reduce_rung r) noexcept {
  switch (r) {
    case cuda_reduce_rung::interleaved_divergent:
      return "k1_interleaved_divergent";
    case cuda_reduce_rung::interleaved_strided:
      return "k2_interleaved_strided";
    case cuda_reduce_rung::sequential_addressing:
      return "k3_sequential_addressing";
    case cuda_reduce_rung::first_add_during_load:
      return "k4_first_add_during_load";
    case cuda_reduce_rung::unrolled_last_warp:
      return "k5_unrolled_last_warp";
    case cuda_reduce_rung::grid_stride_multiple_elements:
      return "k6_grid_stride_multiple_elements";
    case cuda_reduce_rung::vectorized_single_pass:
      return "k7_vectorized_single_pass";
  }
  return "unknown";
}

/// \brief A rung as a value whose type carries it: what `.reduce_kernel(...)` takes.
template <cuda_reduce_rung R>
struct cuda_reduce_kernel {
  static constexpr cuda_reduce_rung rung = R;                ///< the rung
  static constexpr int number = static_cast<int>(R);         ///< its number, 1-7
  static constexpr bool reorders = cuda_reduce_reorders(R);  ///< needs a commutative operator
};

/// \brief The reduction ladder:
/// `policy.reduce_kernel(parprim::cuda_reduce::k5_unrolled_last_warp)`. The name says what the rung
/// teaches; the `kN_` prefix is its number in the lecture.
namespace cuda_reduce {
/// \brief rung 1: interleaved addressing, divergent warps
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::interleaved_divergent>
    k1_interleaved_divergent{};
/// \brief rung 2: strided index, no divergence, bank conflicts
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::interleaved_strided> k2_interleaved_strided{};
/// \brief rung 3: sequential addressing, conflict-free (reorders operands)
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::sequential_addressing>
    k3_sequential_addressing{};
/// \brief rung 4: first add during the global load (reorders operands)
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::first_add_during_load>
    k4_first_add_during_load{};
/// \brief rung 5: unrolled by a compile-time block size, shuffles for the last warp (reorders
/// operands)
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::unrolled_last_warp> k5_unrolled_last_warp{};
/// \brief rung 6: cost-optimal block count, grid-stride loop (reorders operands)
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::grid_stride_multiple_elements>
    k6_grid_stride_multiple_elements{};
/// \brief rung 7, the default: 16-byte loads, one launch, sequence order kept
inline constexpr cuda_reduce_kernel<cuda_reduce_rung::vectorized_single_pass>
    k7_vectorized_single_pass{};
/// \brief The default kernel (rung 7).
inline constexpr auto default_ = k7_vectorized_single_pass;
}  // namespace cuda_reduce

/// \brief The rungs of the CUDA scan ladder (docs/kernels.md). Every rung keeps sequence order,
/// so every rung takes non-commutative operators; every rung also runs the segmented scans.
enum class cuda_scan_rung : int {
  kogge_stone = 1,            ///< Kogge-Stone in a block, one element per thread; scan-then-add
  brent_kung = 2,             ///< Brent-Kung (up-sweep, down-sweep) in a block; scan-then-add
  coarsened_three_phase = 3,  ///< thread-coarsened three-phase block scan; scan-then-add
  warp_reduce_then_scan = 4,  ///< warp shuffles; reduce, scan of block totals, rescan
  decoupled_look_back = 5,    ///< single pass, decoupled look-back, register tile, Hopper-tuned
  /// the default: rung 5 with the tile staged in shared memory by bulk copies (Hopper's TMA),
  /// for plain and segmented scans of 4- and 8-byte arithmetic values read unconverted; others
  /// run as rung 5
  tma_staged_look_back = 6,
};

/// \brief The short name of a scan rung, e.g. "k2_brent_kung".
constexpr const char* cuda_scan_name(cuda_scan_rung r) noexcept {
  switch (r) {
    case cuda_scan_rung::kogge_stone:
      return "k1_kogge_stone";
    case cuda_scan_rung::brent_kung:
      return "k2_brent_kung";
    case cuda_scan_rung::coarsened_three_phase:
      return "k3_coarsened_three_phase";
    case cuda_scan_rung::warp_reduce_then_scan:
      return "k4_warp_reduce_then_scan";
    case cuda_scan_rung::decoupled_look_back:
      return "k5_decoupled_look_back";
    case cuda_scan_rung::tma_staged_look_back:
      return "k6_tma_staged_look_back";
  }
  return "unknown";
}

/// \brief A scan rung as a value whose type carries it: what `.scan_kernel(...)` takes.
template <cuda_scan_rung R>
struct cuda_scan_kernel {
  static constexpr cuda_scan_rung rung = R;           ///< the rung
  static constexpr int number = static_cast<int>(R);  ///< its number, 1-6
};

/// \brief The scan ladder: `policy.scan_kernel(parprim::cuda_scan::k2_brent_kung)`.
namespace cuda_scan {
/// \brief rung 1: Kogge-Stone in a block
inline constexpr cuda_scan_kernel<cuda_scan_rung::kogge_stone> k1_kogge_stone{};
/// \brief rung 2: Brent-Kung in a block
inline constexpr cuda_scan_kernel<cuda_scan_rung::brent_kung> k2_brent_kung{};
/// \brief rung 3: thread-coarsened three-phase block scan
inline constexpr cuda_scan_kernel<cuda_scan_rung::coarsened_three_phase> k3_coarsened_three_phase{};
/// \brief rung 4: warp shuffles, reduce then scan
inline constexpr cuda_scan_kernel<cuda_scan_rung::warp_reduce_then_scan> k4_warp_reduce_then_scan{};
/// \brief rung 5: single pass, decoupled look-back
inline constexpr cuda_scan_kernel<cuda_scan_rung::decoupled_look_back> k5_decoupled_look_back{};
/// \brief rung 6, the default: rung 5 with the tile staged by TMA bulk copies
inline constexpr cuda_scan_kernel<cuda_scan_rung::tma_staged_look_back> k6_tma_staged_look_back{};
/// \brief The default kernel: rung 6 (rung 5 for what rung 6 does not stage; docs/kernels.md).
inline constexpr auto default_ = k6_tma_staged_look_back;
}  // namespace cuda_scan

/// \brief The CUDA policy (target `parprim::cuda`). Use the object `parprim::cuda`.
///
/// Options, each returning a modified copy:
/// - `on(stream)`: run on this stream (default: the legacy default stream, `nullptr`).
/// - `device(id)`: run on GPU `id` (default: the calling thread's current device); the
///   current device is restored afterwards.
/// - `reduce_kernel(parprim::cuda_reduce::kN_...)`: the rung of the reduction ladder.
/// - `scan_kernel(parprim::cuda_scan::kN_...)`: the rung of the scan ladder (scans and
///   segmented scans).
/// - `deterministic(bool)` (default true): scans give bitwise identical results from run to
///   run for the same input, n and GPU. Only the look-back rungs (5, and 6: the default) have
///   a faster alternative for operators whose result depends on grouping (floating-point sums,
///   user operators): `deterministic(false)` lets the look-back group operands as timing
///   allows, as CUB does. Integer arithmetic, min and max are identical either way.
/// - `nosync()`: calls return as soon as their work is enqueued on the stream (no host
///   synchronisation); the caller synchronises before reading outputs or reusing inputs.
///   Errors of the launches raise at the call, errors of the running kernels at the caller's
///   next synchronisation. `parprim::reduce` does not compile with it (its value needs the
///   host): use `parprim::reduce_into`. Such calls can be captured into CUDA graphs.
/// - `memory(resource)`: temporaries come from a parprim::cuda_memory_resource (cuda_memory.hpp)
///   instead of the library's cache; the resource must outlive the calls' work.
///
/// Without `nosync()`, every call returns after its result is complete (a reduction's value is
/// on the host, a scan's output in device memory, visible to every stream and copy), so errors
/// of the kernels are reported by the call that caused them. Such a call waits for its stream,
/// or, for rung 7's reductions and the look-back scans (rungs 5 and 6) below 512 tiles, for a
/// word their kernel writes into pinned host memory once every result is written (0.4-1.6 us
/// sooner; the kernel may then still be retiring, and work enqueued later on the stream runs
/// after it as ever). Temporary storage is cached per device and stream unless a memory
/// resource is given. Failures raise parprim::cuda_error. Threads, streams and graphs:
/// docs/guide.md, "The GPU".
/// \tparam Reduce  the reduction rung (default: rung 7)
/// \tparam Scan  the scan rung (default: rung 6)
/// \tparam Sync  false for a `nosync()` policy
template <cuda_reduce_rung Reduce = cuda_reduce_rung::vectorized_single_pass,
          cuda_scan_rung Scan = cuda_scan_rung::tma_staged_look_back, bool Sync = true>
class basic_cuda_policy {
 public:
  /// \brief `cudaStream_t`, spelled without CUDA headers.
  using stream_type = CUstream_st*;
  /// \brief The reduction rung this policy runs.
  static constexpr cuda_reduce_rung reduce_rung = Reduce;
  /// \brief The scan rung this policy runs.
  static constexpr cuda_scan_rung scan_rung = Scan;
  /// \brief Whether calls wait for their work (false: a `nosync()` policy).
  static constexpr bool synchronous = Sync;

  /// \brief Run on `stream` (`nullptr`: the default stream).
  constexpr basic_cuda_policy on(stream_type stream) const noexcept {
    basic_cuda_policy p = *this;
    p.stream_ = stream;
    return p;
  }
  /// \brief Run on GPU `id`. \throws parprim::invalid_argument if `id < 0`; an id the machine
  /// does not have raises parprim::cuda_error when a primitive runs.
  basic_cuda_policy device(int id) const {
    if (id < 0)
      throw invalid_argument("parprim::cuda.device(id): id must be >= 0, got " +
                             std::to_string(id));
    basic_cuda_policy p = *this;
    p.device_ = id;
    return p;
  }
  /// \brief The same policy running reduction rung `R`.
  template <cuda_reduce_rung R>
  constexpr basic_cuda_policy<R, Scan, Sync> reduce_kernel(cuda_reduce_kernel<R>) const noexcept {
    return basic_cuda_policy<R, Scan, Sync>(stream_, device_, deterministic_, memory_);
  }
  /// \brief The same policy running scan rung `S`.
  template <cuda_scan_rung S>
  constexpr basic_cuda_policy<Reduce, S, Sync> scan_kernel(cuda_scan_kernel<S>) const noexcept {
    return basic_cuda_policy<Reduce, S, Sync>(stream_, device_, deterministic_, memory_);
  }
  /// \brief The same policy whose calls return once their work is enqueued (see the class
  /// comment).
  constexpr basic_cuda_policy<Reduce, Scan, false> nosync() const noexcept {
    return basic_cuda_policy<Reduce, Scan, false>(stream_, device_, deterministic_, memory_);
  }
  /// \brief The same policy taking its temporaries from `resource` (not copied: it must
  /// outlive every call made with the policy and their enqueued work).
  constexpr basic_cuda_policy memory(cuda_memory_resource& resource) const noexcept {
    basic_cuda_policy p = *this;
    p.memory_ = &resource;
    return p;
  }
  /// \return the memory resource, or nullptr for the library's cache
  constexpr cuda_memory_resource* memory_resource() const noexcept { return memory_; }

  /// \brief The same policy with (`true`, the default) or without a run-to-run identical
  /// grouping of floating-point scans (see the class comment).
  constexpr basic_cuda_policy deterministic(bool on) const noexcept {
    basic_cuda_policy p = *this;
    p.deterministic_ = on;
    return p;
  }
  /// \return whether scans are run-to-run deterministic
  constexpr bool is_deterministic() const noexcept { return deterministic_; }

  /// \return the stream (`nullptr`: default stream)
  constexpr stream_type stream() const noexcept { return stream_; }
  /// \return the device id, or -1 for the calling thread's current device
  constexpr int device_id() const noexcept { return device_; }

  constexpr basic_cuda_policy() noexcept = default;

 private:
  template <cuda_reduce_rung, cuda_scan_rung, bool>
  friend class basic_cuda_policy;
  constexpr basic_cuda_policy(stream_type s, int d, bool det, cuda_memory_resource* m) noexcept
      : stream_(s), device_(d), deterministic_(det), memory_(m) {}

  stream_type stream_ = nullptr;
  int device_ = -1;
  bool deterministic_ = true;
  cuda_memory_resource* memory_ = nullptr;
};

namespace detail {
template <cuda_reduce_rung R, cuda_scan_rung S, bool Sync>
struct policy_traits<basic_cuda_policy<R, S, Sync>> {
  static constexpr policy_kind kind = policy_kind::cuda;
  static constexpr bool device_memory = true;
};
}  // namespace detail

/// \brief The default CUDA policy type.
using cuda_policy = basic_cuda_policy<>;
/// \brief The CUDA policy object: `parprim::cuda`, `parprim::cuda.on(stream)`, ...
inline constexpr cuda_policy cuda{};

}  // namespace parprim
