#pragma once
/// \file
/// \brief `parprim::mpi(comm).local(parprim::cuda)`: each rank's block is device memory
/// (`parprim::device_span<T>`) on the rank's GPU, each rank's part runs on that GPU, and only
/// scalars cross ranks (the same collectives as with a host local policy: one
/// MPI_Allreduce / MPI_Exscan of one value). Included by mpi.hpp when the translation unit
/// has the CUDA backend (PARPRIM_HAS_CUDA).
///
/// \par Which GPU
/// A rank runs on GPU `node_rank % device_count`, node_rank being its rank among the ranks of
/// the communicator that share its node (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`, computed
/// once per communicator); on one node that is `rank % device_count`. The local policy
/// overrides it: `.local(parprim::cuda.device(id))` runs on GPU `id`, and
/// `.local(parprim::cuda.on(stream))` without a device on the stream's GPU. Allocate each
/// rank's block on that GPU: `parprim::mpi_local_device(policy)` says which one. Several ranks
/// may share a GPU (more ranks than GPUs: each GPU then runs its ranks' kernels in turn).
/// Every primitive checks, inside the cross-rank agreement (detail/agree.hpp), that each
/// block is memory the rank's GPU can read (device memory of that GPU, managed or pinned
/// memory); otherwise every rank raises parprim::invalid_argument.
///
/// \par Traffic per rank (n elements of `T` in the block, 1-byte flags, p ranks)
/// - reduce: one GPU reduction of the block (reads n T), its result to the host, one
///   collective of one T. Same as a plain `parprim::reduce(parprim::cuda, ...)` plus the
///   collective.
/// - inclusive / exclusive scan: ranks other than the last reduce their block on the GPU
///   (reads n T; the last rank's total is needed by nobody), `MPI_Exscan` of one T, then one
///   GPU scan that takes the carry from the left as an operand (`carry` of
///   detail::cuda::scan, backends/cuda/detail/scan_entry.hpp): reads n T, writes n T. No
///   fix-up pass. In total 3 n T moved (the last rank 2 n T, a lone GPU 2 n T).
///   With parprim::exact_plus on float or double the values are superaccumulators (the exact
///   fold on the GPU, `MPI_Exscan` on their datatype) and the scan is the GPU exact scan
///   (detail::cuda::exact_scan) from that carry: every output the exact prefix rounded once.
/// - segmented scans: ranks other than the last need their block's {value, head} pair: the
///   fold from the block's last head to its end, and whether it holds a head. The last head
///   is found from the end: the last `segmented_search_window` bytes (64 KiB) of flags are
///   copied to the host and searched; if they hold no head, GPU probes look further left
///   (each probe a max-reduction of the flags read as 8-byte words: windows growing 4x, then
///   bisection down to one window, which is copied and searched). Then one GPU reduction of
///   the last segment (n - last elements). `MPI_Exscan` of the pair (user op on a derived
///   datatype), then one GPU segmented scan with the carry's value as an operand (reads n T
///   and n flags, writes n T). With segments shorter than the window: one 64 KiB copy, a
///   reduction of the last segment and the scan, so about 2 n T + n bytes. Worst case (the
///   last head early in the block, or none): the probes read the flags at most about twice
///   and the last segment's reduction reads up to n T: about 3 n T + 3 n bytes, with up to
///   about 1.5 log2(n / 64 Ki) probe launches, each waiting for its result (a few hundred
///   microseconds at n = 2^30).
/// Every step synchronises the stream before its result is used; results (scans: the output
/// in device memory) are complete when the call returns.
///
/// \par Errors
/// Invalid arguments and a missing GPU raise on every rank (agreement). A CUDA failure during
/// the call (out of memory, a kernel fault) raises parprim::cuda_error on the rank where it
/// happened; the other ranks may then wait in the primitive's collective: treat it as fatal
/// for the communicator, as MPI does with its own failures.
///
/// \par Types and operators
/// As for `parprim::cuda`: from a plain C++ translation unit only the combinations precompiled
/// in the parprim::cuda library (element type = accumulator type = int32_t, uint32_t,
/// int64_t, uint64_t, float or double with plus, minimum or maximum); anything else from a .cu
/// file compiled by nvcc. The operator must also be callable on the host (user operators are
/// applied by MPI's reduction on the host; mark it `__host__ __device__`).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/backends/cuda/cuda.hpp>
#include <parprim/backends/cuda/detail/device_guard.hpp>
#include <parprim/backends/cuda/detail/error.hpp>
#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/backends/cuda/detail/scan_entry.hpp>
#include <parprim/backends/mpi/detail/collectives.hpp>
#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/local.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/detail/accumulating.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/exact_accumulator.hpp>
#include <parprim/detail/exact_dispatch.hpp>
#include <parprim/detail/exact_sum.hpp>
#include <parprim/detail/segmented.hpp>
#include <parprim/device_span.hpp>
#include <parprim/error.hpp>
#include <parprim/operators.hpp>

