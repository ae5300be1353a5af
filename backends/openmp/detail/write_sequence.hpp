#pragma once
/// \file
/// \brief Writes a scan's output in order, with non-temporal (streaming) stores for large
/// outputs of 4- and 8-byte arithmetic types on x86-64. A normal store first reads the line it
/// writes (read for ownership): a scan then moves 3 bytes per output byte through memory; a
/// streaming store skips that read and leaves the cache to the input, so 2.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <parprim/detail/accumulating.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parprim::openmp::detail {

/// \brief Outputs at least this large (bytes, whole call) are written with streaming stores:
/// they cannot stay in the last-level cache anyway. Smaller ones stay cached for the caller.
#if defined(PARPRIM_OMP_STREAM_THRESHOLD_BYTES)
inline constexpr std::size_t stream_threshold_bytes = PARPRIM_OMP_STREAM_THRESHOLD_BYTES;
#else
inline constexpr std::size_t stream_threshold_bytes = std::size_t{128} << 20;
#endif

/// \brief Streaming pays only when several threads share the memory bus and the output is too
/// large to stay cached: 16 threads on the 16-core host, 2^28 int32, 25.7-27.4 ms against 32.2
/// without (docs/openmp.md). One thread is latency-bound and writes through the cache. Two
/// threads of a plain scan lost to the cached stores on the 2-core development machine (2^26
/// int32, 128 KiB a thread and round: 19.2-19.6 ms against 17.2-17.4; 1 MiB: 19.1-19.2 against
/// 15.0), so from 4 threads on. The same holds for an `accumulating` operator's block scan (the
/// exact sums), which writes its outputs itself where they are not streamed
/// (sequence_store::direct): 2 threads on the 2-core machine, float64 2^24, 13.1-13.5 ms cached
/// against 15.3-15.7 streamed; 2^28 206-208 against 248-259, float32 116-121 against 132-133
/// (docs/results/dev-2core/README.md). (Before the direct writes, when both copied the
/// outputs from a buffer, the streamed copy won from 2 threads.)
inline bool use_streaming(int team, std::size_t out_bytes) {
  return team >= 4 && out_bytes >= stream_threshold_bytes;
}

template <class T>
inline constexpr bool streamable_v =
#if defined(__SSE2__)
    std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
#else
    false;
#endif

/// \brief write_sequence, and with `Stateful` write_sequence_stateful (which returns `next`).
template <bool Stateful, class Out, class Next>
auto write_sequence_impl(Out* out, std::size_t b, std::size_t e, bool stream, Next next) {
  std::size_t i = b;
#if defined(__SSE2__)
  if constexpr (streamable_v<Out>) {
    if (stream) {
      constexpr std::size_t group = 64 / sizeof(Out);
      for (; i < e && reinterpret_cast<std::uintptr_t>(out + i) % 64 != 0; ++i) out[i] = next(i);
      for (; i + group <= e; i += group) {
        alignas(64) Out buf[group];
        for (std::size_t j = 0; j < group; ++j) buf[j] = next(i + j);
        auto* dst = reinterpret_cast<__m128i*>(out + i);
        const auto* src = reinterpret_cast<const __m128i*>(buf);
        for (std::size_t k = 0; k < 4; ++k) _mm_stream_si128(dst + k, _mm_load_si128(src + k));
      }
      for (; i < e; ++i) out[i] = next(i);
      _mm_sfence();
      if constexpr (Stateful)
        return next;
      else
        return;
    }
  }
#else
  static_cast<void>(stream);
#endif
  for (; i < e; ++i) out[i] = next(i);
  if constexpr (Stateful) return next;
}

/// \brief `out[i] = next(i)` for i in [b, e), in increasing i. `next` may read the input at
/// index i (in-place scans): a 64-byte group is computed before any of it is stored.
/// \param stream  use streaming stores (see stream_threshold_bytes); ends with a store fence
template <class Out, class Next>
void write_sequence(Out* out, std::size_t b, std::size_t e, bool stream, Next next) {
  write_sequence_impl<false>(out, b, e, stream, std::move(next));
}

/// \brief As write_sequence, and returns `next` as it is after the last call: a stateful `next`
/// (a running value) hands its state back by value, which keeps it in registers where a
/// reference to it would keep it in memory. (Not a return value of write_sequence itself: with
/// one, GCC compiled the exclusive segmented scans' restart, in write_sequence's callers, with
/// a branch again.)
template <class Out, class Next>
Next write_sequence_stateful(Out* out, std::size_t b, std::size_t e, bool stream, Next next) {
  return write_sequence_impl<true>(out, b, e, stream, std::move(next));
}

/// \brief Stores a piece of a block's outputs computed elsewhere (an accumulating operator's
/// block scan, detail/accumulating.hpp) with write_sequence: streaming when `stream`.
template <class Out>
struct sequence_store {
  Out* out;
  bool stream;
  void operator()(std::size_t k, const Out* values, std::size_t count) const {
    write_sequence(out, k, k + count, stream, [values, k](std::size_t i) { return values[i - k]; });
  }
  /// \brief Where cached stores would do (not streaming) and the inputs are elsewhere, the block
  /// step writes into `out` itself (a copy of the piece less; parprim::detail::copy_to).
  Out* direct(std::size_t k, std::size_t count, const void* input, std::size_t bytes) const {
    return stream ? nullptr : parprim::detail::copy_to<Out>{out}.direct(k, count, input, bytes);
  }
};

}  // namespace parprim::openmp::detail
