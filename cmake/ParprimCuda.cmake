# The CUDA backend: target parprim_cuda (parprim::cuda, exported as parprim::cuda).
# Included by the root CMakeLists.txt when the CUDA backend is built (parprim_built_CUDA),
# after parprim_core / parprim_all exist. It
#   - defaults CMAKE_CUDA_ARCHITECTURES to Hopper machine code + PTX ("90-real;90-virtual")
#     unless the user set it (cache variable or the CUDAARCHS environment variable);
#   - enables the CUDA language and finds the toolkit (CUDA::cudart);
#   - builds the precompiled instantiations (src/cuda/) that plain C++ translation units call;
#   - defines parprim_cuda_project_options: parprim's warning flags for CXX and CUDA sources
#     (-Werror with PARPRIM_WERROR), for parprim's own CUDA tests and benches.

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING
      "CUDA architectures (parprim's default: sm_90 machine code + compute_90 PTX)")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
  message(FATAL_ERROR "parprim: the CUDA backend needs nvcc >= 12.0 for C++20 device code "
                      "(found ${CMAKE_CUDA_COMPILER_VERSION}); configure with -DPARPRIM_WITH_CUDA=OFF")
endif()

add_library(parprim_cuda STATIC
  src/cuda/memory.cpp
  src/cuda/temp_storage.cpp
  src/cuda/reduce_int32.cu
  src/cuda/reduce_uint32.cu
  src/cuda/reduce_int64.cu
  src/cuda/reduce_uint64.cu
  src/cuda/reduce_float.cu
  src/cuda/reduce_double.cu
  src/cuda/scan_int32.cu
  src/cuda/scan_uint32.cu
  src/cuda/scan_int64.cu
  src/cuda/scan_uint64.cu
  src/cuda/scan_float.cu
  src/cuda/scan_double.cu
  src/cuda/segments.cu
  src/cuda/segments_int32.cu
  src/cuda/segments_uint32.cu
  src/cuda/segments_int64.cu
  src/cuda/segments_uint64.cu
  src/cuda/segments_float.cu
  src/cuda/segments_double.cu)
add_library(parprim::cuda ALIAS parprim_cuda)
set_target_properties(parprim_cuda PROPERTIES
  EXPORT_NAME cuda
  OUTPUT_NAME parprim_cuda
  POSITION_INDEPENDENT_CODE ON)
target_link_libraries(parprim_cuda PUBLIC parprim_core CUDA::cudart)
target_compile_definitions(parprim_cuda PUBLIC PARPRIM_HAS_CUDA=1)
# C++20 in device code too (the headers use concepts). CMake learned nvcc's C++20 flag after
# 3.25: use the compile feature where it exists, the flag otherwise.
if(DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  target_compile_features(parprim_cuda PUBLIC cuda_std_20)
else()
  target_compile_options(parprim_cuda PUBLIC $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
endif()

# Warnings for parprim's own CXX and CUDA sources (never exported). Not parprim_project_options:
# its sanitizer flags would reach nvcc.
add_library(parprim_cuda_project_options INTERFACE)
target_compile_options(parprim_cuda_project_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${PARPRIM_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -lineinfo>
  "$<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${PARPRIM_WERROR}>>:SHELL:--Werror all-warnings>"
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${PARPRIM_WERROR}>>:-Xcompiler=-Werror>)
target_link_libraries(parprim_cuda PRIVATE $<BUILD_INTERFACE:parprim_cuda_project_options>)

# A .cu file that includes <parprim/parprim.hpp> and links parprim::openmp (or parprim::parprim)
# compiles the OpenMP backend in nvcc's host pass: give that pass OpenMP too.
if(TARGET parprim_openmp)
  target_compile_options(parprim_openmp INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${OpenMP_CXX_FLAGS}>)
endif()

target_link_libraries(parprim_all INTERFACE parprim_cuda)
list(APPEND parprim_exported parprim_cuda)
