#!/bin/bash
# scratch: the GPU exact sums on a GPU machine in one call: the CUDA tests' build, the exact
# tests, the fixed-cost sweep (dev/exact_reduce_fixed.cu), dev/exact_reduce_sweep.cu and
# dev/exact_scan_sweep.cu against the library's plain calls and CUB, the sanitizers.
# EXACT_CHECK_ONLY: a regex of steps (build|tests|fixed|reducesweep|scansweep|profile|sanitizers);
# profile: ncu (full set, SASS source page) of the double exact reduce at 2^${EXACT_PROFILE_LOG2N:-20}.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
only=${EXACT_CHECK_ONLY:-build|tests|fixed|sanitizers}
want() { [[ $1 =~ ^($only)$ ]]; }
want build && source dev/cuda_tests_build.sh
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1)
if want tests; then
  timeout 400 $T --gtest_filter='CudaExact*:CudaScanCarry*' > $OUT/tests.txt 2>&1; echo "tests rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/tests.txt | head
fi
for s in fixed:exact_reduce_fixed reducesweep:exact_reduce_sweep scansweep:exact_scan_sweep; do
  if want ${s%%:*}; then
    mkdir -p $OUT/${s%%:*}
    OUT=$OUT/${s%%:*} SWEEP_LIB=$LIB bash dev/sweep.sh dev/${s#*:}.cu 240 > $OUT/${s%%:*}/log.txt 2>&1
    echo "${s%%:*}:"; cat $OUT/${s%%:*}/sweep.txt
  fi
done
if want profile; then
  mkdir -p $OUT/profile
  OUT=$OUT/profile SWEEP_LIB=$LIB PROFILE=${EXACT_PROFILE_LOG2N:-20} bash dev/sweep.sh dev/exact_reduce_fixed.cu 60 > $OUT/profile/log.txt 2>&1
  PROFILE=${EXACT_PROFILE_LOG2N:-20} timeout 200 ncu --clock-control none --set full --import-source yes -k regex:reduce_exact_sum --launch-skip 1 -c 1 -o $OUT/profile/prof /tmp/smoke/sweep > $OUT/profile/ncu.log 2>&1
  ncu -i $OUT/profile/prof.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $OUT/profile/source.csv.gz
  ncu -i $OUT/profile/prof.ncu-rep --page details > $OUT/profile/details.txt 2>&1
  echo "profile: $(grep -E ' Duration' $OUT/profile/details.txt | tr -s ' ')"
fi
if want sanitizers; then
  san=compute-sanitizer
  PARPRIM_CUDA_TEST_MAX_N=70000 timeout 150 $san --tool memcheck --error-exitcode 1 $T --gtest_filter='CudaExact.*Reduce*:CudaExact.EveryRung*:CudaExact.*Scans*' > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=9000 timeout 100 $san --tool racecheck --error-exitcode 1 $T --gtest_filter='CudaExact.*Reduce*' > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=2100 timeout 100 $san --tool racecheck --error-exitcode 1 $T --gtest_filter='CudaExact.*Scans*' > $OUT/racecheck-scans.txt 2>&1; echo "racecheck scans rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=20000 timeout 120 $san --tool synccheck --error-exitcode 1 $T --gtest_filter='CudaExact.*Reduce*:CudaExact.*Scans*' > $OUT/synccheck.txt 2>&1; echo "synccheck rc=$?"
  for f in memcheck racecheck racecheck-scans synccheck; do tail -n 3 $OUT/$f.txt; done
fi
