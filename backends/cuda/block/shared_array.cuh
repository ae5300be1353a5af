#pragma once
/// \file
/// \brief `N` values of `V` in shared memory as raw bytes (`V` need not be trivially
/// constructible to live in `__shared__`).

namespace parprim::detail::cuda {

template <class V, unsigned N>
struct shared_array {
  alignas(V) unsigned char bytes[sizeof(V) * N];
  __device__ V* get() { return reinterpret_cast<V*>(bytes); }
  __device__ V& operator[](unsigned i) { return get()[i]; }
};

}  // namespace parprim::detail::cuda
