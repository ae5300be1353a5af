# The API reference: target `docs` runs Doxygen on the public headers (docs/Doxyfile.in) and
# writes <build dir>/docs/api/html/index.html. An undocumented public name fails the target
# (WARN_AS_ERROR). Defined only when parprim is the top-level project, so that a project that
# pulls parprim in keeps the target name `docs` for itself.

find_package(Doxygen QUIET)
set(PARPRIM_DOCS_OUTPUT_DIR "${PROJECT_BINARY_DIR}/docs/api")
if(DOXYGEN_FOUND)
  configure_file("${PROJECT_SOURCE_DIR}/docs/Doxyfile.in" "${PROJECT_BINARY_DIR}/docs/Doxyfile"
                 @ONLY)
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E remove_directory "${PARPRIM_DOCS_OUTPUT_DIR}"
    COMMAND Doxygen::doxygen "${PROJECT_BINARY_DIR}/docs/Doxyfile"
    COMMAND "${CMAKE_COMMAND}" -E echo "API reference: ${PARPRIM_DOCS_OUTPUT_DIR}/html/index.html"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Doxygen: the API reference from include/parprim (undocumented public names fail)"
    VERBATIM)
else()
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E echo
            "parprim: doxygen not found (Debian/Ubuntu: apt-get install doxygen); reconfigure after installing it"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
endif()
