# The CUDA benchmarks' sources, for parprim-bench. bench/CMakeLists.txt, after
# add_executable(parprim-bench ...):
#   if(TARGET parprim::cuda)
#     include(cuda/sources.cmake)
#     target_sources(parprim-bench PRIVATE ${parprim_cuda_bench_sources})
#     target_link_libraries(parprim-bench PRIVATE parprim_cuda_project_options)
#   endif()
set(parprim_cuda_bench_sources
  ${CMAKE_CURRENT_LIST_DIR}/inputs.cu
  ${CMAKE_CURRENT_LIST_DIR}/ladder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cub_thrust.cu
  ${CMAKE_CURRENT_LIST_DIR}/device_time.cu
  ${CMAKE_CURRENT_LIST_DIR}/stream_gate.cu
  ${CMAKE_CURRENT_LIST_DIR}/copy_roof.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transform.cu
  # scans and segmented scans (names and method: scan_bench.hpp)
  ${CMAKE_CURRENT_LIST_DIR}/scan_inputs.cu
  ${CMAKE_CURRENT_LIST_DIR}/scan_ladder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scan_cub_thrust.cu
  # segmented_reduce, reduce_by_key (names and method: segments_bench.hpp)
  ${CMAKE_CURRENT_LIST_DIR}/segments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/segments_cub.cu
  # the matrix against CUB: types x operators x primitives x sizes (names and method:
  # matrix_bench.hpp); CUB's cells in three files so that a parallel build overlaps them
  ${CMAKE_CURRENT_LIST_DIR}/matrix.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matrix_check.cu
  ${CMAKE_CURRENT_LIST_DIR}/matrix_parprim_builtin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matrix_parprim_user.cu
  ${CMAKE_CURRENT_LIST_DIR}/matrix_cub_narrow.cu
  ${CMAKE_CURRENT_LIST_DIR}/matrix_cub_wide.cu
  ${CMAKE_CURRENT_LIST_DIR}/matrix_cub_user.cu)