namespace parprim {

namespace mpi_detail {

template <class>
inline constexpr bool cuda_local_always_false_v = false;

/// \brief Bytes of head flags the segmented scans copy to the host at a time when they look
/// for a block's last head (see the file comment). At least 16. Tests lower it to exercise
/// the GPU probes on small blocks.
inline std::size_t segmented_search_window = std::size_t{1} << 16;

/// \brief The GPU this rank's part runs on (see the file comment): the policy's device, else
/// the device of the policy's stream, else node_rank % device_count.
/// \throws parprim::cuda_error if the runtime finds no GPU
template <cuda_reduce_rung R, cuda_scan_rung S>
int local_device(const context& ctx, const basic_cuda_policy<R, S>& local) {
  if (local.device_id() >= 0) return local.device_id();
  // cudaStreamLegacy (1) and cudaStreamPerThread (2) are handles of every device.
  if (reinterpret_cast<std::uintptr_t>(local.stream()) > 2) {
    int owner = -1;
    PARPRIM_CUDA_CHECK(cudaStreamGetDevice(static_cast<cudaStream_t>(local.stream()), &owner));
    return owner;
  }
  int count = 0;
  PARPRIM_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count <= 0)
    throw cuda_error(static_cast<int>(cudaErrorNoDevice),
                     "parprim::mpi(comm).local(parprim::cuda): no GPU on this node");
  return ctx.node_rank % count;
}

/// \brief The local policy with this rank's GPU named.
template <cuda_reduce_rung R, cuda_scan_rung S>
basic_cuda_policy<R, S> on_local_device(const context& ctx, const basic_cuda_policy<R, S>& local) {
  return local.device(local_device(ctx, local));
}

template <cuda_reduce_rung R, cuda_scan_rung S>
detail::cuda::launch_options launch_of(const basic_cuda_policy<R, S>& local) {
  return detail::cuda::options_of(local);
}

/// \brief Copies `bytes` from device (or managed, or pinned) memory to host memory `dst`, in
/// the order of the policy's stream, and waits for it.
template <cuda_reduce_rung R, cuda_scan_rung S>
void copy_to_host(const basic_cuda_policy<R, S>& local, void* dst, const void* src,
                  std::size_t bytes) {
  if (bytes == 0) return;
  const detail::cuda::device_guard guard(local.device_id());
  const auto stream = static_cast<cudaStream_t>(local.stream());
  PARPRIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
  PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// \brief Whether starting a fold at the identity gives the bits of the fold started at the
/// first element: integers, and floating-point `plus` from -0.0. (Floating-point min / max
/// from +-inf would differ for NaN inputs: those start at the first element.)
template <class Op, class T>
inline constexpr bool exact_identity_v = has_identity_v<std::remove_cvref_t<Op>, T> &&
                                         (std::is_integral_v<T> ||
                                          std::is_same_v<std::remove_cvref_t<Op>, plus>);

template <class Op, class T>
T exact_identity() {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<std::remove_cvref_t<Op>, plus>)
    return -T(0);
  else
    return identity_v<std::remove_cvref_t<Op>, T>();
}

/// \brief `in[0] op ... op in[n-1]` as a `T` on the GPU (n >= 1): one reduction, started at
/// the identity when that is exact, else at the first element (one more scalar copy).
template <class T, cuda_reduce_rung R, cuda_scan_rung S, class In, class Op>
T fold_block(const basic_cuda_policy<R, S>& local, device_span<const In> in, const Op& op) {
  using impl = detail::reduce_impl<basic_cuda_policy<R, S>>;
  if constexpr (detail::accumulating_operator<Op>) {
    return impl::apply(local, in, T{}, op);  // (exact_plus: the empty superaccumulator)
  } else if constexpr (exact_identity_v<Op, T>) {
    return impl::apply(local, in, exact_identity<Op, T>(), op);
  } else {
    In first;
    copy_to_host(local, &first, in.data(), sizeof(In));
    return impl::apply(local, in.subspan(1), static_cast<T>(first), op);
  }
}

/// \brief Whether any of `flags[a, b)` is non-zero, `flags + a` and `flags + b` 8-byte
/// aligned, a < b: one GPU max-reduction of the bytes read as 64-bit words.
template <cuda_reduce_rung R, cuda_scan_rung S>
bool any_head_words(const basic_cuda_policy<R, S>& local, const std::uint8_t* flags, std::size_t a,
                    std::size_t b) {
  const auto* words = reinterpret_cast<const std::uint64_t*>(flags + a);
  return detail::cuda::reduce<cuda_reduce_rung::vectorized_single_pass, std::uint64_t,
                              std::uint64_t, maximum>(launch_of(local), words, (b - a) / 8,
                                                      std::uint64_t{0}, maximum{}) != 0;
}

/// \brief The last i < n with `flags[i] != 0`, or none; see the file comment for the search.
template <cuda_reduce_rung R, cuda_scan_rung S>
std::optional<std::size_t> last_head(const basic_cuda_policy<R, S>& local,
                                     const std::uint8_t* flags, std::size_t n) {
  const std::size_t window = segmented_search_window < 16 ? 16 : segmented_search_window;
  std::vector<std::uint8_t> host;
  // Copies flags[a, b) to the host and returns the last head in it.
  const auto search_on_host = [&](std::size_t a, std::size_t b) -> std::optional<std::size_t> {
    host.resize(b - a);
    copy_to_host(local, host.data(), flags + a, b - a);
    for (std::size_t i = b - a; i-- > 0;)
      if (host[i] != 0) return a + i;
    return std::nullopt;
  };
  // Probes read 8-byte words: their bounds are indices whose address is 8-byte aligned, the
  // first of which is `first` (bytes before it are searched on the host at the end).
  const auto address = reinterpret_cast<std::uintptr_t>(flags);
  const std::size_t first = std::min<std::size_t>(n, (8 - address % 8) % 8);
  const auto align_down = [&](std::size_t i) -> std::size_t {  // an aligned index <= i, or 0
    return i < first ? 0 : first + (i - first) / 8 * 8;
  };

  // 1. The last window, on the host.
  std::size_t hi = n > window ? align_down(n - window) : 0;
  if (auto found = search_on_host(hi, n)) return found;
  if (hi == 0) return std::nullopt;
  // 2. Windows growing 4x towards the start, on the GPU, over [first, hi).
  std::size_t size = 4 * window;
  while (hi > first) {
    const std::size_t lo = hi - first > size ? align_down(hi - size) : first;
    if (any_head_words(local, flags, lo, hi)) {
      // 3. Bisection of [lo, hi), which holds the last head, down to one window.
      std::size_t a = lo;
      while (hi - a > window) {
        const std::size_t mid = align_down(a + (hi - a) / 2);
        if (any_head_words(local, flags, mid, hi))
          a = mid;
        else
          hi = mid;
      }
      return search_on_host(a, hi);
    }
    hi = lo;
    size *= 4;
  }
  // 4. The unaligned bytes at the start.
  return first > 0 ? search_on_host(0, first) : std::nullopt;
}

/// \brief The block's {value, head} pair for the segmented carry (n >= 1): the fold from its
/// last head (or its start) to its end, and whether it holds a head.
template <class Out, cuda_reduce_rung R, cuda_scan_rung S, class In, class Op>
detail::flagged<Out> segmented_total(const basic_cuda_policy<R, S>& local, device_span<const In> in,
                                     const std::uint8_t* flags, const Op& op) {
  const std::optional<std::size_t> last = last_head(local, flags, in.size());
  return {fold_block<Out>(local, in.subspan(last.value_or(0)), op), last.has_value()};
}

/// \brief The agreement's checks for a CUDA local policy: a GPU exists, and every non-empty
/// block is memory this rank's GPU can read.
template <cuda_reduce_rung R, cuda_scan_rung S>
struct local_checks<basic_cuda_policy<R, S>> {
  static void run(MPI_Comm comm, const basic_cuda_policy<R, S>& local, const char* fn,
                  std::initializer_list<block_arg> blocks) {
    const context ctx = make_context(comm);
    const int device = local_device(ctx, local);
    for (const block_arg& b : blocks) {
      if (b.size == 0) continue;
      cudaPointerAttributes attr{};
      PARPRIM_CUDA_CHECK(cudaPointerGetAttributes(&attr, b.data));
      const std::string where = std::string("parprim::") + fn +
                                "(mpi(comm).local(cuda)): " + b.name + " on rank " +
                                std::to_string(ctx.rank);
      if (attr.type == cudaMemoryTypeUnregistered)
        throw invalid_argument(where +
                               " is host memory the GPU cannot read; pass device memory "
                               "(parprim::device_span) on this rank's GPU");
      if (attr.type == cudaMemoryTypeDevice && attr.device != device)
        throw invalid_argument(
            where + " is memory of GPU " + std::to_string(attr.device) +
            " but the rank runs on GPU " + std::to_string(device) +
            " (node rank % GPU count unless the cuda policy names a device): allocate it on "
            "parprim::mpi_local_device(policy), or name its GPU with "
            ".local(parprim::cuda.device(id))");
    }
  }
};

}  // namespace mpi_detail

