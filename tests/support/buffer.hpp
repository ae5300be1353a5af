#pragma once
/// \file
/// \brief Test buffers with guard elements around the part a primitive sees, so a write out
/// of bounds shows up as a changed guard; and the byte patterns used for guards and poison.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace parprim_test {

/// \brief A value whose bytes are all `byte`: what unwritten output or a guard holds.
template <class T>
T byte_pattern(unsigned char byte) {
  static_assert(std::is_trivially_copyable_v<T>);
  unsigned char bytes[sizeof(T)];
  std::memset(bytes, byte, sizeof(T));
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

inline constexpr unsigned char poison_byte = 0xA5;
inline constexpr unsigned char guard_byte = 0x5B;
/// \brief Guard elements on each side of every test buffer.
inline constexpr std::size_t guard = 8;

/// \brief Host memory: `guard` elements, the n visible ones, `guard` elements. The constructors
/// are not inlined: inlined into deep test bodies, GCC 12 loses the bound on n and reports
/// copies and fills of "18446744073709551586 bytes" (-Wstringop-overflow false positives).
template <class T>
class host_buffer {
 public:
  /// \brief The visible elements are a copy of `body`.
  [[gnu::noinline]] explicit host_buffer(std::span<const T> body) : data_(body.size() + 2 * guard) {
    fill_guards();
    std::copy(body.begin(), body.end(), data_.begin() + static_cast<std::ptrdiff_t>(guard));
  }
  /// \brief `n` visible elements, each `fill`.
  [[gnu::noinline]] host_buffer(std::size_t n, const T& fill) : data_(n + 2 * guard, fill) {
    fill_guards();
  }

  /// \return the n visible elements (what is passed to the primitive)
  std::span<T> range() { return std::span<T>(data_).subspan(guard, data_.size() - 2 * guard); }
  /// \return the full contents, guards included (a device buffer returns a host copy)
  std::span<const T> read_all() const { return data_; }

 private:
  void fill_guards() {
    const T g = byte_pattern<T>(guard_byte);
    std::fill(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(guard), g);
    std::fill(data_.end() - static_cast<std::ptrdiff_t>(guard), data_.end(), g);
  }
  std::vector<T> data_;
};

}  // namespace parprim_test
