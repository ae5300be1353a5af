#!/bin/bash
# scratch: the fixed-tree float scans on a GPU machine in one call: the CUDA tests' build, the
# scan tests, the sanitizers on the deterministic float scans, then dev/rung6_float_sweep.cu at
# the sizes in SWEEP_LOG2N (default 26,28; none: no sweep) against the library's built scans and
# CUB. SKIP_TESTS=1 leaves the tests out, TEST_FILTER names others, SKIP_SANITIZERS=1 leaves the
# sanitizers out, WIDE_SWEEP=1 also runs dev/rung6_wide_sweep.cu (segmented float64, affine maps).
# The library's kernels' registers and stack go to $OUT/res-usage.txt.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
source dev/cuda_tests_build.sh  # sets T and LIB
cuobjdump -res-usage $LIB > $OUT/res-usage.txt 2>&1
if [[ -z ${SKIP_TESTS:-} ]]; then
  timeout ${TEST_TIMEOUT:-150} $T --gtest_filter="${TEST_FILTER:-CudaScan*:CudaTransform.Scan*}" > $OUT/tests.txt 2>&1
  echo "tests rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/tests.txt | head
fi
if [[ -z ${SKIP_SANITIZERS:-} ]]; then
san=compute-sanitizer
f='CudaScanDeterminism/*:CudaScanBuiltin/*.InclusiveAndExclusive*'
PARPRIM_CUDA_TEST_MAX_N=70000 timeout 80 $san --tool memcheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
PARPRIM_CUDA_TEST_MAX_N=5000 timeout 90 $san --tool racecheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"
PARPRIM_CUDA_TEST_MAX_N=20000 timeout 90 $san --tool synccheck --error-exitcode 1 $T --gtest_filter="$f" > $OUT/synccheck.txt 2>&1; echo "synccheck rc=$?"
for s in memcheck racecheck synccheck; do tail -n 2 $OUT/$s.txt; done
fi
[[ ${SWEEP_LOG2N:-} == none ]] && exit 0
mkdir -p $OUT/sweep
SWEEP_LOG2N=${SWEEP_LOG2N:-26,28} OUT=$OUT/sweep SWEEP_LIB=$LIB bash dev/sweep.sh dev/rung6_float_sweep.cu ${SWEEP_TIMEOUT:-150} > $OUT/sweep/log.txt 2>&1
cat $OUT/sweep/sweep.txt
if [[ -n ${WIDE_SWEEP:-} ]]; then
  mkdir -p $OUT/wide
  OUT=$OUT/wide SWEEP_LIB=$LIB bash dev/sweep.sh dev/rung6_wide_sweep.cu ${WIDE_TIMEOUT:-150} > $OUT/wide/log.txt 2>&1
  cat $OUT/wide/sweep.txt
fi