/// \brief The GPU this rank's part of `policy` runs on (see backends/mpi/detail/local_cuda.hpp):
/// allocate the rank's blocks there. Collective on the first use of the communicator by parprim
/// (it is duplicated then), like the primitives.
/// \throws parprim::cuda_error if there is no GPU, parprim::mpi_error
template <cuda_reduce_rung R, cuda_scan_rung S>
int mpi_local_device(const mpi_policy<basic_cuda_policy<R, S>>& policy) {
  return mpi_detail::local_device(mpi_detail::make_context(policy.communicator()),
                                  policy.local_policy());
}

namespace detail {

/// \brief Host ranges with a CUDA local policy: a compile error.
template <class In>
constexpr void mpi_cuda_reject_host() {
  static_assert(mpi_detail::cuda_local_always_false_v<In>,
                "parprim::mpi(comm).local(parprim::cuda) processes each rank's block on its "
                "GPU: pass parprim::device_span<T> (device memory on "
                "parprim::mpi_local_device(policy)), not host ranges, or use a host local "
                "policy (parprim::seq, parprim::omp).");
}

template <cuda_reduce_rung R, cuda_scan_rung S>
struct reduce_impl<mpi_policy<basic_cuda_policy<R, S>>> {
  using policy_type = mpi_policy<basic_cuda_policy<R, S>>;

