/// \file
/// \brief The CUDA per-segment benchmarks: parprim::segmented_reduce (offsets and head flags) and
/// parprim::reduce_by_key through the public API from a plain C++ file (precompiled
/// instantiations), their offsets (made on the host), the host check and the timing loop, and
/// the registration of every row, the CUB anchors of segments_cub.cu included. Names and
/// method: segments_bench.hpp. parprim::inclusive_scan_by_key's row is registered by
/// scan_ladder.cpp, beside CUB's InclusiveSumByKey.
///
/// Registration order is (type, n, segment length) outermost and competitor innermost, so each
/// input set (values; offsets, flags and keys) is made once and every competitor of that set
/// reads the same buffers one after the other.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <parprim/parprim.hpp>

#include "../common.hpp"
#include "scan_bench.hpp"
#include "segments_bench.hpp"

namespace parprim_bench::cuda {
namespace {

/// \brief The seed of the mixed lengths (random_bits of bench/common.hpp).
constexpr std::uint64_t mixed_seed = 0x5e6e17;

/// \brief The k + 1 begin offsets of segments of `length` (segments_bench.hpp) over n elements.
std::vector<std::int32_t> make_offsets(std::size_t n, std::size_t length) {
  std::vector<std::int32_t> o;
  if (length == one_segment) {
    o = {0, static_cast<std::int32_t>(n)};
  } else if (length == mixed_lengths) {
    o.push_back(0);
    for (std::uint64_t s = 0, at = 0; at < n; ++s) {
      const double u = static_cast<double>(random_bits(mixed_seed, s) >> 11) * 0x1p-53;
      const auto len = 1 + static_cast<std::uint64_t>(std::exp2(17.0 * u));  // 1 + floor(2^17u)
      at = std::min<std::uint64_t>(n, at + len);
      o.push_back(static_cast<std::int32_t>(at));
    }
  } else {
    const std::size_t k = (n + length - 1) / length;
    o.resize(k + 1);
    for (std::size_t s = 0; s <= k; ++s) o[s] = static_cast<std::int32_t>(std::min(s * length, n));
  }
  return o;
}

/// \brief A host copy of inputs_for<T>(n)'s values (every rotated buffer holds the same), made
/// on first use; one n at a time.
template <class T>
const std::vector<T>* host_values(std::size_t n) {
  static std::size_t made_for = 0;
  static std::vector<T> values;
  if (made_for != n) {
    made_for = 0;
    values.assign(n, T{});
    const auto& in = inputs_for<T>(n);
    if (cudaMemcpy(values.data(), in.buffers[0], n * sizeof(T), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return nullptr;
    made_for = n;
  }
  return &values;
}

/// \brief The one live set of segments: the host offsets, the reference sums and the rotated
/// device copies of the offsets (both made on first use).
template <class T>
struct segment_case {
  std::size_t n = 0, length = 0;
  std::vector<std::int32_t> offsets;  // k + 1
  std::vector<T> sums;                // k, empty until made
  std::vector<void*> device;          // rotated device offsets, empty until made
  std::vector<const std::int32_t*> device_view;
  ~segment_case() { release_device(); }
  void release_device() {
    for (void* p : device) cudaFree(p);
    device.clear();
    device_view.clear();
  }
  std::size_t segments() const { return offsets.size() - 1; }
};

template <class T>
segment_case<T>& case_for(std::size_t n, std::size_t length) {
  static segment_case<T> c;
  if (c.n != n || c.length != length || c.offsets.empty()) {
    c.release_device();
    c.sums.clear();
    c.offsets = make_offsets(n, length);
    c.n = n;
    c.length = length;
  }
  return c;
}

/// \brief Every segment's sum (wrapped to T as the GPU adds), from the host values.
/// \return false when the values could not be copied
template <class T>
bool make_reference(segment_case<T>& c) {
  if (!c.sums.empty()) return true;
  const std::vector<T>* x = host_values<T>(c.n);
  if (x == nullptr) return false;
  c.sums.resize(c.segments());
  for (std::size_t s = 0; s < c.segments(); ++s) {
    std::int64_t sum = 0;
    for (auto i = static_cast<std::size_t>(c.offsets[s]);
         i < static_cast<std::size_t>(c.offsets[s + 1]); ++i)
      sum += static_cast<std::int64_t>((*x)[i]);
    c.sums[s] = static_cast<T>(sum);
  }
  return true;
}

/// \brief `copies` device copies of the case's offsets, made on first use.
/// \return nullptr when an allocation failed
template <class T>
const std::vector<const std::int32_t*>* device_offsets(segment_case<T>& c, std::size_t copies) {
  if (c.device.size() == copies) return &c.device_view;
  c.release_device();
  const std::size_t bytes = c.offsets.size() * sizeof(std::int32_t);
  for (std::size_t k = 0; k < copies; ++k) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess ||
        cudaMemcpy(p, c.offsets.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      cudaFree(p);
      c.release_device();
      return nullptr;
    }
    c.device.push_back(p);
    c.device_view.push_back(static_cast<const std::int32_t*>(p));
  }
  return &c.device_view;
}

/// \brief "" when the call wrote the k segment sums of `c` (and, by key, run s's key s + 1:
/// scan_inputs.cu's keys count the heads up to each element) and returned k, else what is wrong.
template <class T>
std::string check_result(segment_case<T>& c, const segment_args<T>& a, std::size_t got, bool keys) {
  const std::size_t k = c.segments();
  if (got != k)
    return "wrong number of segments: " + std::to_string(got) + " instead of " + std::to_string(k);
  if (!make_reference(c)) return "cudaMemcpy of the input to the host failed";
  std::vector<T> out(k);
  std::vector<std::int32_t> keys_out(keys ? k : 0);
  if (cudaMemcpy(out.data(), a.out, k * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess ||
      (keys && cudaMemcpy(keys_out.data(), a.keys_out, k * sizeof(std::int32_t),
                          cudaMemcpyDeviceToHost) != cudaSuccess))
    return "cudaMemcpy of the result to the host failed";
  std::size_t bad = 0, first = k;
  for (std::size_t s = 0; s < k; ++s) {
    if (out[s] != c.sums[s] || (keys && keys_out[s] != static_cast<std::int32_t>(s + 1))) {
      if (bad++ == 0) first = s;
    }
  }
  if (bad == 0) return "";
  return "wrong segment results: " + std::to_string(bad) + " of " + std::to_string(k) +
         " segments differ, the first segment " + std::to_string(first) + " (sum " +
         std::to_string(out[first]) + ", expected " + std::to_string(c.sums[first]) + ")";
}

/// \brief Each benchmark's verdict ("" when right), made the first time it runs (once per
/// benchmark instance, as the host benches' first_time): its repetitions share it.
std::map<std::string, std::string>& verdicts() {
  static std::map<std::string, std::string> v;
  return v;
}

/// \brief Times `call(args)` (which returns the number of segments) over the rotated inputs;
/// checks the first run's output against the host reference.
template <class T, class Call>
void run_segments(benchmark::State& state, const segment_setup& s, Call call) {
  if (!have_gpu()) {
    state.SkipWithError("no GPU");
    return;
  }
  const auto found = verdicts().find(s.key);
  if (found != verdicts().end() && !found->second.empty()) {
    state.SkipWithError(found->second.c_str());
    return;
  }
  const std::size_t n = s.n;
  const bool fixed = s.length != one_segment && s.length != mixed_lengths;
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) ||
      (s.form != segment_form::offsets && !fixed)) {
    state.SkipWithError(
        "not set up: int32 offsets and keys need n < 2^31; flags and keys "
        "come in fixed lengths only");
    return;
  }
  segment_case<T>& c = case_for<T>(n, s.length);
  const std::size_t k = c.segments();
  // Memory: the rotated values (as inputs_for makes them), offsets, flags (and keys), output.
  const std::size_t value_bytes = n * sizeof(T);
  const std::size_t copies = rotation_count(value_bytes);
  std::size_t read = 0;  // bytes of segment description one call reads at least
  std::size_t held = 0;  // bytes of segment description on the GPU, every rotation
  switch (s.form) {
    case segment_form::offsets:
      read = (k + 1) * sizeof(std::int32_t);
      held = copies * read;
      break;
    case segment_form::head_flags:
      read = n;
      held = copies * n;
      break;
    case segment_form::keys:
      read = n * sizeof(std::int32_t);
      held = copies * n * (1 + sizeof(std::int32_t));  // segments_for keeps the flags too
      break;
  }
  const bool keys = s.form == segment_form::keys;
  const std::size_t written = k * sizeof(T) + (keys ? k * sizeof(std::int32_t) : 0);
  const std::size_t room = s.room_for_n ? n : k;
  const std::size_t keys_at = (room * sizeof(T) + 255) / 256 * 256;  // keys_out in the same buffer
  const std::size_t out_bytes = keys ? keys_at + room * sizeof(std::int32_t) : room * sizeof(T);
  const std::size_t need = copies * value_bytes + held + out_bytes;
  if (!fits_or_skip(state, need)) return;
  const auto& in = inputs_for<T>(n);
  const std::size_t rotations = in.buffers.size();
  const std::vector<const std::int32_t*>* offsets =
      s.form == segment_form::offsets ? device_offsets(c, rotations) : nullptr;
  const segment_inputs* seg =
      s.form == segment_form::offsets ? nullptr : segments_for(n, s.length, rotations, keys);
  auto* out = static_cast<unsigned char*>(scan_output(out_bytes));
  if (out == nullptr || (s.form == segment_form::offsets ? offsets == nullptr : seg == nullptr)) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  const auto args = [&](std::size_t r) {
    segment_args<T> a;
    a.x = in.buffers[r % rotations];
    if (offsets) a.offsets = (*offsets)[r % rotations];
    if (s.form == segment_form::head_flags) a.flags = seg->flags[r % rotations];
    if (keys) {
      a.keys = seg->keys[r % rotations];
      a.keys_out = reinterpret_cast<std::int32_t*>(out + keys_at);
    }
    a.out = reinterpret_cast<T*>(out);
    a.n = n;
    a.segments = k;
    a.room = room;
    return a;
  };
  const cudaStream_t stream = bench_stream();
  std::size_t next = 0;
  try {
    for (int w = 0; w < 3; ++w) (void)call(args(next++));
    if (found == verdicts().end()) {
      // The checked call: on a poisoned output, so the check sees this call's result.
      cudaMemsetAsync(out, 0xA5, out_bytes, stream);
      const std::size_t got = call(args(0));
      const cudaError_t e = cudaStreamSynchronize(stream);
      verdicts()[s.key] = e != cudaSuccess ? std::string("CUDA error: ") + cudaGetErrorString(e)
                                           : check_result(c, args(0), got, keys);
    }
  } catch (const std::exception& e) {
    verdicts()[s.key] = std::string("exception: ") + e.what();
  }
  if (const std::string& error = verdicts()[s.key]; !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  time_rotations(state, next, [&](std::size_t r) { parprim_bench::keep(call(args(r))); });
  const auto it = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(it * static_cast<std::int64_t>(n));
  state.SetBytesProcessed(it * static_cast<std::int64_t>(value_bytes));
  state.counters["traffic"] = benchmark::Counter(static_cast<double>(value_bytes + read + written),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// --- parprim's calls (default policy on the bench stream; synchronous) -----------------------

template <class T>
std::size_t parprim_offsets(const segment_args<T>& a) {
  parprim::segmented_reduce(
      parprim::cuda.on(bench_stream()), parprim::device_span<const T>(a.x, a.n),
      parprim::offsets(parprim::device_span<const std::int32_t>(a.offsets, a.segments + 1)),
      parprim::device_span<T>(a.out, a.segments), T(0), parprim::plus{});
  return a.segments;
}

template <class T>
std::size_t parprim_head_flags(const segment_args<T>& a) {
  return parprim::segmented_reduce(parprim::cuda.on(bench_stream()),
                                   parprim::device_span<const T>(a.x, a.n),
                                   parprim::device_span<const std::uint8_t>(a.flags, a.n),
                                   parprim::device_span<T>(a.out, a.room), T(0), parprim::plus{});
}

template <class T>
std::size_t parprim_reduce_by_key(const segment_args<T>& a) {
  return parprim::reduce_by_key(parprim::cuda.on(bench_stream()),
                                parprim::device_span<const std::int32_t>(a.keys, a.n),
                                parprim::device_span<const T>(a.x, a.n),
                                parprim::device_span<std::int32_t>(a.keys_out, a.room),
                                parprim::device_span<T>(a.out, a.room), parprim::plus{});
}

// --- registration ----------------------------------------------------------------------------

/// \brief The segment lengths of segmented_reduce (offsets).
constexpr std::size_t segment_lengths[] = {1, 32, 1024, 65536, one_segment, mixed_lengths};
/// \brief The head-flag form is measured at this length only (beside the offsets at the same).
constexpr std::size_t flag_segment_length = 1024;
/// \brief reduce_by_key is measured at the fixed lengths up to this one.
constexpr std::size_t max_key_run_length = 1024;

template <class T>
void register_for(std::size_t n) {
  const std::string t = type_name<T>();
  for (const std::size_t length : segment_lengths) {
    const std::string suffix = "/" + t + "/seg:" + segment_length_name(length);
    const auto row = [&](const std::string& name, segment_form form,
                         std::size_t (*call)(const segment_args<T>&), bool room_for_n = false) {
      segment_setup s;
      s.key = name + "/n:" + std::to_string(n);
      s.n = n;
      s.length = length;
      s.form = form;
      s.room_for_n = room_for_n;
      register_one(name, n, [s, call](benchmark::State& st) { run_segments<T>(st, s, call); });
    };
    row("segmented_reduce/cuda" + suffix, segment_form::offsets, &parprim_offsets<T>);
    row("segmented_reduce/cub_segmented_reduce_sum" + suffix, segment_form::offsets,
        &cub_segmented_reduce_sum<T>);
    // "_room_n": outputs of n elements; the others of exactly k (through a temporary of k where
    // k results take fewer bytes than the heads, else counted first; runs of 1: k = n)
    if (length == flag_segment_length) {
      row("segmented_reduce/cuda_head_flags" + suffix, segment_form::head_flags,
          &parprim_head_flags<T>);
      row("segmented_reduce/cuda_head_flags_room_n" + suffix, segment_form::head_flags,
          &parprim_head_flags<T>, true);
    }
    if (length != one_segment && length != mixed_lengths && length <= max_key_run_length) {
      row("reduce_by_key/cuda" + suffix, segment_form::keys, &parprim_reduce_by_key<T>);
      row("reduce_by_key/cuda_room_n" + suffix, segment_form::keys, &parprim_reduce_by_key<T>,
          true);
      row("reduce_by_key/cub_reduce_by_key" + suffix, segment_form::keys, &cub_reduce_by_key<T>);
    }
  }
}

const bool registered = register_benchmarks([] {
  for (const std::int64_t n : sizes()) register_for<std::int32_t>(static_cast<std::size_t>(n));
});

}  // namespace
}  // namespace parprim_bench::cuda
