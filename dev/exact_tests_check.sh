#!/bin/bash
# scratch: the CUDA library and tests/cuda/exact_test.cu built with nvcc alone on a GPU machine,
# then the CudaExact tests and, while time is left (TIME_LEFT seconds in all, default 250),
# compute-sanitizer memcheck on the exact scans. Output under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
B=/tmp/exact-tests; rm -rf $B; mkdir -p $B/inc/parprim
printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/inc/parprim/config.hpp
ln -sfn $PWD/backends $B/inc/parprim/backends
NV="nvcc -std=c++20 -O3 -arch=sm_90 -DPARPRIM_HAS_CUDA=1 -lineinfo --extended-lambda -Iinclude -I$B/inc"
(ls src/cuda/*.cu src/cuda/*.cpp | xargs -P 16 -I{} sh -c "$NV -c {} -o $B/lib_\$(basename {}).o || echo FAILED {}"
 $NV -Itests -c tests/cuda/exact_test.cu -o $B/tests.o || echo FAILED tests) > $OUT/build.txt 2>&1
$NV $B/lib_*.o $B/tests.o -o $B/tests -lgtest -lgtest_main -lpthread >> $OUT/build.txt 2>&1
echo "build $SECONDS s"; grep -E "error|FAILED" $OUT/build.txt | head
timeout 200 $B/tests --gtest_filter='CudaExact*' > $OUT/tests.txt 2>&1
echo "tests rc=$? $SECONDS s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
left=$(( ${TIME_LEFT:-250} - SECONDS ))
if (( left > 20 )); then
  PARPRIM_CUDA_TEST_MAX_N=70000 timeout $left compute-sanitizer --tool memcheck --error-exitcode 9 \
    $B/tests --gtest_filter='CudaExact.*Scans*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; tail -n 2 $OUT/memcheck.txt
fi
