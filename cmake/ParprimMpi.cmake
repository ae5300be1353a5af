# The MPI backend: header-only target parprim::mpi, and parprim_add_mpi_test() for
# tests and examples that run under the MPI launcher. Included by the root CMakeLists.txt
# when the backend is built (MPI found, PARPRIM_WITH_MPI not OFF).

add_library(parprim_mpi INTERFACE)
add_library(parprim::mpi ALIAS parprim_mpi)
set_target_properties(parprim_mpi PROPERTIES EXPORT_NAME mpi)
target_link_libraries(parprim_mpi INTERFACE parprim_core MPI::MPI_CXX)
target_compile_definitions(parprim_mpi INTERFACE PARPRIM_HAS_MPI=1)
target_link_libraries(parprim_all INTERFACE parprim_mpi)
list(APPEND parprim_exported parprim_mpi)

# --- launching MPI programs from CTest --------------------------------------------------------
# Open MPI refuses more ranks than cores without --oversubscribe, and refuses to run as root
# without --allow-run-as-root: both are detected here, once, and can be overridden.
if(NOT DEFINED PARPRIM_MPIEXEC_FLAGS)
  set(parprim_flags "")
  if(MPIEXEC_EXECUTABLE)
    execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version
                    OUTPUT_VARIABLE parprim_mpiexec_version ERROR_VARIABLE parprim_mpiexec_version
                    RESULT_VARIABLE parprim_mpiexec_rc TIMEOUT 30)
    if(parprim_mpiexec_version MATCHES "Open MPI|OpenRTE")
      list(APPEND parprim_flags --oversubscribe)
      execute_process(COMMAND id -u OUTPUT_VARIABLE parprim_uid
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(parprim_uid STREQUAL "0")
        list(APPEND parprim_flags --allow-run-as-root)
      endif()
    endif()
  endif()
  set(PARPRIM_MPIEXEC_FLAGS "${parprim_flags}" CACHE STRING
      "Extra flags for ${MPIEXEC_EXECUTABLE} when CTest runs MPI tests and examples")
  message(STATUS "parprim: MPI launcher: ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} N ${PARPRIM_MPIEXEC_FLAGS}")
endif()

# parprim_add_mpi_test(<name> RANKS <n> COMMAND <target-or-executable> [ARGS ...] [LABELS ...])
# Registers `${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} <n> <flags> <exe> <args>` with label
# mpi (plus LABELS) and PROCESSORS <n>.
function(parprim_add_mpi_test name)
  cmake_parse_arguments(arg "" "RANKS;COMMAND" "ARGS;LABELS" ${ARGN})
  if(TARGET ${arg_COMMAND})
    set(exe $<TARGET_FILE:${arg_COMMAND}>)
  else()
    set(exe ${arg_COMMAND})
  endif()
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${arg_RANKS} ${PARPRIM_MPIEXEC_FLAGS}
                   ${MPIEXEC_PREFLAGS} ${exe} ${MPIEXEC_POSTFLAGS} ${arg_ARGS})
  set(environment "OMP_WAIT_POLICY=passive")
  if("address" IN_LIST PARPRIM_SANITIZERS)
    # Open MPI unloads its components at MPI_Finalize, so LeakSanitizer cannot name (or
    # suppress) the allocations they keep until exit: leak detection is off for MPI processes.
    # AddressSanitizer's other checks (buffer overflows, use after free) stay on.
    list(APPEND environment "ASAN_OPTIONS=detect_leaks=0")
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "mpi;${arg_LABELS}" PROCESSORS ${arg_RANKS}
                       TIMEOUT 600 ENVIRONMENT "${environment}")
endfunction()
