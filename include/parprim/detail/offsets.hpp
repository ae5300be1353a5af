#pragma once
/// \file
/// \brief The checks of CSR begin offsets (segmented_reduce with parprim::offsets), shared by
/// the backends that run them: k + 1 offsets, the first 0, the last n, none smaller than the
/// one before it. A backend finds the first offending index (in parallel where it can) and
/// raises through these, so every backend words the error alike.

#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include <parprim/error.hpp>

namespace parprim::detail {

/// \brief The first i in [b, e) (b >= 1) with `offsets[i] < offsets[i - 1]`, or e.
template <class I>
std::size_t first_decrease(std::span<const I> offsets, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (offsets[i] < offsets[i - 1]) return i;
  return e;
}

/// \brief Raises parprim::invalid_argument: `offsets[i] < offsets[i - 1]`.
template <class I>
[[noreturn]] void throw_offsets_decrease(const char* fn, std::size_t i, const I& before,
                                         const I& at) {
  throw invalid_argument(std::string("parprim::") + fn +
                         ": offsets must not decrease, but offsets[" + std::to_string(i) +
                         "] = " + std::to_string(at) + " < offsets[" + std::to_string(i - 1) +
                         "] = " + std::to_string(before));
}

/// \brief Raises parprim::invalid_argument unless the first offset, `front`, is 0 and the last,
/// `back` (offsets[k]), is `n`.
template <class I>
void check_offset_ends(const I& front, const I& back, std::size_t k, std::size_t n,
                       const char* fn) {
  if (!std::cmp_equal(front, 0))
    throw invalid_argument(std::string("parprim::") + fn + ": offsets[0] must be 0, got " +
                           std::to_string(front));
  if (!std::cmp_equal(back, n))
    throw invalid_argument(std::string("parprim::") + fn + ": the last offset (offsets[" +
                           std::to_string(k) + "] = " + std::to_string(back) +
                           ") must be the number of elements, " + std::to_string(n));
}

/// \brief As above, for k + 1 offsets in host memory.
template <class I>
void check_offset_ends(std::span<const I> offsets, std::size_t n, const char* fn) {
  check_offset_ends(offsets.front(), offsets.back(), offsets.size() - 1, n, fn);
}

}  // namespace parprim::detail
