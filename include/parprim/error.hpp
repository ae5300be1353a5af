#pragma once
/// \file
/// \brief The exceptions parprim throws. Every backend reports failures through these types;
/// none aborts, prints and continues, or returns an error code.

#include <stdexcept>
#include <string>

namespace parprim {

/// \brief Base of every exception parprim throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// \brief Bad input detected before anything was written: size mismatch between ranges,
/// null data with a non-zero size, partially overlapping input and output, a non-positive
/// thread count, and the like. The output is untouched when this is thrown.
class invalid_argument : public error {
 public:
  using error::error;
};

/// \brief A CUDA runtime call failed; carries the error code and the call site.
class cuda_error : public error {
 public:
  /// \brief `code`: the `cudaError_t` value; `what`: message with the call site.
  cuda_error(int code, const std::string& what) : error(what), code_(code) {}
  /// \return the `cudaError_t` value, as an int (this header names no CUDA type).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// \brief An MPI call failed; carries the MPI error code and MPI's error string.
class mpi_error : public error {
 public:
  /// \brief `code`: the MPI error code; `what`: message with MPI's error string.
  mpi_error(int code, const std::string& what) : error(what), code_(code) {}
  /// \return the MPI error code.
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace parprim
