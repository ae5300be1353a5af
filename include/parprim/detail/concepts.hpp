#pragma once
/// \file
/// \brief The concepts every public call checks first, and the checks that turn a failed one
/// into one readable error at the call.
///
/// Each public front end starts with `if constexpr (detail::<call>_call_ok<...>())`: the checks
/// run in a fixed order (is it a parprim policy; each range: contiguous and sized, in the memory
/// the policy reads; is the policy's backend linked; the transform; `init`; the operator), and
/// the first that fails is a `static_assert` with a message saying what to pass instead. Later
/// checks and the call's body are not instantiated after a failure, so the compiler's first
/// error is that message and nothing follows from backend code.

#include <concepts>
#include <cstddef>
#include <ranges>
#include <type_traits>

#include <parprim/detail/contract.hpp>
#include <parprim/detail/dispatch.hpp>
#include <parprim/detail/policy_traits.hpp>
#include <parprim/detail/ranges.hpp>
#include <parprim/device_span.hpp>

namespace parprim::detail {

// --- concepts ---------------------------------------------------------------------------------

/// \brief A parprim execution policy (`parprim::seq`, `omp`, `cuda`, `mpi(comm)` and their
/// option-carrying copies).
template <class P>
concept execution_policy = policy_traits<std::remove_cvref_t<P>>::kind != policy_kind::none;

/// \brief A policy whose primitives read and write device memory (`parprim::cuda`, and
/// `parprim::mpi(comm).local(parprim::cuda)`).
template <class P>
concept device_policy = execution_policy<P> && policy_traits<std::remove_cvref_t<P>>::device_memory;

template <class R>
inline constexpr bool is_device_span_v = false;
template <class T>
inline constexpr bool is_device_span_v<device_span<T>> = true;

/// \brief A `parprim::device_span` (device memory).
template <class R>
concept device_range = is_device_span_v<std::remove_cvref_t<R>>;

/// \brief A writable `parprim::device_span`.
template <class R>
concept writable_device_range =
    device_range<R> && !std::is_const_v<typename std::remove_cvref_t<R>::element_type>;

/// \brief A range policy `P` can read: device spans for device policies, contiguous sized host
/// ranges for the others.
template <class P, class R>
concept input_range_for = (device_policy<P> && device_range<R>) ||
                          (!device_policy<P> && host_range<R>);

/// \brief A range policy `P` can write.
template <class P, class R>
concept output_range_for = (device_policy<P> && writable_device_range<R>) ||
                           (!device_policy<P> && writable_host_range<std::remove_reference_t<R>>);

/// \brief The backend behind `Impl` (a dispatch point specialised for the policy) is compiled
/// into this translation unit.
template <class Impl>
concept backend_available = complete_type<Impl>;

/// \brief The element type of an input range of either memory.
template <class R>
struct input_value {
  using type = range_value_t<R>;
};
template <class T>
struct input_value<device_span<T>> {
  using type = std::remove_cv_t<T>;
};
template <class R>
using input_value_t = typename input_value<std::remove_cvref_t<R>>::type;

/// \brief `f(element)` (or `f(element1, element2)`) is valid and its result is a value.
template <class F, class... Elements>
concept element_function = std::is_invocable_v<const F&, const Elements&...> &&
    !std::is_void_v<std::invoke_result_t<const F&, const Elements&...>>;

template <class F, class... Elements>
using element_function_result_t =
    std::remove_cvref_t<std::invoke_result_t<const F&, const Elements&...>>;

// --- the checks, one static_assert each ----------------------------------------------------

template <class>
inline constexpr bool always_false_v = false;

/// \brief The first argument is a parprim policy.
template <class P>
constexpr bool check_policy() {
  if constexpr (execution_policy<P>) {
    return true;
  } else {
    static_assert(execution_policy<P>,
                  "parprim: the first argument must be a parprim policy: parprim::seq, "
                  "parprim::omp, parprim::cuda or parprim::mpi(comm) (std::execution policies "
                  "are not parprim policies)");
    return false;
  }
}

/// \brief The policy's backend is compiled into this translation unit (the message names the
/// CMake target to link).
template <class P, class Impl>
constexpr bool check_backend() {
  constexpr policy_kind kind = policy_traits<std::remove_cvref_t<P>>::kind;
  if constexpr (backend_available<Impl>) {
    return true;
  } else if constexpr (kind == policy_kind::omp) {
    static_assert(always_false_v<P>,
                  "parprim: parprim::omp needs the OpenMP backend: link the CMake target "
                  "parprim::openmp (or parprim::parprim) and include <parprim/parprim.hpp>; it is "
                  "built when CMake finds OpenMP (option PARPRIM_WITH_OPENMP)");
    return false;
  } else if constexpr (kind == policy_kind::cuda) {
    static_assert(always_false_v<P>,
                  "parprim: parprim::cuda needs the CUDA backend: link the CMake target "
                  "parprim::cuda (or parprim::parprim) and include <parprim/parprim.hpp>; it is "
                  "built when CMake finds nvcc (option PARPRIM_WITH_CUDA)");
    return false;
  } else if constexpr (kind == policy_kind::mpi) {
    static_assert(always_false_v<P>,
                  "parprim: parprim::mpi(comm) needs the MPI backend: link the CMake target "
                  "parprim::mpi (or parprim::parprim) and include <parprim/parprim.hpp>; with "
                  ".local(parprim::cuda) link parprim::cuda too");
    return false;
  } else {
    static_assert(always_false_v<P>,
                  "parprim: no backend for this policy in this translation unit: include "
                  "<parprim/parprim.hpp> and link the CMake target parprim::core (or "
                  "parprim::parprim)");
    return false;
  }
}

/// \brief `R` is a range the policy reads.
template <class P, class R>
constexpr bool check_input() {
  if constexpr (input_range_for<P, R>) {
    return true;
  } else if constexpr (device_policy<P>) {
    static_assert(device_range<R>,
                  "parprim: parprim::cuda reads device memory: pass a parprim::device_span<T> "
                  "(e.g. parprim::device_buffer<T>::span()), not a host range; copy the data to "
                  "the GPU first, or use a host policy (parprim::seq, parprim::omp)");
    return false;
  } else if constexpr (device_range<R>) {
    static_assert(!device_range<R>,
                  "parprim: a parprim::device_span is device memory: pass it with parprim::cuda "
                  "(or parprim::mpi(comm).local(parprim::cuda)); host policies read host ranges");
    return false;
  } else {
    static_assert(host_range<R>,
                  "parprim: each input must be a contiguous sized range (std::vector, "
                  "std::array, std::span, a C array); for an iterator pair pass "
                  "std::span(first, last), for other containers copy into a std::vector");
    return false;
  }
}

/// \brief `R` is a range the policy writes.
template <class P, class R>
constexpr bool check_output() {
  if constexpr (output_range_for<P, R>) {
    return true;
  } else if constexpr (device_policy<P>) {
    static_assert(writable_device_range<R>,
                  "parprim: parprim::cuda writes device memory: the output must be a writable "
                  "parprim::device_span<T> (not const T, not a host range)");
    return false;
  } else if constexpr (device_range<R>) {
    static_assert(!device_range<R>,
                  "parprim: a parprim::device_span is device memory: pass it with parprim::cuda "
                  "(or parprim::mpi(comm).local(parprim::cuda)); host policies write host ranges");
    return false;
  } else {
    static_assert(writable_host_range<std::remove_reference_t<R>>,
                  "parprim: the output must be a writable contiguous sized range (std::vector, "
                  "std::array, std::span of non-const elements, a C array) of the input's size");
    return false;
  }
}

/// \brief Head flags: a range the policy reads, of one-byte elements.
template <class P, class R>
constexpr bool check_flags() {
  if constexpr (!check_input<P, R>()) {
    return false;
  } else if constexpr (sizeof(input_value_t<R>) != 1) {
    static_assert(sizeof(input_value_t<R>) == 1,
                  "parprim: head flags are one byte each (std::uint8_t), one per element");
    return false;
  } else {
    return true;
  }
}

/// \brief The transform `f` is callable on the elements.
template <class F, class... Elements>
constexpr bool check_function() {
  if constexpr (element_function<F, Elements...>) {
    return true;
  } else if constexpr (sizeof...(Elements) == 1) {
    static_assert(element_function<F, Elements...>,
                  "parprim: the transform must be callable as f(element) and return a value "
                  "(the accumulator type T is constructed from it)");
    return false;
  } else {
    static_assert(element_function<F, Elements...>,
                  "parprim: the transform must be callable as f(element1, element2) and return "
                  "a value (the accumulator type T is constructed from it)");
    return false;
  }
}

/// \brief The exclusive forms' `init` converts to the accumulator type (`Init` void: no init).
template <class Init, class T>
constexpr bool check_init() {
  if constexpr (std::is_void_v<Init> || std::is_constructible_v<T, Init>) {
    return true;
  } else {
    static_assert(std::is_constructible_v<T, Init>,
                  "parprim: init must convert to the accumulator type T (the output's value "
                  "type)");
    return false;
  }
}

// --- one chain per call shape --------------------------------------------------------------

/// \brief reduce(policy, in, T init, op). Each check is reached only when the ones before it
/// passed (a discarded `if constexpr` branch is not instantiated).
template <class P, class Impl, class In, class T, class Op>
constexpr bool reduce_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else
    return check_operator<input_value_t<In>, T, Op>();
}