  template <class In, class T, class Op>
  static T apply(const policy_type& policy, device_span<const In> in, T init, Op op) {
    namespace md = mpi_detail;
    md::require_combinable<In, T, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    const auto local = md::on_local_device(ctx, policy.local_policy());
    std::optional<T> partial;
    if (!in.empty()) partial = md::fold_block<T>(local, in, op);
    const std::optional<T> total = md::reduce_across(ctx, policy.root_rank(), partial, op);
    if (!total) return init;
    return static_cast<T>(op(std::move(init), *total));
  }

  template <class In, class T, class Op>
  static T apply(const policy_type&, std::span<const In>, T init, Op) {
    mpi_cuda_reject_host<In>();
    return init;
  }
};

/// \brief The MPI scans over local CUDA policies take exact_plus on device blocks too.
template <cuda_reduce_rung R, cuda_scan_rung S>
inline constexpr bool scans_device_exact_v<mpi_policy<basic_cuda_policy<R, S>>> = true;

template <cuda_reduce_rung R, cuda_scan_rung S>
struct scan_impl<mpi_policy<basic_cuda_policy<R, S>>> {
  using policy_type = mpi_policy<basic_cuda_policy<R, S>>;

  template <class In, class Out, class Op>
  static void inclusive(const policy_type& policy, device_span<const In> in, device_span<Out> out,
                        Op op) {
    run(policy, in, out, cuda::scan_kind::inclusive, static_cast<const Out*>(nullptr), op);
  }

