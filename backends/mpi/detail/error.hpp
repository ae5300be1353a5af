#pragma once
/// \file
/// \brief `PARPRIM_MPI_CHECK`: an MPI call whose return code is not `MPI_SUCCESS` becomes a
/// `parprim::mpi_error` carrying the code, MPI's error string, the call and its file and line.
/// The library's communicators use `MPI_ERRORS_RETURN`, so failures come back as codes.

#include <mpi.h>

#include <cstddef>
#include <string>

#include <parprim/error.hpp>

namespace parprim::mpi_detail {

/// \return MPI's text for an error code (class and string).
inline std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
    return "unknown MPI error code " + std::to_string(code);
  int error_class = 0;
  std::string s(text, static_cast<std::size_t>(len));
  if (MPI_Error_class(code, &error_class) == MPI_SUCCESS && error_class != code)
    s += " (error class " + std::to_string(error_class) + ")";
  return s;
}

/// \brief Throws `parprim::mpi_error` for a failed call.
[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
  throw mpi_error(code, std::string("parprim: MPI call failed at ") + file + ":" +
                            std::to_string(line) + ": " + call + ": " + error_string(code));
}

/// \brief Throws unless `code == MPI_SUCCESS`.
inline void check(int code, const char* call, const char* file, int line) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, call, file, line);
}

}  // namespace parprim::mpi_detail

/// \brief Evaluates an MPI call; throws `parprim::mpi_error` (code, MPI's error string, the
/// call's text, file and line) unless it returned `MPI_SUCCESS`.
#define PARPRIM_MPI_CHECK(...) \
  ::parprim::mpi_detail::check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