/// \brief inclusive_scan / exclusive_scan(policy, in, out, [init,] op): the accumulator is the
/// output's value type.
template <class P, class Impl, class In, class Out, class Op, class Init = void>
constexpr bool scan_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

/// \brief segmented_*_scan(policy, in, head_flags, out, [init,] op).
template <class P, class Impl, class In, class Flags, class Out, class Op, class Init = void>
constexpr bool segmented_scan_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_flags<P, Flags>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

/// \brief transform_reduce(policy, in, T init, op, f).
template <class P, class Impl, class In, class T, class Op, class F>
constexpr bool transform_reduce_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_function<F, input_value_t<In>>())
    return false;
  else
    return check_operator<element_function_result_t<F, input_value_t<In>>, T, Op>();
}

/// \brief transform_reduce(policy, in1, in2, T init, op, f).
template <class P, class Impl, class In1, class In2, class T, class Op, class F>
constexpr bool transform_reduce2_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In1>())
    return false;
  else if constexpr (!check_input<P, In2>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_function<F, input_value_t<In1>, input_value_t<In2>>())
    return false;
  else
    return check_operator<element_function_result_t<F, input_value_t<In1>, input_value_t<In2>>, T,
                          Op>();
}

/// \brief transform_*_scan(policy, in, out, [init,] op, f).
template <class P, class Impl, class In, class Out, class Op, class F, class Init = void>
constexpr bool transform_scan_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else if constexpr (!check_function<F, input_value_t<In>>())
    return false;
  else
    return check_operator<element_function_result_t<F, input_value_t<In>>, input_value_t<Out>,
                          Op>();
}

