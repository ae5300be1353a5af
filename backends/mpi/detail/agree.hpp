#pragma once
/// \file
/// \brief Cross-rank agreement on the arguments. The front end validates arguments on each
/// rank before calling a backend; a rank whose arguments are invalid would throw alone while
/// the others block in the primitive's collective. The MPI entry points (the `parprim::reduce`
/// ... overloads for `mpi_policy` in reduce.hpp, scan.hpp, segmented_scan.hpp) therefore run
/// the same checks, plus the local policy's own (`local_checks`, detail/local.hpp: with
/// `.local(parprim::cuda)`, that a GPU exists and the blocks are on it), then agree on the
/// outcome with one `MPI_Allreduce` of three ints, so every
/// rank throws or none does. The same exchange checks that all ranks name the same root.

#include <mpi.h>

#include <exception>
#include <string>
#include <utility>

#include <parprim/backends/mpi/detail/comm.hpp>
#include <parprim/backends/mpi/detail/error.hpp>
#include <parprim/backends/mpi/policy.hpp>
#include <parprim/error.hpp>

namespace parprim::mpi_detail {

/// \brief `message` of rank `first`, on every rank (collective).
inline std::string message_of_rank(const context& ctx, int first, std::string message) {
  int len = static_cast<int>(message.size());
  PARPRIM_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, first, ctx.comm));
  message.resize(static_cast<std::size_t>(len));
  PARPRIM_MPI_CHECK(MPI_Bcast(message.data(), len, MPI_CHAR, first, ctx.comm));
  return message;
}

/// \brief What `work()` threw on this rank, if anything, and its message.
struct local_outcome {
  std::exception_ptr failure;
  std::string message;
};
template <class Work>
local_outcome run_capturing(Work& work) {
  try {
    work();
  } catch (const std::exception& e) {
    return {std::current_exception(), e.what()};
  } catch (...) {
    return {std::current_exception(), "an exception not derived from std::exception"};
  }
  return {};
}

/// \brief Runs `checks()` on every rank; if it threw on any rank (`parprim::error`,
/// or the operator, which the operator checker runs), every rank
/// throws: the failing ranks their own exception, the others `parprim::invalid_argument`
/// naming the first failing rank and its message. Collective over the policy's communicator.
template <class Local, class Checks>
void agree_on_arguments(const mpi_policy<Local>& policy, const char* fn, Checks checks) {
  // First (collective on the communicator's first use): the checks may use the context.
  const context ctx = make_context(policy.communicator());
  auto [failure, message] = run_capturing(checks);
  const int root = policy.root_rank().value_or(-1);
  if (ctx.size > 1 && policy.collective_checks_enabled()) {
    // {first failing rank as size - rank (0: none), max root, -min root}
    int v[3] = {failure ? ctx.size - ctx.rank : 0, root, -root};
    PARPRIM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, ctx.comm));
    if (v[0] > 0) {
      const int first = ctx.size - v[0];
      message = message_of_rank(ctx, first, std::move(message));
      if (failure) std::rethrow_exception(failure);
      throw invalid_argument(std::string("parprim::") + fn + ": invalid arguments on rank " +
                             std::to_string(first) + ": " + message);
    }
    if (v[1] != -v[2])
      throw invalid_argument(std::string("parprim::") + fn +
                             ": the ranks passed different mpi(comm).root(r) options");
  } else if (failure) {
    std::rethrow_exception(failure);
  }
  if (root >= ctx.size)
    throw invalid_argument(std::string("parprim::") + fn + ": mpi(comm).root(" +
                           std::to_string(root) + ") but the communicator has " +
                           std::to_string(ctx.size) + " ranks");
}

/// \brief Runs this rank's local work before a primitive's collective. If it threw on any rank
/// (the operator, or a transform, on this rank's block), every rank throws instead of entering
/// the collective: the failing ranks their own exception, the others `parprim::error` naming
/// the first failing rank and its message. One `MPI_Allreduce` of an int (skipped on one rank
/// and with collective checks off, where the exception simply propagates).
template <class Local, class Work>
void agree_on_local_work(const mpi_policy<Local>& policy, const char* fn, Work work) {
  const context ctx = make_context(policy.communicator());
  auto [failure, message] = run_capturing(work);
  if (ctx.size == 1 || !policy.collective_checks_enabled()) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  int v = failure ? ctx.size - ctx.rank : 0;  // first failing rank as size - rank
  PARPRIM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, ctx.comm));
  if (v == 0) return;
  const int first = ctx.size - v;
  message = message_of_rank(ctx, first, std::move(message));
  if (failure) std::rethrow_exception(failure);
  throw error(std::string("parprim::") + fn + ": the local work threw on rank " +
              std::to_string(first) + ": " + message);
}

}  // namespace parprim::mpi_detail
