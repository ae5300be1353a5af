#pragma once
/// \file
/// \brief Host side of the reduction ladder: grid sizes, temporary storage, launches, result.
/// Written once for all rungs, in two layers:
///
/// - a *driver* plans one call (grid sizes, bytes of scratch) and `enqueue`s its kernels on a
///   stream, writing the result to a device pointer, with no host synchronisation:
///   `multi_pass` runs any shared-memory rung (1-6) pass after pass until one value is left;
///   `single_pass` runs rung 7;
/// - two runners wrap any driver: `run_synchronous` (what `parprim::reduce` does: lease the
///   scratch, enqueue into a slot of it, copy the value to the host, synchronise) and
///   `run_into` (`reduce_into`: enqueue into the caller's device pointer, then wait or, with a
///   `nosync` policy, return). Both launch through the same `enqueue`: one code path.

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include <parprim/backends/cuda/detail/device_guard.hpp>
#include <parprim/backends/cuda/detail/error.hpp>
#include <parprim/backends/cuda/detail/ordered_key_op.cuh>
#include <parprim/backends/cuda/detail/reduce_entry.hpp>
#include <parprim/backends/cuda/detail/temp_storage.hpp>
#include <parprim/backends/cuda/kernels/reduce_tree.cuh>
#include <parprim/backends/cuda/kernels/reduce_vectorized_single_pass.cuh>
#include <parprim/error.hpp>