/// \brief segmented_reduce(policy, in, head_flags, out, init, op).
template <class P, class Impl, class In, class Flags, class Out, class Op, class Init>
constexpr bool segmented_reduce_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_flags<P, Flags>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

/// \brief segmented_reduce(policy, in, offsets(begins), out, init, op): `Offsets` is the span
/// parprim::offsets made.
template <class P, class Impl, class In, class Offsets, class Out, class Op, class Init>
constexpr bool offsets_reduce_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_input<P, Offsets>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

/// \brief reduce_by_key(policy, keys, in, keys_out, out, op).
template <class P, class Impl, class Keys, class In, class KeysOut, class Out, class Op>
constexpr bool reduce_by_key_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, Keys>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_output<P, KeysOut>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

/// \brief inclusive_scan_by_key / exclusive_scan_by_key(policy, keys, in, out, [init,] op).
template <class P, class Impl, class Keys, class In, class Out, class Op, class Init = void>
constexpr bool scan_by_key_call_ok() {
  if constexpr (!check_policy<P>())
    return false;
  else if constexpr (!check_input<P, Keys>())
    return false;
  else if constexpr (!check_input<P, In>())
    return false;
  else if constexpr (!check_output<P, Out>())
    return false;
  else if constexpr (!check_backend<P, Impl>())
    return false;
  else if constexpr (!check_init<Init, input_value_t<Out>>())
    return false;
  else
    return check_operator<input_value_t<In>, input_value_t<Out>, Op>();
}

}  // namespace parprim::detail
