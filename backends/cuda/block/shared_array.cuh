#pragma once
/// \file
/// \brief `N` values of `V` in shared memory as raw bytes (`V` need not be trivially
/// constructible to live in `__shared__`), plain or in a layout skewed against bank conflicts.

namespace parprim::detail::cuda {

template <class V, unsigned N>
struct shared_array {
  alignas(V) unsigned char bytes[sizeof(V) * N];
  __device__ V* get() { return reinterpret_cast<V*>(bytes); }
  __device__ V& operator[](unsigned i) { return get()[i]; }
};

/// \brief `N` values of `V` (of at most 128 bytes) staged in shared memory, in one of two
/// layouts chosen by the block for each use: plain (element j at slot j) or skewed (one slot
/// left out after every 128 bytes: element j at slot j + j / (128 / sizeof(V))). Threads that
/// store 16 or 32 elements apart (each thread's run of a tile, when every element of the tile
/// is stored) hit 32 different banks skewed instead of 2 to 4 plain; threads that read
/// consecutive elements (from a multiple of 32) hit one bank each in both. The skewed index
/// costs two instructions an access, so sparse writers keep the plain layout. Sized for the
/// skewed one (1/32 more memory).
template <class V, unsigned N>
struct staging_array {
  static_assert(sizeof(V) <= 128, "staging_array: values of at most 128 bytes");
  static constexpr unsigned per_row = static_cast<unsigned>(128 / sizeof(V));
  alignas(alignof(V) > 16 ? alignof(V) : 16) unsigned char bytes[sizeof(V) * (N + N / per_row)];
  template <bool Skewed>
  __device__ static unsigned slot(unsigned j) {
    return Skewed ? j + j / per_row : j;
  }
  /// \brief Element j in layout `Skewed`.
  template <bool Skewed>
  __device__ V& at(unsigned j) {
    return reinterpret_cast<V*>(bytes)[slot<Skewed>(j)];
  }
  /// \brief A read-only view indexed by element, in layout `Skewed`.
  template <bool Skewed>
  struct view {
    const V* values;
    __device__ const V& operator[](unsigned j) const { return values[slot<Skewed>(j)]; }
  };
  template <bool Skewed>
  __device__ view<Skewed> read() const {
    return {reinterpret_cast<const V*>(bytes)};
  }
};

}  // namespace parprim::detail::cuda
