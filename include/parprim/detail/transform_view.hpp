#pragma once
/// \file
/// \brief What the transforms hand to a backend: the input as a view whose element i is
/// `f(in[i])` (or `f(in1[i], in2[i])`), computed when read, so a transform runs in the same
/// single pass as the plain primitive with no temporary. Host backends read any input through
/// `size()`, `empty()`, `operator[]`, `subspan()` and `first()`, which `std::span` and these
/// views share; `base()` is where the elements live (alias checks).

#include <cstddef>
#include <span>
#include <type_traits>

#include <parprim/detail/macros.hpp>

namespace parprim::detail {

/// \brief Element i is `f(base[i])`. `Base` is a span type (`std::span<const In>`, or
/// `device_span<const In>` for the CUDA backend, which reads it in its kernels).
template <class Base, class F>
class unary_transform_view {
 public:
  using base_type = Base;
  using source_type = typename Base::value_type;
  using function_type = F;
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, const source_type&>>;

  unary_transform_view(Base base, F f) : base_(base), f_(f) {}

  std::size_t size() const noexcept { return base_.size(); }
  bool empty() const noexcept { return base_.size() == 0; }
  const Base& base() const noexcept { return base_; }
  const F& function() const noexcept { return f_; }
  value_type operator[](std::size_t i) const { return f_(base_[i]); }
  unary_transform_view subspan(std::size_t offset, std::size_t count = std::dynamic_extent) const {
    return {count == std::dynamic_extent ? base_.subspan(offset) : base_.subspan(offset, count),
            f_};
  }
  unary_transform_view first(std::size_t count) const { return {base_.first(count), f_}; }

 private:
  Base base_;
  F f_;
};

/// \brief Element i is `f(base1[i], base2[i])`; both bases have the same size.
template <class Base1, class Base2, class F>
class binary_transform_view {
 public:
  using base_type = Base1;
  using source1_type = typename Base1::value_type;
  using source2_type = typename Base2::value_type;
  using function_type = F;
  using value_type =
      std::remove_cvref_t<std::invoke_result_t<const F&, const source1_type&, const source2_type&>>;

  binary_transform_view(Base1 base1, Base2 base2, F f) : base1_(base1), base2_(base2), f_(f) {}

  std::size_t size() const noexcept { return base1_.size(); }
  bool empty() const noexcept { return base1_.size() == 0; }
  const Base1& base() const noexcept { return base1_; }
  const Base1& base1() const noexcept { return base1_; }
  const Base2& base2() const noexcept { return base2_; }
  const F& function() const noexcept { return f_; }
  value_type operator[](std::size_t i) const { return f_(base1_[i], base2_[i]); }
  binary_transform_view subspan(std::size_t offset, std::size_t count = std::dynamic_extent) const {
    if (count == std::dynamic_extent) return {base1_.subspan(offset), base2_.subspan(offset), f_};
    return {base1_.subspan(offset, count), base2_.subspan(offset, count), f_};
  }
  binary_transform_view first(std::size_t count) const {
    return {base1_.first(count), base2_.first(count), f_};
  }

 private:
  Base1 base1_;
  Base2 base2_;
  F f_;
};

template <class V>
inline constexpr bool is_transform_view_v = false;
template <class B, class F>
inline constexpr bool is_transform_view_v<unary_transform_view<B, F>> = true;
template <class B1, class B2, class F>
inline constexpr bool is_transform_view_v<binary_transform_view<B1, B2, F>> = true;

/// \brief Where an input's elements live: `s.data()` for a span, the first base for a view.
template <class Input>
const void* input_address(const Input& in) {
  if constexpr (is_transform_view_v<Input>)
    return in.base().data();
  else
    return in.data();
}

}  // namespace parprim::detail
