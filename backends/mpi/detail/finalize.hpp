#pragma once
/// \file
/// \brief Cleanup that must run before `MPI_Finalize` shuts MPI down (freeing the library's
/// datatypes, operators and communicators). It hangs on an attribute of `MPI_COMM_SELF`, whose
/// attributes MPI deletes first thing in `MPI_Finalize` (MPI-2.2 and later), while MPI calls are
/// still allowed.

#include <mpi.h>

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include <parprim/backends/mpi/detail/error.hpp>

namespace parprim::mpi_detail {

/// \brief The process-wide list of cleanup actions run at `MPI_Finalize`.
class finalizer {
 public:
  static finalizer& instance() {
    static finalizer f;
    return f;
  }

  /// \brief Runs `fn` in `MPI_Finalize`, before MPI shuts down; actions run in reverse order of
  /// registration. Thread-safe.
  void at_finalize(std::function<void()> fn) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!installed_) {
      int keyval = MPI_KEYVAL_INVALID;
      PARPRIM_MPI_CHECK(
          MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &finalizer::on_finalize, &keyval, nullptr));
      PARPRIM_MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, this));
      installed_ = true;
    }
    actions_.push_back(std::move(fn));
  }

 private:
  finalizer() = default;

  // The attribute's delete callback: MPI calls it from MPI_Finalize (or if someone deletes the
  // attribute). It must not throw into MPI.
  static int on_finalize(MPI_Comm, int keyval, void* attr, void*) {
    auto* self = static_cast<finalizer*>(attr);
    std::vector<std::function<void()>> actions;
    {
      const std::lock_guard<std::mutex> lock(self->mutex_);
      actions.swap(self->actions_);
      self->installed_ = false;
    }
    for (auto it = actions.rbegin(); it != actions.rend(); ++it) {
      try {
        (*it)();
      } catch (...) {  // NOLINT(bugprone-empty-catch): nothing sensible to do during finalize
      }
    }
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
  }

  std::mutex mutex_;
  bool installed_ = false;
  std::vector<std::function<void()>> actions_;
};

}  // namespace parprim::mpi_detail
