# cmake -P script run by the CTest test `parprim.consumer_pkgconfig`: installs parprim into a
# fresh prefix, then compiles tests/consumer/main.cpp the way a build without CMake would:
#   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs parprim)
# with pkg-config searching that prefix only, and runs the program.
# Inputs (-D): PARPRIM_BUILD_DIR, CONSUMER_WORK_DIR, CONSUMER_CXX_COMPILER, CONSUMER_CONFIG,
#              PKG_CONFIG_EXECUTABLE.

include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
consumer_require(run_pkgconfig.cmake
  PARPRIM_BUILD_DIR CONSUMER_WORK_DIR CONSUMER_CXX_COMPILER PKG_CONFIG_EXECUTABLE)
set(prefix "${CONSUMER_WORK_DIR}/prefix")
file(REMOVE_RECURSE "${CONSUMER_WORK_DIR}")
file(MAKE_DIRECTORY "${CONSUMER_WORK_DIR}")

step("install parprim into ${prefix}"
  "${CMAKE_COMMAND}" --install "${PARPRIM_BUILD_DIR}" --prefix "${prefix}" --config "${CONSUMER_CONFIG}")

file(GLOB_RECURSE pc_files "${prefix}/*/parprim.pc")
list(LENGTH pc_files count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "consumer: expected one installed parprim.pc, found: ${pc_files}")
endif()
get_filename_component(pc_dir "${pc_files}" DIRECTORY)

# Only the fresh prefix: no system directories, no environment.
set(ENV{PKG_CONFIG_LIBDIR} "${pc_dir}")
set(ENV{PKG_CONFIG_PATH} "")
execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --cflags --libs parprim
                OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer: pkg-config --cflags --libs parprim failed (${rc})")
endif()
message(STATUS "consumer: pkg-config --cflags --libs parprim: ${flags}")
execute_process(COMMAND "${PKG_CONFIG_EXECUTABLE}" --modversion parprim
                OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "consumer: parprim.pc version ${version}")
separate_arguments(flag_list UNIX_COMMAND "${flags}")

step("compile main.cpp with the flags pkg-config gives"
  "${CONSUMER_CXX_COMPILER}" -std=c++20 -O2 "${CMAKE_CURRENT_LIST_DIR}/main.cpp"
  -o "${CONSUMER_WORK_DIR}/consumer" ${flag_list})
step("run the consumer" "${CONSUMER_WORK_DIR}/consumer")
message(STATUS "consumer: ok")
