#pragma once
/// \file
/// \brief What the front end knows about a policy type before any backend is included: whether
/// it is a parprim policy at all, which backend family it belongs to (to name the CMake target
/// in an error), and whether its ranges live in host or device memory. Each policy's header
/// specialises `policy_traits` next to the policy.

namespace parprim::detail {

/// \brief The backend family of a policy; `none` for a type that is not a parprim policy.
enum class policy_kind { none, seq, omp, cuda, mpi };

/// \brief Primary template: not a parprim policy (e.g. `std::execution::par`).
template <class Policy>
struct policy_traits {
  static constexpr policy_kind kind = policy_kind::none;
  static constexpr bool device_memory = false;
};

}  // namespace parprim::detail
