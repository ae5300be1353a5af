#pragma once
/// \file
/// \brief A select on a condition without a branch, for loops where the condition (a segment's
/// head) flips every few elements at random and a branch would mispredict.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace parprim::openmp::detail {

/// \brief `take ? a : b`, for values of 1, 2, 4 or 8 bytes that are trivially copyable as a mask
/// on their bits: GCC compiled the conditional expression into a branch, which mispredicts at
/// a run head every few elements (one core of the 2-core development machine, reduce_by_key of
/// 2^24 int32, a run head in ten: 28.1 ms with the conditional expression, 19.7 with the mask).
template <class K>
K select_without_branch(bool take, const K& a, const K& b) {
  constexpr std::size_t size = sizeof(K);
  if constexpr (std::is_trivially_copyable_v<K> &&
                (size == 1 || size == 2 || size == 4 || size == 8)) {
    using W = std::conditional_t<
        size == 1, std::uint8_t,
        std::conditional_t<size == 2, std::uint16_t,
                           std::conditional_t<size == 4, std::uint32_t, std::uint64_t>>>;
    const auto wa = std::bit_cast<W>(a), wb = std::bit_cast<W>(b);
    const auto mask = static_cast<W>(W{0} - static_cast<W>(take));
    return std::bit_cast<K>(static_cast<W>(wb ^ ((wa ^ wb) & mask)));
  } else {
    return take ? a : b;
  }
}

}  // namespace parprim::openmp::detail
