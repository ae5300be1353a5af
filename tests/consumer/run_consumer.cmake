# cmake -P script run by the CTest test `parprim.consumer`:
#   1. cmake --install <parprim build dir> --prefix <build dir>/consumer-prefix
#   2. configure tests/consumer against that prefix only (no package registry, no system
#      search for parprim), build it, and run its tests.
# Fails on the first step that fails.
# Inputs (-D): PARPRIM_BUILD_DIR, CONSUMER_SOURCE_DIR, CONSUMER_WORK_DIR, CONSUMER_GENERATOR,
#              CONSUMER_CXX_COMPILER, CONSUMER_CONFIG, CTEST_COMMAND.

include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
consumer_require(run_consumer.cmake
  PARPRIM_BUILD_DIR CONSUMER_SOURCE_DIR CONSUMER_WORK_DIR CTEST_COMMAND)
set(prefix "${PARPRIM_BUILD_DIR}/consumer-prefix")

file(REMOVE_RECURSE "${prefix}" "${CONSUMER_WORK_DIR}")

step("install parprim into ${prefix}"
  "${CMAKE_COMMAND}" --install "${PARPRIM_BUILD_DIR}" --prefix "${prefix}"
  --config "${CONSUMER_CONFIG}")

step("configure the consumer"
  "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${CONSUMER_WORK_DIR}" ${consumer_cmake_args}
  "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}" "-DCMAKE_PREFIX_PATH=${prefix}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)

# parprim must come from the fresh prefix, not from a build tree or a system installation.
file(STRINGS "${CONSUMER_WORK_DIR}/CMakeCache.txt" found_dir REGEX "^parprim_DIR:")
string(REGEX REPLACE "^parprim_DIR:[A-Z]*=" "" found_dir "${found_dir}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${found_dir}" real_found)
string(FIND "${real_found}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "consumer: found parprim in ${found_dir}, not under ${prefix}")
endif()

step("build the consumer"
  "${CMAKE_COMMAND}" --build "${CONSUMER_WORK_DIR}" --config "${CONSUMER_CONFIG}")
consumer_run_tests()
message(STATUS "consumer: ok")
