#pragma once
/// \file
/// \brief The CUDA backend (target `parprim::cuda`, macro PARPRIM_HAS_CUDA): the policy
/// `parprim::cuda`, device memory (`parprim::device_span`, `parprim::device_buffer`), the
/// reduction ladder and the scan ladder (docs/kernels.md).
///
/// Plain C++ translation units can call the primitives for built-in arithmetic types with
/// plus, minimum and maximum (precompiled in the library). Other types and operators need a
/// .cu translation unit compiled by nvcc, where the kernel templates are instantiated; the
/// operator must be callable on the device (`__host__ __device__`).
///
/// Layout: `reduce.hpp` (host-side dispatch), `detail/` (errors, device guard, temporary
/// storage, launches), `kernels/` (one file per rung of the ladder), `block/` and `warp/`
/// (the cooperative pieces the rungs share).

#include <parprim/backends/cuda/device_buffer.hpp>
#include <parprim/backends/cuda/per_segment.hpp>
#include <parprim/backends/cuda/reduce.hpp>
#include <parprim/backends/cuda/scan.hpp>
#include <parprim/backends/cuda/segmented_scan.hpp>
#include <parprim/cuda_policy.hpp>
#include <parprim/device_span.hpp>