namespace parprim::detail::cuda {

/// \brief `bytes` rounded up to a multiple of 256 (the alignment of every scratch array).
constexpr std::size_t align256(std::size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

/// \brief Throws if a grid would exceed CUDA's limit of 2^31 - 1 blocks.
inline unsigned checked_grid(std::size_t blocks) {
  if (blocks > static_cast<std::size_t>(INT_MAX))
    throw invalid_argument("parprim::reduce(parprim::cuda): " + std::to_string(blocks) +
                           " blocks exceed CUDA's grid limit");
  return static_cast<unsigned>(blocks);
}

/// \brief `kernel<<<grid, block, shared_bytes, stream>>>(args...)`, checked (the launch's own
/// status, not `cudaGetLastError`, which would also report an earlier, unrelated failure);
/// `dependent`: a programmatic dependent launch (detail/dependent_launch.cuh).
template <class... Params, class... Args>
void launch_kernel(bool dependent, void (*kernel)(Params...), std::size_t grid, unsigned block,
                   std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(checked_grid(grid));
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = dependent ? &attribute : nullptr;
  config.numAttrs = dependent ? 1 : 0;
  PARPRIM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

/// \brief Launches `kernel<<<grid, block, shared_bytes, stream>>>(args...)`, checked.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), std::size_t grid, unsigned block, std::size_t shared_bytes,
            cudaStream_t stream, Args&&... args) {
  launch_kernel(false, kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

/// \brief Lets `kernel` use `bytes` of dynamic shared memory on the current device (above the
/// 48 KiB a launch may ask for without it).
template <class... Params>
void allow_dynamic_shared(void (*kernel)(Params...), std::size_t bytes) {
  PARPRIM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
}

/// \brief Rungs 1-6: pass 0 reduces the n inputs to one partial per block, each later pass
/// the partials of the one before, until one block is left; that pass combines `init` in
/// front and writes to `out`. Partials ping-pong between two scratch arrays.
template <class Rung, class In, class T, class Op>
class multi_pass {
 public:
  static constexpr unsigned block = Rung::block_size;
  static constexpr std::size_t shared_bytes = block * sizeof(T);
  static_assert(shared_bytes <= 48 * 1024, "the rung's shared memory exceeds 48 KiB for this type");
  using loader = typename Rung::loader;

  /// \brief The plan for n >= 1 elements on `device`.
  multi_pass(std::size_t n, int /*device*/)
      : n_(n), g0_(loader::grid(n, block)), bytes_a_(align256(g0_ * sizeof(T))) {
    const std::size_t g1 = g0_ > 1 ? loader::grid(g0_, block) : 0;
    bytes_ = bytes_a_ + align256(g1 * sizeof(T));
  }
  /// \return the device scratch the passes need (256-byte aligned)
  std::size_t scratch_bytes() const noexcept { return bytes_; }

  /// \brief Enqueues every pass on `stream`; the last writes `init op fold(in)` to `*out`.
  /// No host synchronisation. The ticket is not used.
  void enqueue(const In* in, T init, Op op, void* scratch, unsigned* /*ticket*/, T* out,
               cudaStream_t stream) const {
    T* src = static_cast<T*>(scratch);
    T* dst = reinterpret_cast<T*>(static_cast<unsigned char*>(scratch) + bytes_a_);
    launch(reduce_tree_kernel<Rung, In, T, Op>, g0_, block, shared_bytes, stream, in, n_,
           g0_ == 1 ? out : src, init, g0_ == 1, op);
    for (std::size_t m = g0_; m > 1;) {
      const std::size_t g = loader::grid(m, block);
      launch(reduce_tree_kernel<Rung, T, T, Op>, g, block, shared_bytes, stream,
             static_cast<const T*>(src), m, g == 1 ? out : dst, init, g == 1, op);
      std::swap(src, dst);
      m = g;
    }
  }

 private:
  std::size_t n_;
  std::size_t g0_;
  std::size_t bytes_a_;
  std::size_t bytes_ = 0;
};

/// \brief The order-preserving single-pass shape for elements of `In`: each block a whole
/// number of warp runs, at most `max_grid` blocks.
template <class In>
void ordered_shape(std::size_t n, std::size_t max_grid, std::size_t& grid, std::size_t& per_block) {
  constexpr std::size_t tile = std::size_t(warp_threads) * ordered_run_v<In>;
  per_block = ceil_div(ceil_div(n, max_grid), tile) * tile;
  grid = ceil_div(n, per_block);
}

/// \brief Rung 7: one launch. The grid is a few blocks per multiprocessor (fewer when n is
/// small); each block gets one contiguous share. Uses the lease's ticket (zero when the kernel
/// starts; the kernel's last block sets it back to zero).
template <class In, class T, class Op>
class single_pass {
 public:
  using tuning = single_pass_tuning;
  static constexpr unsigned block = tuning::block_size;

  static constexpr bool vectorized = vectorizable_v<In, T, Op>;
  static constexpr bool vectorized_without_identity = vectorizable_without_identity_v<In, T, Op>;
  /// float and double minimum / maximum, read unconverted: the vectorized body on ordered keys
  /// up to tuning::ordered_keys_up_to<T, Op> elements
  static constexpr bool on_keys =
      vectorized && std::is_same_v<In, T> && ordered_key_operator_v<Op, T>;

  /// \brief The plan for n >= 1 elements on `device`.
  single_pass(std::size_t n, int device) : n_(n) {
    const std::size_t max_grid =
        static_cast<std::size_t>(multiprocessor_count(device)) * tuning::blocks_per_sm;
    if constexpr (vectorized || vectorized_without_identity) {
      const std::size_t vectors = n / vector16<In>::size;  // upper bound of the aligned middle
      const std::size_t round = std::size_t(block) * tuning::vectors_in_flight;
      const std::size_t rounds = ceil_div(vectors, round);
      grid_ = rounds < max_grid ? (rounds > 0 ? rounds : 1) : max_grid;
      per_block_ = ceil_div(rounds, grid_) * round;
      grid_ = vectors > 0 ? ceil_div(vectors, per_block_) : 1;
    }
    // the order-preserving body: every other type, and inputs aligned below their size
    if constexpr (!vectorized) ordered_shape<In>(n, max_grid, ordered_grid_, ordered_per_block_);
  }
  /// \return the device scratch: one partial per block (256-byte aligned)
  std::size_t scratch_bytes() const noexcept {
    return align256((grid_ > ordered_grid_ ? grid_ : ordered_grid_) * sizeof(T));
  }

  /// \brief A one-input transform through the vectorized body (vectorizable types only): the
  /// same loads, each element becoming `T(f(x))`.
  template <class F>
  requires vectorizable_v<In, T, Op>
  void enqueue(const unary_transform_load<In, T, F>& load, T init, Op op, void* scratch,
               unsigned* ticket, T* out, cudaStream_t stream, completion_signal signal = {}) const {
    const single_pass_scratch<T> s{static_cast<T*>(scratch), ticket, out, signal};
    using convert = transform_convert<T, F>;
    launch(reduce_vectorized_single_pass_kernel<block, tuning::vectors_in_flight, true, In, T, Op,
                                                convert>,
           grid_, block, 0, stream, load.in, n_, per_block_, s, init, identity_v<Op, T>(), op,
           convert{load.f});
  }

  /// \brief Enqueues the one launch on `stream`; it writes `init op fold(in)` to `*out`, then
  /// `signal`'s word where it is active. No host synchronisation.
  void enqueue(const In* in, T init, Op op, void* scratch, unsigned* ticket, T* out,
               cudaStream_t stream, completion_signal signal = {}) const {
    const single_pass_scratch<T> s{static_cast<T*>(scratch), ticket, out, signal};
    if constexpr (on_keys) {
      if (n_ <= tuning::template ordered_keys_up_to<T, Op>) {
        keys_enqueue(in, init, scratch, ticket, out, stream, signal);
        return;
      }
    }
    if constexpr (vectorized) {
      launch(reduce_vectorized_single_pass_kernel<block, tuning::vectors_in_flight, true, In, T, Op,
                                                  static_convert<T>>,
             grid_, block, 0, stream, in, n_, per_block_, s, init, identity_v<Op, T>(), op,
             static_convert<T>{});
      return;
    } else if constexpr (vectorized_without_identity) {
      if (reinterpret_cast<std::uintptr_t>(in) % sizeof(In) == 0) {
        launch(reduce_vectorized_single_pass_kernel<block, tuning::vectors_in_flight, false, In, T,
                                                    Op, static_convert<T>>,
               grid_, block, 0, stream, in, n_, per_block_, s, init, init, op, static_convert<T>{});
        return;
      }
    }
    if constexpr (!vectorized) {
      using load = converting_load<In, T>;
      launch(reduce_ordered_single_pass_kernel<block, ordered_run_v<In>, load, T, Op>,
             ordered_grid_, block, 0, stream, load{in}, n_, ordered_per_block_, s, init, op);
    }
  }

 private:
  /// \brief The vectorized body on the elements' ordered keys (minimum / maximum of float or
  /// double; detail/ordered_key_op.cuh): it writes the bits of the result's value into *out.
  void keys_enqueue(const In* in, T init, void* scratch, unsigned* ticket, T* out,
                    cudaStream_t stream, completion_signal signal) const {
    using key_op = ordered_key_op_for<Op, T>;
    using K = typename key_op::key_type;
    const single_pass_scratch<K> ks{static_cast<K*>(scratch), ticket, reinterpret_cast<K*>(out),
                                    signal};
    using convert = ordered_key_convert<std::is_same_v<Op, maximum>, T>;
    launch(reduce_vectorized_single_pass_kernel<block, tuning::vectors_in_flight, true, In, K,
                                                key_op, convert>,
           grid_, block, 0, stream, in, n_, per_block_, ks, key_op::key::of(init),
           identity_v<key_op, K>(), key_op{}, convert{});
  }

  std::size_t n_;
  std::size_t grid_ = 1;  // the vectorized body's
  std::size_t per_block_ = 0;
  std::size_t ordered_grid_ = 0;  // the order-preserving body's (0: never taken)
  std::size_t ordered_per_block_ = 0;
};

/// \brief The synchronous call (`parprim::reduce`): `init op in[0] op ... op in[n-1]` with
/// `Driver`, for n >= 1. The last kernel writes the result straight into the lease's pinned,
/// mapped host slot, so the call is the launches and one stream synchronisation: no copy
/// after the kernel (at n = 2^20 that copy's launch and round trip were a third of the call).
/// The lease is held until the stream was synchronised.
/// \brief The transforms' driver (parprim::transform_reduce): rung 7's order-preserving body,
/// one launch, reading element i as `load(i)` (a transform's load: `T(f(in[i]))` or
/// `T(f(in1[i], in2[i]))`). Any operator, commutative or not; the policy's reduce rung does not
/// apply.
template <class Load, class T, class Op>
class transform_single_pass {
 public:
  static constexpr unsigned block = single_pass_tuning::block_size;
  using element_type = typename Load::element_type;

  transform_single_pass(std::size_t n, int device) : n_(n) {
    ordered_shape<element_type>(
        n,
        static_cast<std::size_t>(multiprocessor_count(device)) * single_pass_tuning::blocks_per_sm,
        grid_, per_block_);
  }
  std::size_t scratch_bytes() const noexcept { return align256(grid_ * sizeof(T)); }

  void enqueue(const Load& load, T init, Op op, void* scratch, unsigned* ticket, T* out,
               cudaStream_t stream, completion_signal signal = {}) const {
    const single_pass_scratch<T> s{static_cast<T*>(scratch), ticket, out, signal};
    launch(reduce_ordered_single_pass_kernel<block, ordered_run_v<element_type>, Load, T, Op>,
           grid_, block, 0, stream, load, n_, per_block_, s, init, op);
  }

 private:
  std::size_t n_;
  std::size_t grid_ = 1;
  std::size_t per_block_ = 0;
};

/// \brief A synchronous call's completion signal: what its kernel writes and what the host
/// waits for (completion_signal.cuh), or neither.
struct completion {
  completion_signal kernel;
  completion_wait host;
  /// \brief Waits for the signal where there is one, else for the stream.
  void wait_or_synchronize(cudaStream_t stream) const {
    if (host.word != nullptr)
      host(stream);
    else
      PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

/// \brief The completion signal of a synchronous call in the cache's mapped host memory, for a
/// kernel that writes it: none without that memory (a memory resource, or a call that asked
/// for no host slot), while the stream is captured into a graph (nothing runs), or where the
/// device's host threads block in synchronisations (`cudaDeviceScheduleBlockingSync`: a spin
/// would defeat that choice).
inline completion completion_for(const call_scratch& scratch, cudaStream_t stream) {
  unsigned* const word = scratch.signal_word();
  if (word == nullptr) return {};
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  PARPRIM_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return {};
  unsigned flags = 0;
  PARPRIM_CUDA_CHECK(cudaGetDeviceFlags(&flags));
  if ((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync) return {};
  const unsigned last = *static_cast<volatile unsigned*>(word);
  const unsigned value = last + 1 == 0 ? 1 : last + 1;
  return {completion_signal{scratch.done_counter(), scratch.signal_word_device(), value},
          completion_wait{word, value}};
}

/// \brief Checks that what a driver reads is device memory: an input pointer, or the inputs
/// of a transform's load.
template <class In>
void check_source(const In* in) {
  check_device_pointer(in, "reduce", "the input");
}
template <class In, class T, class F>
void check_source(const unary_transform_load<In, T, F>& load) {
  check_device_pointer(load.in, "transform_reduce", "the input");
}
template <class In1, class In2, class T, class F>
void check_source(const binary_transform_load<In1, In2, T, F>& load) {
  check_device_pointer(load.in1, "transform_reduce", "the first input");
  check_device_pointer(load.in2, "transform_reduce", "the second input");
}

/// \brief Runs `Driver` over `source` (an input pointer, or a transform's load) and returns
/// the result on the host. With the cache, the result goes to its mapped host slot, so the call
/// is the launches and one stream synchronisation; with a memory resource, or a result larger
/// than the slot's 256 bytes (e.g. exact_plus's superaccumulator of doubles), to device memory
/// behind the driver's scratch and back by one copy.
template <class Driver, class Source, class T, class Op>
T run_synchronous(const launch_options& options, const Source& source, std::size_t n, T init,
                  Op op) {
  device_guard guard(options.device);
  check_stream(options.stream, guard.device(), "reduce");
  check_source(source);
  const auto stream = static_cast<cudaStream_t>(options.stream);
  const Driver driver(n, guard.device());
  constexpr bool in_slot = sizeof(T) <= call_scratch::result_slot_bytes;
  const std::size_t driver_bytes = driver.scratch_bytes();
  call_scratch scratch(guard.device(), options.stream, options.memory,
                       driver_bytes + (in_slot ? 0 : align256(sizeof(T))), 0, 0, in_slot);
  T* result = in_slot ? static_cast<T*>(scratch.result_slot())
                      : reinterpret_cast<T*>(static_cast<unsigned char*>(scratch.device_scratch()) +
                                             driver_bytes);
  // Drivers whose kernel writes the result last (rung 7) signal the host when it is there.
  constexpr bool signals = requires {
    driver.enqueue(source, init, op, scratch.device_scratch(), scratch.ticket(), result, stream,
                   completion_signal{});
  };
  completion signal;  // none without the host slot (a larger result, or a memory resource)
  if constexpr (signals) {
    signal = completion_for(scratch, stream);
    driver.enqueue(source, std::move(init), op, scratch.device_scratch(), scratch.ticket(), result,
                   stream, signal.kernel);
  } else {
    driver.enqueue(source, std::move(init), op, scratch.device_scratch(), scratch.ticket(), result,
                   stream);
  }
  T r;
  if (scratch.host_slot() == nullptr)
    PARPRIM_CUDA_CHECK(
        cudaMemcpyAsync(static_cast<void*>(&r), result, sizeof(T), cudaMemcpyDeviceToHost, stream));
  signal.wait_or_synchronize(stream);
  scratch.finished_cleanly();
  if (scratch.host_slot() != nullptr)
    std::memcpy(static_cast<void*>(&r), scratch.host_slot(), sizeof(T));
  return r;
}

/// \brief Writes `value` to `*out` (the reduction into device memory of an empty range).
template <class T>
__global__ void store_value_kernel(T* out, T value) {
  *out = value;
}

/// \brief Whether the handle `stream` names a different stream in each host thread:
/// `cudaStreamPerThread`, or the default handle in a translation unit built with
/// `--default-stream per-thread`. Calls from two threads then share one temporary-storage
/// entry (it is keyed by the handle) but not one stream order.
inline bool per_thread_stream_handle(cudaStream_t stream) noexcept {
  if (stream == cudaStreamPerThread) return true;
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM) || defined(__CUDART_API_PER_THREAD_DEFAULT_STREAM)
  if (stream == nullptr) return true;
#endif
  return false;
}

/// \brief Ends a call whose work is enqueued: a synchronous one waits for `signal`'s word, or
/// for its stream where there is none; a `nosync` one returns at once, except on a per-thread
/// stream handle with the cache (see run_into), where it waits too.
inline void finish_call(const launch_options& options, call_scratch& scratch,
                        const completion& signal = {}) {
  const auto stream = static_cast<cudaStream_t>(options.stream);
  if (options.sync || (options.memory == nullptr && per_thread_stream_handle(stream)))
    signal.wait_or_synchronize(stream);
  scratch.finished_cleanly();
}

/// \brief The address range a source reads, for the overlap check of run_into.
template <class In>
std::pair<std::uintptr_t, std::uintptr_t> source_bytes(const In* in, std::size_t n) {
  const auto b = reinterpret_cast<std::uintptr_t>(in);
  return {b, b + n * sizeof(In)};
}
template <class Load>
std::pair<std::uintptr_t, std::uintptr_t> source_bytes(const Load&, std::size_t) {
  return {0, 0};  // a transform's inputs: checked by the front end
}

/// \brief parprim::reduce_into (and transform_reduce_into): enqueues
/// `init op in[0] op ... op in[n-1]` with `Driver` on the options' stream, the result written
/// to the device pointer `out` (n == 0: a one-thread kernel stores `init`); a synchronous
/// policy then waits for the stream, a `nosync` one returns.
///
/// Why a `nosync` call may release the cache's scratch before the work is done. The lease is a
/// lock on the (device, stream-handle) entry of the temporary-storage cache; it is held only
/// while the kernels are enqueued. Everything that can touch the entry's scratch and ticket
/// afterwards is ordered behind the work already enqueued:
/// - a later call with the same handle (from this thread or another: the lock orders the
///   launches) enqueues on the same stream, so its kernels start after ours have finished
///   (stream order); the partials are rewritten only then, and the ticket, which our rung-7
///   kernel's last block sets back to zero, is zero when the next kernel starts (and so when
///   a captured graph is replayed). (A kernel that faults leaves the context unusable, so nothing
///   runs after it.)
/// - a synchronous call with the same handle is a later call on the same stream, as above; it
///   synchronises the stream, which waits for our work too.
/// - growing the scratch frees the old block with `cudaFree`, which synchronises the whole
///   device (CUDA Programming Guide, "Stream-Ordered Memory Allocator": cudaMalloc/cudaFree
///   "cause the GPU to synchronize across all executing CUDA streams"), so no enqueued kernel
///   still reads or writes the freed block.
/// - calls with another handle use another entry (other scratch, other ticket).
/// Two cases break "same handle, same stream order", and for them the call waits for its work
/// before it releases the lease (it is then synchronous, still correct): `cudaStreamPerThread`
/// (and the default handle under `--default-stream per-thread`), which name a different stream
/// in each thread. Not covered: destroying a stream while its work is in flight and getting the
/// same handle back from a later cudaStreamCreate; synchronise a stream before destroying it.
/// With a memory resource nothing is shared: the block is the call's own, given back in stream
/// order.
///
/// `out` must be device (or managed, or pinned) memory outside the input; it is written once,
/// by the last kernel. Errors of the launches raise parprim::cuda_error here; errors while the
/// kernels run surface at the synchronisation (the caller's, for `nosync`).
template <class Driver, class Source, class T, class Op>
void run_into(const launch_options& options, const Source& source, std::size_t n, T* out, T init,
              Op op, const char* fn) {
  device_guard guard(options.device);
  check_stream(options.stream, guard.device(), fn);
  if (out == nullptr)
    throw invalid_argument(std::string("parprim::") + fn + ": the result pointer is null");
  check_device_pointer(out, fn, "the result");
  const auto stream = static_cast<cudaStream_t>(options.stream);
  if (n > 0) {
    if constexpr (std::is_pointer_v<Source>)
      if (source == nullptr)
        throw invalid_argument(std::string("parprim::") + fn +
                               ": the input is null but n = " + std::to_string(n));
    check_source(source);
    const auto [in_begin, in_end] = source_bytes(source, n);
    const auto out_begin = reinterpret_cast<std::uintptr_t>(out);
    if (out_begin < in_end && in_begin < out_begin + sizeof(T))
      throw invalid_argument(std::string("parprim::") + fn + ": the result overlaps the input");
  }
  if (n == 0) {
    launch(store_value_kernel<T>, 1, 1, 0, stream, out, std::move(init));
    if (options.sync) PARPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  const Driver driver(n, guard.device());
  call_scratch scratch(guard.device(), options.stream, options.memory, driver.scratch_bytes(), 0, 0,
                       false);
  driver.enqueue(source, std::move(init), op, scratch.device_scratch(), scratch.ticket(), out,
                 stream);
  finish_call(options, scratch);
}

}  // namespace parprim::detail::cuda
