#pragma once
/// \file
/// \brief `parprim::mpi(comm)`: the distributed-memory policy.
///
/// Each rank of `comm` passes its local block; the global sequence is the concatenation of the
/// blocks in rank order (blocks may have different sizes, including zero). Every rank must call
/// the same primitive with the same operator, types and options, like any MPI collective, and
/// concurrent calls on one communicator from several threads are not allowed (MPI's rule for
/// collectives).
///
/// \code
///   auto total = parprim::reduce(parprim::mpi(MPI_COMM_WORLD), block, 0L, parprim::plus{});
///   parprim::inclusive_scan(parprim::mpi(comm).local(parprim::seq), in, out);
///   auto on0 = parprim::reduce(parprim::mpi(comm).root(0), block, 0.0);   // only rank 0
/// \endcode
///
/// Options, each returning a modified copy:
/// - `local(policy)`: how each rank processes its own block (`parprim::seq`, `parprim::omp`,
///   ...). Default: `parprim::seq` (one rank per core), the same in every translation unit
///   whatever it links, so the policy's type and layout never depend on the build of the file
///   that names it. For threads within a rank: `.local(parprim::omp)` (with p ranks per node,
///   `parprim::omp.threads(cores / p)`).
///   With the CUDA backend, `local(parprim::cuda)`: each rank's block is device memory
///   (`parprim::device_span`) on GPU `node rank % GPU count` (or the cuda policy's own
///   `.device(id)`; `parprim::mpi_local_device(policy)` says which), only scalars cross ranks;
///   see detail/local_cuda.hpp.
/// - `root(r)`: `reduce` delivers the result on rank r only (`MPI_Reduce`); the other ranks get
///   `init` back. Scans ignore it. Default: every rank gets the result.
/// - `collective_checks(false)`: skip the argument agreement (one small `MPI_Allreduce` per
///   call) that makes an invalid argument on one rank raise on every rank. Without it, a rank
///   whose arguments are invalid throws alone and the others block in the primitive's
///   collective. Default: on.
///
/// parprim works on a private duplicate of `comm` with `MPI_ERRORS_RETURN` (created on the first
/// call, cached on `comm`, freed with it or in `MPI_Finalize`); MPI failures raise
/// `parprim::mpi_error`. MPI must be initialised before the first call and not finalised.

#include <mpi.h>

#include <optional>
#include <string>

#include <parprim/detail/policy_traits.hpp>
#include <parprim/error.hpp>
#include <parprim/policy.hpp>

namespace parprim {

/// \brief The local policy `parprim::mpi(comm)` uses unless `.local(...)` says otherwise: the
/// same type in every translation unit.
using mpi_default_local_policy = seq_policy;

/// \brief The MPI policy: a communicator, a local policy and options (see the file comment).
/// \tparam Local  the policy each rank uses for its own block
template <class Local = mpi_default_local_policy>
class mpi_policy {
 public:
  using local_policy_type = Local;  ///< the policy each rank uses for its own block

  /// \throws parprim::invalid_argument if `comm` is `MPI_COMM_NULL` or MPI is not initialised
  /// (or already finalised).
  explicit mpi_policy(MPI_Comm comm, Local local = Local{}) : comm_(comm), local_(local) {
    validate(comm);
  }

  /// \brief The same communicator and options with another local policy.
  template <class Other>
  mpi_policy<Other> local(const Other& other) const {
    if constexpr (requires { Other::synchronous; })
      static_assert(Other::synchronous,
                    "parprim::mpi(comm).local(parprim::cuda.nosync()): the ranks exchange their "
                    "partial results through the host, so the local CUDA policy must wait for "
                    "its work; drop .nosync()");
    return mpi_policy<Other>(comm_, other, root_, checks_);
  }
  /// \brief Deliver `reduce` results on rank `r` only. \throws parprim::invalid_argument if
  /// `r < 0` (an `r` beyond the communicator is reported by the primitive, on every rank).
  mpi_policy root(int r) const {
    if (r < 0)
      throw invalid_argument("parprim::mpi(comm).root(r): r must be >= 0, got " +
                             std::to_string(r));
    mpi_policy p = *this;
    p.root_ = r;
    return p;
  }
  /// \brief Turn the cross-rank argument agreement on or off (see the file comment).
  mpi_policy collective_checks(bool on) const {
    mpi_policy p = *this;
    p.checks_ = on;
    return p;
  }

  /// \return the user's communicator
  MPI_Comm communicator() const noexcept { return comm_; }
  /// \return the local policy
  const Local& local_policy() const noexcept { return local_; }
  /// \return the rank `reduce` delivers to, or empty for every rank
  const std::optional<int>& root_rank() const noexcept { return root_; }
  /// \return whether invalid arguments on one rank raise on every rank
  bool collective_checks_enabled() const noexcept { return checks_; }

 private:
  template <class>
  friend class mpi_policy;

  mpi_policy(MPI_Comm comm, Local local, std::optional<int> root, bool checks)
      : comm_(comm), local_(local), root_(root), checks_(checks) {}

  static void validate(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) throw invalid_argument("parprim::mpi(comm): comm is MPI_COMM_NULL");
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
      throw invalid_argument(
          "parprim::mpi(comm): MPI is not initialised (call MPI_Init first) or already "
          "finalised");
  }

  MPI_Comm comm_;
  Local local_;
  std::optional<int> root_;
  bool checks_ = true;
};

namespace detail {
/// \brief Each rank's block lives where the local policy reads (device memory with
/// `.local(parprim::cuda)`).
template <class Local>
struct policy_traits<mpi_policy<Local>> {
  static constexpr policy_kind kind = policy_kind::mpi;
  static constexpr bool device_memory = policy_traits<Local>::device_memory;
};
}  // namespace detail

/// \brief The MPI policy on `comm` with the default local policy.
/// \throws parprim::invalid_argument if `comm` is `MPI_COMM_NULL` or MPI is not initialised.
inline mpi_policy<> mpi(MPI_Comm comm) {
  return mpi_policy<>(comm);
}

}  // namespace parprim
