#!/bin/bash
# scratch: float / double minimum and maximum on ordered keys, in one call on a GPU machine:
# builds the CUDA tests (dev/cuda_tests_build.sh) and the A/B binaries of dev/ab_minmax.cu
# (this tree against build-ab/old-backends) at once, runs the scan, reduce and carry suites,
# compute-sanitizer (memcheck, racecheck, synccheck) on MEMCHECK_FILTER, then AB_PAIRS pairs
# of the A/B (AB_ONLY=1: the A/B alone). Output under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT/ab
s=$SECONDS
[[ -z ${AB_ONLY:-} ]] && (source dev/cuda_tests_build.sh > $OUT/tests_build.txt 2>&1) &
for v in new old; do
  backends=$PWD/backends; [[ $v == old ]] && backends=$PWD/build-ab/old-backends
  SWEEP_BUILD=/tmp/ab_$v SWEEP_BACKENDS=$backends SWEEP_BUILD_ONLY=1 \
    bash dev/sweep.sh dev/ab_minmax.cu > $OUT/ab/build_$v.txt 2>&1 &
done
wait
echo "builds $((SECONDS - s)) s"; cat $OUT/tests_build.txt $OUT/ab/build_new.txt $OUT/ab/build_old.txt
if [[ -z ${AB_ONLY:-} ]]; then
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
timeout ${TEST_TIMEOUT:-240} $T --gtest_filter="${TEST_FILTER:-CudaScanBuiltin*:CudaReduceBuiltin*:CudaScanCarry*}" \
  > $OUT/tests.txt 2>&1
echo "tests rc=$? $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head -20
if [[ -n ${MEMCHECK_FILTER:-} ]]; then
  for tool in memcheck racecheck synccheck; do
    PARPRIM_CUDA_TEST_SCAN_RUNGS=5,6 PARPRIM_CUDA_TEST_MAX_N=70000 timeout 150 compute-sanitizer \
      --tool $tool --error-exitcode 9 $T --gtest_filter="$MEMCHECK_FILTER" > $OUT/$tool.txt 2>&1
    echo "$tool rc=$? $((SECONDS - s)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/$tool.txt | head -3
  done
fi
fi
for i in $(seq ${AB_PAIRS:-2}); do
  for v in old new; do
    echo "== $v"; AB_ROUNDS=${AB_ROUNDS:-1} timeout 150 /tmp/ab_$v/sweep
  done
done > $OUT/ab/ab.txt 2>&1
echo "ab rc=$? $((SECONDS - s)) s"
