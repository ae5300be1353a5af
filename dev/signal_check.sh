#!/bin/bash
# scratch: synchronous calls that wait for their kernel's completion signal, on a GPU machine in
# one call: the CUDA tests' build (dev/cuda_tests_build.sh), the tests in TEST_FILTER, compute-
# sanitizer memcheck / racecheck / synccheck on the pipeline tests (SKIP_SANITIZERS=1: none), then
# dev/small_call_overhead.cu against the built library (small synchronous calls and CUB's).
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
source dev/cuda_tests_build.sh  # sets T and LIB
timeout ${TEST_TIMEOUT:-200} $T --gtest_filter="${TEST_FILTER:-CudaPipeline*:CudaScan*:CudaReduce*:-*Large*}" > $OUT/tests.txt 2>&1
echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/tests.txt | head -20
if [[ -z ${SKIP_SANITIZERS:-} ]]; then
  san=compute-sanitizer
  f=${SANITIZE_FILTER:-'CudaPipeline.*'}
  PARPRIM_CUDA_TEST_MAX_N=70000 timeout 90 $san --tool memcheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=20000 timeout 90 $san --tool racecheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=20000 timeout 90 $san --tool synccheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/synccheck.txt 2>&1; echo "synccheck rc=$?"
  for s in memcheck racecheck synccheck; do tail -n 2 $OUT/$s.txt; done
fi
[[ -n ${SKIP_SWEEP:-} ]] && exit 0
mkdir -p $OUT/sweep
OUT=$OUT/sweep SWEEP_LIB=$LIB bash dev/sweep.sh dev/small_call_overhead.cu 120 > $OUT/sweep/log.txt 2>&1
cat $OUT/sweep/sweep.txt
