#pragma once
/// \file
/// \brief Exceptions from user code (the operator, a transform) inside a parallel region: the
/// first one thrown on any thread is kept and rethrown on the calling thread after the region.
/// An exception must not leave an OpenMP region (the runtime would call std::terminate).

#include <atomic>
#include <exception>

namespace parprim::openmp::detail {

class first_exception {
 public:
  /// \brief Runs `f()` unless a thread has already failed; catches what it throws. Threads keep
  /// reaching the region's barriers after a failure (only their work is skipped), so nothing
  /// waits for a thread that left.
  template <class F>
  void run(F&& f) noexcept {
    if (failed()) return;
    try {
      f();
    } catch (...) {
      if (!claimed_.exchange(true)) error_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
  /// \brief After the region (its implicit barrier orders the write before this read).
  void rethrow_if_failed() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> claimed_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

}  // namespace parprim::openmp::detail
