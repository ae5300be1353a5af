#pragma once
/// \file
/// \brief Makes a policy's device current for one call and restores the previous one.

#include <cuda_runtime_api.h>

#include <parprim/backends/cuda/detail/error.hpp>

namespace parprim::detail::cuda {

/// \brief RAII: `device < 0` keeps the current device; otherwise switches to `device` (raising
/// parprim::cuda_error for an id the machine does not have) and switches back on exit.
class device_guard {
 public:
  explicit device_guard(int device) {
    PARPRIM_CUDA_CHECK(cudaGetDevice(&previous_));
    current_ = previous_;
    if (device >= 0 && device != previous_) {
      PARPRIM_CUDA_CHECK(cudaSetDevice(device));
      current_ = device;
    }
  }
  ~device_guard() {
    if (current_ != previous_) (void)cudaSetDevice(previous_);  // never throws from a destructor
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

  /// \return the device the call runs on
  int device() const noexcept { return current_; }

 private:
  int previous_ = 0;
  int current_ = 0;
};

}  // namespace parprim::detail::cuda
