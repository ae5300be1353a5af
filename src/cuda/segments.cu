/// \file
/// \brief The per-segment entries that do not depend on the value type (detail/segments_entry.hpp):
/// the plan of head flags, and for every precompiled key and offset type the plan of key runs,
/// the offsets check and the key-run flags of the scans by key.

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>

namespace parprim::detail::cuda {

segment_plan plan_flag_segments(const launch_options& options, const std::uint8_t* flags,
                                std::size_t n) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce", {{flags, "the head flags"}});
  return segment_plan(n, n == 0 ? 0
                                : segments::count_segments(options, guard.device(),
                                                           segments::flag_heads{flags}, n));
}

}  // namespace parprim::detail::cuda

PARPRIM_CUDA_SEGMENTS_FOR_INDEX_TYPES(PARPRIM_CUDA_INDEX_INSTANTIATE)
