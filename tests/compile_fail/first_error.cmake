# cmake -P script run by the compile_fail.* tests: builds TARGET in BUILD_DIR, which must fail,
# and matches the compiler's FIRST error line against REGEX (the message a user reads first).
# Inputs (-D): BUILD_DIR, TARGET, REGEX.

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not")
endif()
string(REPLACE ";" "," out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(first "")
foreach(line IN LISTS lines)
  if(line MATCHES ": (fatal )?error: ")
    set(first "${line}")
    break()
  endif()
endforeach()
if(first STREQUAL "")
  message(FATAL_ERROR "${TARGET} failed without a compiler error line:\n${out}")
endif()
if(NOT first MATCHES "${REGEX}")
  message(FATAL_ERROR "first error of ${TARGET} does not match '${REGEX}':\n  ${first}\n"
                      "full output:\n${out}")
endif()
message(STATUS "first error: ${first}")
