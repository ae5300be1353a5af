#pragma once
/// \file
/// \brief A select on a condition without a branch, for loops where the condition (a segment's
/// head) flips every few elements at random and a branch would mispredict; and the density of
/// heads above which a branch is predicted again.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace parprim::openmp::detail {

/// \brief Whether select_without_branch selects `K` as a mask on its bits: trivially copyable
/// values of 1, 2, 4 or 8 bytes (others take the conditional expression).
template <class K>
inline constexpr bool selects_on_bits_v = std::is_trivially_copyable_v<K> &&
                                          (sizeof(K) == 1 || sizeof(K) == 2 || sizeof(K) == 4 ||
                                           sizeof(K) == 8);

/// \brief Whether `heads` heads in `length` elements are more than three in four: so dense that
/// a branch on each head is predicted again (the loops that select without a branch in between
/// take the branch there).
inline bool denser_than_three_in_four(std::size_t heads, std::size_t length) {
  return heads * 4 > length * 3;
}

/// \brief `take ? a : b`, as a mask on the bits where `selects_on_bits_v<K>`: GCC compiled the
/// conditional expression into a branch, which mispredicts at a run head every few elements
/// (one core of the 2-core development machine, reduce_by_key of 2^24 int32, a run head in ten:
/// 28.1 ms with the conditional expression, 19.7 with the mask).
template <class K>
K select_without_branch(bool take, const K& a, const K& b) {
  constexpr std::size_t size = sizeof(K);
  if constexpr (selects_on_bits_v<K>) {
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
