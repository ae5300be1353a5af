#pragma once
/// \file
/// \brief Rung 7, the default: the whole array in ONE launch.
///
/// A persistent-style grid (a few blocks per multiprocessor) gives each block one contiguous
/// share of the input. Each block folds its share, reduces it with warp shuffles
/// (block/block_reduce.cuh) and writes one partial; the block that takes the last ticket of an
/// atomic counter (after a `__threadfence`) folds the partials in block order, combines
/// `init` in front, writes the result and resets the counter for the next call. No float
/// atomics: for a given n and GPU the combination tree is fixed, so results repeat bit for bit.
///
/// Two block bodies:
/// - `vectorized`: commutative operators on trivially copyable types whose size divides 16
///   (arithmetic types, and user structs such as {float value; uint32 index} under an arg-min).
///   16-byte loads (`Unroll` of them in flight per thread, coalesced across the warp), a
///   misaligned head and the tail of fewer than one vector done with scalar loads. Without an
///   identity (user operators) each thread starts from its first element.
/// - `ordered`: every other operator and type. Warps take consecutive chunks and lanes runs
///   of consecutive elements, combined in index order: the result is the sequential left fold
///   for any associative operator.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <parprim/backends/cuda/block/block_reduce.cuh>
#include <parprim/backends/cuda/block/load.cuh>
#include <parprim/backends/cuda/detail/completion_signal.cuh>
#include <parprim/backends/cuda/detail/convert.cuh>
#include <parprim/backends/cuda/detail/ordered_key_op.cuh>
#include <parprim/operators.hpp>

namespace parprim::detail::cuda {

/// \brief Tuning of rung 7 for Hopper (sm_90): 256 threads per block, 4 blocks per
/// multiprocessor, 8 16-byte loads in flight per thread: 128 KiB requested per multiprocessor
/// at a time, well above the ~30 KiB that HBM3e's bandwidth x latency asks for.
struct single_pass_tuning {
  static constexpr unsigned block_size = 256;
  static constexpr unsigned blocks_per_sm = 4;
  static constexpr unsigned vectors_in_flight = 8;
  /// Consecutive partials per lane when the last block folds them (all loads in flight).
  static constexpr unsigned partials_run = 4;
  /// float and double minimum / maximum (`T`, `Op`) fold ordered keys (detail/ordered_key_op.cuh:
  /// the unsigned minimum, after a conversion per element) up to this many elements, where each
  /// thread's fold and the block trees are latency bound, and the values with the operator above
  /// (bandwidth bound: the conversions cost more than the cheaper fold saves); float minimum,
  /// whose key is the cheapest, at every size. Measured on the H200 (dev/ab_minmax.cu, device
  /// time): keys 3-10 % faster at 2^16 and 2^20; at 2^24 and 2^27 the values 1-2 % faster for
  /// float64 maximum, within 1 % for the others but float minimum, 3 % faster on keys at 2^24.
  template <class T, class Op>
  static constexpr std::size_t ordered_keys_up_to = sizeof(T) == 4 && std::is_same_v<Op, minimum>
                                                        ? ~std::size_t(0)
                                                        : std::size_t(1) << 22;
};

/// \brief The scratch a single-pass launch uses: one partial per block, the ticket counter
/// (zero between calls) and the result.
template <class T>
struct single_pass_scratch {
  T* partials;
  unsigned* ticket;
  T* result;
  completion_signal signal{};  // written after the result where the host waits for it
};

/// \brief Whether rung 7 takes the vectorized body with an identity: commutative operators with
/// an identity on arithmetic types (the transforms' vectorized body too).
template <class In, class T, class Op>
inline constexpr bool vectorizable_v = [] {
  if constexpr (is_commutative_v<Op> && std::is_arithmetic_v<In> && std::is_arithmetic_v<T> &&
                has_identity_v<Op, T> && 16 % sizeof(In) == 0)
    return std::is_same_v<std::common_type_t<In, T>, T>;
  else
    return false;  // (common_type is not even formed for other types)
}();

/// \brief Whether rung 7 takes the vectorized body without an identity: every other commutative
/// operator on a trivially copyable input whose size divides 16 (user structs of 4, 8 or 16
/// bytes, user operators on built-in types). The input must then be aligned to its size (a
/// struct may be aligned below it); otherwise the call takes the order-preserving body.
template <class In, class T, class Op>
inline constexpr bool vectorizable_without_identity_v =
    !vectorizable_v<In, T, Op> && is_commutative_v<Op> && std::is_trivially_copyable_v<In> &&
    std::is_default_constructible_v<In> && 16 % sizeof(In) == 0 &&
    std::is_constructible_v<T, const In&>;

/// \brief 16 bytes of `In`, loaded with one instruction.
template <class In>
struct alignas(16) vector16 {
  static constexpr unsigned size = 16 / sizeof(In);
  In v[size];
};

/// \brief A 16-byte load through the read-only path.
template <class In>
__device__ __forceinline__ vector16<In> load_vector(const vector16<In>* p) {
  const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
  vector16<In> r;
  memcpy(&r, &raw, sizeof(r));
  return r;
}

/// \brief Element i of an input, converted to the accumulator type.
template <class In, class T>
struct converting_load {
  using element_type = In;
  const In* __restrict__ in;
  __device__ T operator()(std::size_t i) const { return static_cast<T>(in[i]); }
};

/// \brief Element i of a transform view (parprim::transform_reduce): `T(f(in[i]))`.
template <class In, class T, class F>
struct unary_transform_load {
  using element_type = In;
  const In* __restrict__ in;
  F f;
  __device__ T operator()(std::size_t i) const { return static_cast<T>(f(in[i])); }
};

/// \brief Element i of a two-input transform view: `T(f(in1[i], in2[i]))`.
template <class In1, class In2, class T, class F>
struct binary_transform_load {
  using element_type = In1;
  const In1* __restrict__ in1;
  const In2* __restrict__ in2;
  F f;
  __device__ T operator()(std::size_t i) const { return static_cast<T>(f(in1[i], in2[i])); }
};

/// \brief Element i of an array written by other blocks of this grid: read past L1 (`ld.cg`).
template <class T>
struct coherent_load {
  const T* p;
  __device__ T operator()(std::size_t i) const {
    T r;
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
      unsigned w[sizeof(T) / 4];
      const auto* src = reinterpret_cast<const unsigned*>(p + i);
#pragma unroll
      for (unsigned k = 0; k < sizeof(T) / 4; ++k) w[k] = __ldcg(src + k);
      memcpy(&r, w, sizeof(T));
    } else {
      const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p + i);
      unsigned char b[sizeof(T)];
      for (unsigned k = 0; k < sizeof(T); ++k) b[k] = src[k];
      memcpy(&r, b, sizeof(T));
    }
    return r;
  }
};

