# What the run_*.cmake scripts (cmake -P, one per way of depending on parprim) share: the
# check of their -D inputs, the default configuration, the consumer's CMake arguments, and
# step(), which runs one command and fails the test when it fails.

# consumer_require(<script> <var>...): fails unless every <var> is set and not empty.
function(consumer_require script)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "${script}: ${var} is not set")
    endif()
  endforeach()
endfunction()

if(NOT CONSUMER_CONFIG)
  set(CONSUMER_CONFIG Release)
endif()

# The generator and compiler of parprim's own build, for configuring the consumer.
set(consumer_cmake_args)
if(CONSUMER_GENERATOR)
  list(APPEND consumer_cmake_args -G "${CONSUMER_GENERATOR}")
endif()
if(CONSUMER_CXX_COMPILER)
  list(APPEND consumer_cmake_args "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}")
endif()

function(step what)
  message(STATUS "consumer: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: ${what} failed (${rc})")
  endif()
endfunction()

# consumer_run_tests(): runs the tests of the consumer built in CONSUMER_WORK_DIR.
function(consumer_run_tests)
  step("run the consumer"
    "${CTEST_COMMAND}" --test-dir "${CONSUMER_WORK_DIR}" -C "${CONSUMER_CONFIG}"
    --output-on-failure --no-tests=error)
endfunction()
