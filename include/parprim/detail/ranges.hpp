#pragma once
/// \file
/// \brief Conversion of user ranges to spans, and the argument checks every primitive makes
/// before it writes anything.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>

#include <parprim/device_span.hpp>
#include <parprim/error.hpp>

namespace parprim::detail {

/// \brief A contiguous, sized host range (std::vector, std::array, std::span, C arrays).
template <class R>
concept host_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R>;

/// \brief A host range whose elements can be written.
template <class R>
concept writable_host_range =
    host_range<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
using range_value_t = std::remove_cv_t<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

/// \brief Read-only span over a host range.
template <host_range R>
std::span<const range_value_t<R>> as_input_span(const R& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}

/// \brief Writable span over a host range.
template <writable_host_range R>
std::span<range_value_t<R>> as_output_span(R&& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}

/// \brief Device memory stays a `device_span` (only the CUDA policy accepts it).
template <class T>
device_span<const T> as_input_span(const device_span<T>& s) {
  return s;
}

/// \brief A writable device span stays one.
template <class T>
requires(!std::is_const_v<T>) device_span<T> as_output_span(const device_span<T>& s) {
  return s;
}

/// \brief Throws if a span of non-zero size has no data.
template <class Span>
void check_data(const Span& s, const char* fn, const char* what) {
  if (s.size() > 0 && s.data() == nullptr)
    throw invalid_argument(std::string("parprim::") + fn + ": " + what +
                           " has null data and size " + std::to_string(s.size()));
}

/// \brief Throws unless `b` has the size of `a`.
template <class SpanA, class SpanB>
void check_same_size(const SpanA& a, const SpanB& b, const char* fn, const char* what_a,
                     const char* what_b) {
  if (a.size() != b.size())
    throw invalid_argument(std::string("parprim::") + fn + ": " + what_b + " has " +
                           std::to_string(b.size()) + " elements but " + what_a + " has " +
                           std::to_string(a.size()));
}

/// \brief Throws if `in` and `out` overlap without being the same range (in-place is allowed:
/// `out.data() == in.data()` with equal element sizes).
template <class SpanIn, class SpanOut>
void check_alias(const SpanIn& in, const SpanOut& out, const char* fn) {
  if (in.size() == 0) return;
  const auto a = reinterpret_cast<std::uintptr_t>(in.data());
  const auto b = reinterpret_cast<std::uintptr_t>(out.data());
  constexpr bool same_width = sizeof(*in.data()) == sizeof(*out.data());
  if (same_width && a == b) return;
  const auto a_end = a + in.size_bytes();
  const auto b_end = b + out.size_bytes();
  if (a < b_end && b < a_end)
    throw invalid_argument(std::string("parprim::") + fn +
                           ": output overlaps the input without being the same range "
                           "(only exact in-place, out == in, is supported)");
}

/// \brief Throws if the two spans share any byte.
template <class SpanA, class SpanB>
void check_disjoint(const SpanA& a, const SpanB& b, const char* fn, const char* what_a,
                    const char* what_b) {
  if (a.size() == 0 || b.size() == 0) return;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
  if (a0 < b0 + b.size_bytes() && b0 < a0 + a.size_bytes())
    throw invalid_argument(std::string("parprim::") + fn + ": " + what_a + " and " + what_b +
                           " overlap");
}

/// \brief Throws unless an output of `size` elements has room for `needed` results (`of`: what
/// they are, e.g. "segments").
inline void check_room(const char* fn, const char* what, std::size_t size, std::size_t needed,
                       const char* of) {
  if (size < needed)
    throw invalid_argument(std::string("parprim::") + fn + ": " + what + " has " +
                           std::to_string(size) + " elements but the input has " +
                           std::to_string(needed) + " " + of);
}

}  // namespace parprim::detail