/// \brief What the result gets for the fold `x`: `x` itself, or for the ordered keys of float
/// and double minimum / maximum (detail/ordered_key_op.cuh) the bits of the key's value.
template <class Op, class T>
__device__ __forceinline__ T stored_result(const T& x) {
  if constexpr (is_ordered_key_op_v<Op>)
    return Op::stored(x);
  else
    return x;
}

/// \brief The end of every single-pass block: publish the block's total, and in the block
/// that finishes last fold all totals in block order and write `op(init, fold)`.
template <unsigned BlockSize, class T, class Op>
__device__ void finish_single_pass(T block_total, single_pass_scratch<T> scratch, T init, Op op,
                                   T* slots) {
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) {
      *scratch.result = stored_result<Op>(static_cast<T>(op(init, block_total)));
      if (scratch.signal.active()) scratch.signal.write();
    }
    return;
  }
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    scratch.partials[blockIdx.x] = block_total;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    is_last = atomicAdd(scratch.ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  const T total = block_fold_range_ordered<BlockSize, single_pass_tuning::partials_run, T>(
      0, gridDim.x, coherent_load<T>{scratch.partials}, op, slots);
  if (threadIdx.x == 0) {
    *scratch.result = stored_result<Op>(static_cast<T>(op(init, total)));
    *scratch.ticket = 0;  // ready for the next launch on this stream
    if (scratch.signal.active()) scratch.signal.write();
  }
}

/// \brief The fold of a thread's round of `Unroll` vectors as a balanced tree: log2 of its
/// elements combinations deep instead of one after the other (the operator is commutative and
/// associative; the tree's shape is fixed, so its results repeat bit for bit). For operators
/// whose combination is a chain of several dependent instructions (a user's arg-min: compares,
/// a tie test, selects of both fields) at sizes where a few blocks run one round each, that
/// chain is the kernel's time: on the H200 the arg-min of 2^16 8-byte structs took 2.4 us more
/// than the sum of the same structs with a thread's 16 elements folded in a row
/// (dev/struct_reduce_probe.cu, ncu).
template <unsigned Unroll, class In, class Convert, class Op>
__device__ __forceinline__ auto fold_round_as_tree(const vector16<In> (&x)[Unroll],
                                                   const Convert& convert, const Op& op) {
  constexpr unsigned width = vector16<In>::size;
  constexpr unsigned count = Unroll * width;
  using T = decltype(convert(x[0].v[0]));
  T t[count];
#pragma unroll
  for (unsigned u = 0; u < Unroll; ++u)
#pragma unroll
    for (unsigned k = 0; k < width; ++k) t[u * width + k] = convert(x[u].v[k]);
#pragma unroll
  for (unsigned stride = 1; stride < count; stride *= 2)
#pragma unroll
    for (unsigned j = 0; j + stride < count; j += 2 * stride)
      t[j] = static_cast<T>(op(t[j], t[j + stride]));
  return t[0];
}