  template <class In, class Out, class Op>
  static void exclusive(const policy_type& policy, device_span<const In> in, device_span<Out> out,
                        Out init, Op op) {
    run(policy, in, out, cuda::scan_kind::exclusive, &init, op);
  }

  /// \brief parprim::exact_plus on float or double: the ranks' superaccumulators cross the
  /// network (MPI_Exscan on their datatype) and the GPU exact scan starts from the carry.
  template <class In, class F>
  static void inclusive(const policy_type& policy, device_span<const In> in, device_span<F> out,
                        exact_sum<F> op) {
    run_exact(policy, in, out, cuda::scan_kind::inclusive,
              static_cast<const exact_accumulator<F>*>(nullptr), op);
  }
  template <class In, class F>
  static void exclusive(const policy_type& policy, device_span<const In> in, device_span<F> out,
                        exact_accumulator<F> init, exact_sum<F> op) {
    run_exact(policy, in, out, cuda::scan_kind::exclusive, &init, op);
  }

  template <class In, class Out, class... Rest>
  static void inclusive(const policy_type&, std::span<const In>, std::span<Out>, Rest&&...) {
    mpi_cuda_reject_host<In>();
  }
  template <class In, class Out, class... Rest>
  static void exclusive(const policy_type&, std::span<const In>, std::span<Out>, Rest&&...) {
    mpi_cuda_reject_host<In>();
  }

 private:
  /// As `run`, on superaccumulators.
  template <class In, class F>
  static void run_exact(const policy_type& policy, device_span<const In> in, device_span<F> out,
                        cuda::scan_kind kind, const exact_accumulator<F>* init, exact_sum<F> op) {
    namespace md = mpi_detail;
#if !defined(__CUDACC__)
    static_assert(cuda::precompiled_exact_scan_v<In, F>,
                  "parprim exact_plus scans on parprim::mpi(comm).local(parprim::cuda) from a "
                  "translation unit not compiled by nvcc: the parprim::cuda library holds them "
                  "for float and double elements into outputs of the same type");
#endif
    const md::context ctx = md::make_context(policy.communicator());
    const auto local = md::on_local_device(ctx, policy.local_policy());
    std::optional<exact_accumulator<F>> total;
    if (!in.empty() && ctx.rank + 1 < ctx.size)
      total = md::fold_block<exact_accumulator<F>>(local, in, op);
    const std::optional<exact_accumulator<F>> carry = md::exscan_across(ctx, total, op);
    if (in.empty()) return;
    cuda::exact_scan<In, F>(md::launch_of(local), in.data(), out.data(), in.size(), kind, init,
                            carry ? &*carry : nullptr);
  }

