#pragma once
/// \file
/// \brief `PARPRIM_CUDA_CHECK(call)`: every CUDA runtime call goes through it; a failure
/// raises parprim::cuda_error carrying the code, the error's name and string, the call and
/// its file and line.

#include <cuda_runtime_api.h>

#include <string>

#include <parprim/error.hpp>

namespace parprim::detail::cuda {

/// \brief The message of a failed call: "file:line: call failed: cudaErrorX (string)".
inline std::string cuda_error_message(cudaError_t code, const char* call, const char* file,
                                      int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call +
         " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
}

/// \brief Throws parprim::cuda_error for `code`, first clearing the runtime's last-error
/// state (a reported, non-sticky error must not resurface in a later, unrelated check).
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  (void)cudaGetLastError();
  throw cuda_error(static_cast<int>(code), cuda_error_message(code, call, file, line));
}

}  // namespace parprim::detail::cuda

/// \brief Evaluates `call` (a cudaError_t expression) once; throws parprim::cuda_error unless
/// it returned cudaSuccess.
#define PARPRIM_CUDA_CHECK(call)                                                                  \
  do {                                                                                            \
    const cudaError_t parprim_cuda_status_ = (call);                                              \
    if (parprim_cuda_status_ != cudaSuccess)                                                      \
      ::parprim::detail::cuda::throw_cuda_error(parprim_cuda_status_, #call, __FILE__, __LINE__); \
  } while (false)
