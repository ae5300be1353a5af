#pragma once
/// \file
/// \brief `parprim::device_buffer<T>`: an owning, move-only array in GPU memory, usable from
/// plain C++ translation units. It converts to `parprim::device_span`, which is what the CUDA
/// primitives take. (`thrust::device_vector<T> v` interoperates through
/// `parprim::device_span<T>(thrust::raw_pointer_cast(v.data()), v.size())`.)
///
/// \code
///   std::vector<float> h(1 << 20, 1.0f);
///   parprim::device_buffer<float> d(h);                                 // cudaMalloc + copy
///   float s = parprim::reduce(parprim::cuda, d.span(), 0.0f, parprim::plus{});
/// \endcode

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <parprim/device_span.hpp>
#include <parprim/error.hpp>

namespace parprim {

namespace detail::cuda {
/// \brief `bytes` of memory on the current device. \throws parprim::cuda_error
void* device_allocate(std::size_t bytes);
/// \brief Frees memory from `device_allocate`; ignores errors (used by destructors).
void device_free(void* p) noexcept;
/// \brief Synchronous copy between any two of host and device memory (unified addressing):
/// returns when the bytes are at their destination (from pageable host memory too), so work
/// enqueued afterwards on any stream reads them. \throws parprim::cuda_error
void copy_bytes(void* dst, const void* src, std::size_t bytes);
}  // namespace detail::cuda

/// \brief `n` elements of device memory on the device current at construction.
/// \tparam T  trivially copyable
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "parprim::device_buffer<T>: T must be trivially copyable (copied as bytes)");

 public:
  device_buffer() noexcept = default;
  /// \brief `n` uninitialised elements. \throws parprim::cuda_error
  explicit device_buffer(std::size_t n)
      : data_(n ? static_cast<T*>(detail::cuda::device_allocate(n * sizeof(T))) : nullptr),
        size_(n) {}
  /// \brief A copy of `host` on the device. \throws parprim::cuda_error
  explicit device_buffer(std::span<const T> host) : device_buffer(host.size()) {
    copy_from_host(host);
  }
  /// \brief A copy of `host` on the device. \throws parprim::cuda_error
  explicit device_buffer(const std::vector<T>& host) : device_buffer(std::span<const T>(host)) {}
  /// \brief Takes `o`'s memory; `o` is left empty.
  device_buffer(device_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  /// \brief Frees this buffer's memory and takes `o`'s; `o` is left empty.
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      detail::cuda::device_free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { detail::cuda::device_free(data_); }

  /// \brief Copies `host` (exactly `size()` elements) to the device; returns once they are
  /// there (kernels on any stream, non-blocking ones included, then read them).
  /// \throws parprim::invalid_argument on a size mismatch, parprim::cuda_error
  void copy_from_host(std::span<const T> host) {
    check_size(host.size());
    if (size_) detail::cuda::copy_bytes(data_, host.data(), size_ * sizeof(T));
  }
  /// \brief Copies the device contents to `host` (exactly `size()` elements).
  void copy_to_host(std::span<T> host) const {
    check_size(host.size());
    if (size_) detail::cuda::copy_bytes(host.data(), data_, size_ * sizeof(T));
  }
  /// \return the device contents, copied to the host
  std::vector<T> to_host() const {
    std::vector<T> h(size_);
    copy_to_host(h);
    return h;
  }

  /// \return the device pointer
  T* data() noexcept { return data_; }
  /// \return the device pointer
  const T* data() const noexcept { return data_; }
  /// \return the number of elements
  std::size_t size() const noexcept { return size_; }
  /// \return a writable view
  device_span<T> span() noexcept { return {data_, size_}; }
  /// \return a read-only view
  device_span<const T> span() const noexcept { return {data_, size_}; }
  /// \brief Implicit writable view, so a buffer can be passed where a span is expected.
  operator device_span<T>() noexcept { return span(); }  // NOLINT: implicit view
  /// \brief Implicit read-only view.
  operator device_span<const T>() const noexcept { return span(); }  // NOLINT: implicit view

 private:
  void check_size(std::size_t n) const {
    if (n != size_)
      throw invalid_argument("parprim::device_buffer: host range has " + std::to_string(n) +
                             " elements, the buffer " + std::to_string(size_));
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace parprim
