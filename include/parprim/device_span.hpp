#pragma once
/// \file
/// \brief `parprim::device_span<T>`: a non-owning view of `n` elements in GPU memory.
///
/// It is deliberately *not* a `std::ranges` range (no `begin`/`end`): host code cannot
/// iterate it by accident, host policies reject it, and the CUDA policy rejects host ranges,
/// so host and device memory never mix silently. This header names no CUDA type; it is usable
/// from any C++20 translation unit.
///
/// \code
///   float* d = nullptr;  cudaMalloc(&d, n * sizeof(float));   // or parprim::device_buffer
///   parprim::device_span<const float> in(d, n);
///   float s = parprim::reduce(parprim::cuda, in, 0.0f, parprim::plus{});
/// \endcode

#include <cstddef>
#include <type_traits>

namespace parprim {

/// \brief Non-owning `{pointer, size}` view of device memory. Sizes are 64-bit.
/// \tparam T  the element type (`const T` for a read-only view)
template <class T>
class device_span {
 public:
  using element_type = T;                  ///< `T`, possibly const
  using value_type = std::remove_cv_t<T>;  ///< `T` without const
  using size_type = std::size_t;           ///< 64-bit sizes
  using pointer = T*;                      ///< a device pointer

  /// \brief The empty span.
  constexpr device_span() noexcept = default;
  /// \brief `size` elements of device memory starting at `data` (not checked here: the
  /// primitives check null data with a non-zero size and raise parprim::invalid_argument).
  constexpr device_span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  /// \brief A read-only view of a writable one: `device_span<const T>` from `device_span<T>`.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>) constexpr device_span(
      const device_span<U>& other) noexcept  // NOLINT: implicit on purpose
      : data_(other.data()), size_(other.size()) {}

  /// \return the device pointer
  constexpr T* data() const noexcept { return data_; }
  /// \return the number of elements
  constexpr std::size_t size() const noexcept { return size_; }
  /// \return the number of bytes
  constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  /// \return whether the span has no elements
  constexpr bool empty() const noexcept { return size_ == 0; }

  /// \return elements [offset, offset + count), clamped to the span
  constexpr device_span subspan(std::size_t offset,
                                std::size_t count = std::size_t(-1)) const noexcept {
    const std::size_t o = offset < size_ ? offset : size_;
    const std::size_t c = count < size_ - o ? count : size_ - o;
    return {data_ + o, c};
  }
  /// \return the first `count` elements (clamped)
  constexpr device_span first(std::size_t count) const noexcept { return subspan(0, count); }
  /// \return the last `count` elements (clamped)
  constexpr device_span last(std::size_t count) const noexcept {
    return subspan(count < size_ ? size_ - count : 0);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// \brief A read-only view of `n` elements at `p` in device memory.
template <class T>
constexpr device_span<const T> make_device_span(const T* p, std::size_t n) noexcept {
  return {p, n};
}
/// \brief A writable view of `n` elements at `p` in device memory.
template <class T>
constexpr device_span<T> make_device_span(T* p, std::size_t n) noexcept {
  return {p, n};
}

}  // namespace parprim