/// \brief Rung 7, vectorized body. Block b folds vectors [b * per_block, (b + 1) * per_block)
/// of the aligned middle of the input; block 0 also folds the misaligned head and the tail
/// (`in` is aligned to sizeof(In)). Each element becomes a `T` through `convert` (detail/
/// convert.cuh: a cast, or a transform). With `Identity` every thread starts from `identity`
/// and folds its elements in a row; without (the user's commutative operators), from its first
/// element (`identity` is then unused), each full round folded as a tree
/// (`fold_round_as_tree`), and the block folds the threads that have one: a prefix of the
/// block.
template <unsigned BlockSize, unsigned Unroll, bool Identity, class In, class T, class Op,
          class Convert>
__global__ void __launch_bounds__(BlockSize, single_pass_tuning::blocks_per_sm)
    reduce_vectorized_single_pass_kernel(const In* __restrict__ in, std::size_t n,
                                         std::size_t per_block, single_pass_scratch<T> scratch,
                                         T init, T identity, Op op, Convert convert) {
  using vec = vector16<In>;
  constexpr unsigned width = vec::size;
  __shared__ warp_slots<T, BlockSize> slots;

  const std::size_t misaligned = (16 - reinterpret_cast<std::uintptr_t>(in) % 16) % 16 / sizeof(In);
  const std::size_t head = misaligned < n ? misaligned : n;
  const vec* body = reinterpret_cast<const vec*>(in + head);
  const std::size_t vectors = (n - head) / width;
  const std::size_t tail = head + vectors * width;

  T acc = identity;
  bool has = Identity;  // without an identity: whether acc holds an element yet
  const auto fold = [&](const T& x) {
    if constexpr (Identity) {
      acc = static_cast<T>(op(acc, x));
    } else {
      acc = has ? static_cast<T>(op(acc, x)) : x;
      has = true;
    }
  };
  const std::size_t first = std::size_t(blockIdx.x) * per_block;
  const std::size_t last = first + per_block < vectors ? first + per_block : vectors;
  std::size_t i = first + threadIdx.x;
  for (; i + (Unroll - 1) * BlockSize < last; i += Unroll * BlockSize) {
    vec x[Unroll];
#pragma unroll
    for (unsigned u = 0; u < Unroll; ++u) x[u] = load_vector(body + i + u * BlockSize);
    if constexpr (Identity) {
#pragma unroll
      for (unsigned u = 0; u < Unroll; ++u)
#pragma unroll
        for (unsigned k = 0; k < width; ++k) fold(convert(x[u].v[k]));
    } else {
      fold(fold_round_as_tree(x, convert, op));
    }
  }
  if (i < last) {  // the block's last, partial round: predicated loads, still all in flight
    vec x[Unroll];
#pragma unroll
    for (unsigned u = 0; u < Unroll; ++u)
      if (i + u * BlockSize < last) x[u] = load_vector(body + i + u * BlockSize);
#pragma unroll
    for (unsigned u = 0; u < Unroll; ++u)
      if (i + u * BlockSize < last)
#pragma unroll
        for (unsigned k = 0; k < width; ++k) fold(convert(x[u].v[k]));
  }
  // Threads [0, valid) hold elements: those of the first round, and in block 0 the head's
  // and the tail's (each a prefix of the block).
  std::size_t valid = last > first ? (last - first < BlockSize ? last - first : BlockSize) : 0;
  if (blockIdx.x == 0) {
    if (threadIdx.x < head) fold(convert(in[threadIdx.x]));
    if (tail + threadIdx.x < n) fold(convert(in[tail + threadIdx.x]));
    valid = valid > head ? valid : head;
    valid = valid > n - tail ? valid : n - tail;
  }
  const T total = block_reduce_ordered<BlockSize>(
      acc, Identity ? BlockSize : static_cast<unsigned>(valid), op, slots.get());
  __syncthreads();  // the slots are reused by the last block
  finish_single_pass<BlockSize>(total, scratch, init, op, slots.get());
}

/// \brief Rung 7, order-preserving body: block b folds elements [b * per_block,
/// min(n, (b + 1) * per_block)) in index order (never empty).
/// `Load` gives element i as a `T` (converting_load, or a transform's load).
template <unsigned BlockSize, unsigned Run, class Load, class T, class Op>
__global__ void __launch_bounds__(BlockSize, single_pass_tuning::blocks_per_sm)
    reduce_ordered_single_pass_kernel(Load load, std::size_t n, std::size_t per_block,
                                      single_pass_scratch<T> scratch, T init, Op op) {
  __shared__ warp_slots<T, BlockSize> slots;
  const std::size_t first = std::size_t(blockIdx.x) * per_block;
  const std::size_t last = n - first < per_block ? n : first + per_block;
  const T total = block_fold_range_ordered<BlockSize, Run, T>(first, last, load, op, slots.get());
  __syncthreads();
  finish_single_pass<BlockSize>(total, scratch, init, op, slots.get());
}

/// \brief Consecutive elements per lane in the ordered body: 16 bytes' worth, 1 to 8.
template <class In>
inline constexpr unsigned ordered_run_v =
    sizeof(In) >= 16 ? 1u : (16 / sizeof(In) > 8 ? 8u : static_cast<unsigned>(16 / sizeof(In)));

}  // namespace parprim::detail::cuda
