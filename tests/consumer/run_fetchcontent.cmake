# cmake -P script run by the CTest test `parprim.consumer_fetchcontent`: configures
# tests/consumer/fetchcontent (which pulls the parprim source tree in with FetchContent, tests
# off), builds it and runs its test. The CUDA backend is left off: the test is about the CMake
# wiring, and compiling the CUDA library again would take minutes.
# Inputs (-D): PARPRIM_SOURCE_DIR, CONSUMER_WORK_DIR, CONSUMER_GENERATOR, CONSUMER_CXX_COMPILER,
#              CONSUMER_CONFIG, CTEST_COMMAND.

foreach(var PARPRIM_SOURCE_DIR CONSUMER_WORK_DIR CTEST_COMMAND)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_fetchcontent.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT CONSUMER_CONFIG)
  set(CONSUMER_CONFIG Release)
endif()

function(step what)
  message(STATUS "consumer: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: ${what} failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${CONSUMER_WORK_DIR}")
set(args)
if(CONSUMER_GENERATOR)
  list(APPEND args -G "${CONSUMER_GENERATOR}")
endif()
if(CONSUMER_CXX_COMPILER)
  list(APPEND args "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}")
endif()
step("configure the FetchContent consumer"
  "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/fetchcontent" -B "${CONSUMER_WORK_DIR}"
  ${args} "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}" "-DPARPRIM_SOURCE_DIR=${PARPRIM_SOURCE_DIR}"
  -DPARPRIM_WITH_CUDA=OFF)
step("build the consumer" "${CMAKE_COMMAND}" --build "${CONSUMER_WORK_DIR}" --config "${CONSUMER_CONFIG}")
step("run the consumer"
  "${CTEST_COMMAND}" --test-dir "${CONSUMER_WORK_DIR}" -C "${CONSUMER_CONFIG}"
  --output-on-failure --no-tests=error)
message(STATUS "consumer: ok")