  /// Block total (not on the last rank), MPI_Exscan, one GPU scan with the carry folded in.
  template <class In, class Out, class Op>
  static void run(const policy_type& policy, device_span<const In> in, device_span<Out> out,
                  cuda::scan_kind kind, const Out* init, const Op& op) {
    namespace md = mpi_detail;
    md::require_combinable<In, Out, Op>();
    check_cuda_scan_types<In, Out, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    const auto local = md::on_local_device(ctx, policy.local_policy());
    std::optional<Out> total;
    if (!in.empty() && ctx.rank + 1 < ctx.size) total = md::fold_block<Out>(local, in, op);
    const std::optional<Out> carry = md::exscan_across(ctx, total, op);
    if (in.empty()) return;
    cuda::scan<S, In, Out, Op>(md::launch_of(local), in.data(), out.data(), in.size(), kind, init,
                               carry ? &*carry : nullptr, op);
  }
};

template <cuda_reduce_rung R, cuda_scan_rung S>
struct segmented_scan_impl<mpi_policy<basic_cuda_policy<R, S>>> {
  using policy_type = mpi_policy<basic_cuda_policy<R, S>>;

  template <class In, class Flag, class Out, class Op>
  static void inclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const Flag> flags, device_span<Out> out, Op op) {
    run(policy, in, flags, out, cuda::scan_kind::inclusive, static_cast<const Out*>(nullptr), op);
  }

  template <class In, class Flag, class Out, class Op>
  static void exclusive(const policy_type& policy, device_span<const In> in,
                        device_span<const Flag> flags, device_span<Out> out, Out init, Op op) {
    run(policy, in, flags, out, cuda::scan_kind::exclusive, &init, op);
  }

  template <class In, class Flag, class Out, class... Rest>
  static void inclusive(const policy_type&, std::span<const In>, std::span<const Flag>,
                        std::span<Out>, Rest&&...) {
    mpi_cuda_reject_host<In>();
  }
  template <class In, class Flag, class Out, class... Rest>
  static void exclusive(const policy_type&, std::span<const In>, std::span<const Flag>,
                        std::span<Out>, Rest&&...) {
    mpi_cuda_reject_host<In>();
  }

 private:
  /// The block's {value, head} pair (not on the last rank), MPI_Exscan of the pairs, one GPU
  /// segmented scan with the carry's value continuing the block's first segment.
  template <class In, class Flag, class Out, class Op>
  static void run(const policy_type& policy, device_span<const In> in,
                  device_span<const Flag> flags, device_span<Out> out, cuda::scan_kind kind,
                  const Out* init, const Op& op) {
    namespace md = mpi_detail;
    static_assert(sizeof(Flag) == 1, "parprim: head flags are one byte each (std::uint8_t)");
    md::require_combinable<In, Out, Op>();
    check_cuda_scan_types<In, Out, Op>();
    const md::context ctx = md::make_context(policy.communicator());
    const auto local = md::on_local_device(ctx, policy.local_policy());
    const auto* f = reinterpret_cast<const std::uint8_t*>(flags.data());
    std::optional<flagged<Out>> total;
    if (!in.empty() && ctx.rank + 1 < ctx.size) total = md::segmented_total<Out>(local, in, f, op);
    const std::optional<flagged<Out>> carry = md::exscan_segmented(ctx, total, op);
    if (in.empty()) return;
    cuda::segmented_scan<S, In, Out, Op>(md::launch_of(local), in.data(), f, out.data(), in.size(),
                                         kind, init, carry ? &carry->value : nullptr, op);
  }
};

}  // namespace detail

}  // namespace parprim
