#pragma once
/// \file
/// \brief How an element read from the input becomes a value of the accumulator type `T`, in
/// every kernel that reads elements: `static_cast<T>` (the plain primitives), or a transform's
/// `T(f(x))` (parprim::transform_reduce, parprim::transform_*_scan).

namespace parprim::detail::cuda {

/// \brief `static_cast<T>(x)`.
template <class T>
struct static_convert {
  template <class In>
  __device__ T operator()(const In& x) const {
    return static_cast<T>(x);
  }
};
/// \brief `static_cast<T>(f(x))`.
template <class T, class F>
struct transform_convert {
  F f;
  template <class In>
  __device__ T operator()(const In& x) const {
    return static_cast<T>(f(x));
  }
};

}  // namespace parprim::detail::cuda
