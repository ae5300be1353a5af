# cmake -P script run by the CTest test `parprim.consumer_fetchcontent`: configures
# tests/consumer/fetchcontent (which pulls the parprim source tree in with FetchContent, tests
# off), builds it and runs its test. The CUDA backend is left off: the test is about the CMake
# wiring, and compiling the CUDA library again would take minutes.
# Inputs (-D): PARPRIM_SOURCE_DIR, CONSUMER_WORK_DIR, CONSUMER_GENERATOR, CONSUMER_CXX_COMPILER,
#              CONSUMER_CONFIG, CTEST_COMMAND.

include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
consumer_require(run_fetchcontent.cmake PARPRIM_SOURCE_DIR CONSUMER_WORK_DIR CTEST_COMMAND)

file(REMOVE_RECURSE "${CONSUMER_WORK_DIR}")
step("configure the FetchContent consumer"
  "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/fetchcontent" -B "${CONSUMER_WORK_DIR}"
  ${consumer_cmake_args} "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}" "-DPARPRIM_SOURCE_DIR=${PARPRIM_SOURCE_DIR}"
  -DPARPRIM_WITH_CUDA=OFF)
step("build the consumer" "${CMAKE_COMMAND}" --build "${CONSUMER_WORK_DIR}" --config "${CONSUMER_CONFIG}")
consumer_run_tests()
message(STATUS "consumer: ok")
