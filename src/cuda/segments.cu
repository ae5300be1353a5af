/// \file
/// \brief The per-segment entries that do not depend on the value type (detail/segments_entry.hpp):
/// the plan of head flags, and for every precompiled key and offset type the plan of key runs,
/// the offsets check and the key-run flags of the scans by key.

#include <parprim/backends/cuda/detail/segments_dispatch.cuh>

namespace parprim::detail::cuda {

segment_plan::segment_plan(std::unique_ptr<temp_block> tile_base, std::size_t n,
                           std::size_t segments)
    : tile_base_(std::move(tile_base)), n_(n), segments_(segments) {}
segment_plan::segment_plan(segment_plan&&) noexcept = default;
segment_plan& segment_plan::operator=(segment_plan&&) noexcept = default;
segment_plan::~segment_plan() = default;
const std::size_t* segment_plan::tile_base() const noexcept {
  return static_cast<const std::size_t*>(tile_base_->get());
}

segment_plan plan_flag_segments(const launch_options& options, const std::uint8_t* flags,
                                std::size_t n) {
  device_guard guard(options.device);
  segments::check_call(options, guard.device(), "segmented_reduce", {{flags, "the head flags"}});
  return segments::plan(options, guard.device(), segments::flag_heads{flags}, n);
}

}  // namespace parprim::detail::cuda

PARPRIM_CUDA_SEGMENTS_FOR_INDEX_TYPES(PARPRIM_CUDA_INDEX_INSTANTIATE)
