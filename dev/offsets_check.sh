#!/bin/bash
# scratch: the offsets form of segmented_reduce on a GPU machine in one call: the CUDA tests'
# build, the per-segment tests, the offsets sweep against CUB (and dev/base_segment_tiles.cuh
# where present), ncu of the three steps' tile kernel at 2^28 (segments of 1024 and 32).
# OFFSETS_CHECK_ONLY: a regex of steps (build|tests|sweep|flagsweep|ncu|sanitizers|stretches);
# stretches: dev/offsets_stretch_check.cu, alone and under memcheck, racecheck and synccheck
# (output in $OUT/stretches/); flagsweep:
# dev/segments_look_back_sweep.cu's head-flag rows (FLAGS_ONLY=1), output in $OUT/flags/.
# The sweep's output: $OUT/sweep.txt; the profile's: $OUT/profile/.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
only=${OFFSETS_CHECK_ONLY:-build|tests|sweep|ncu}
want() { [[ $1 =~ ^($only)$ ]]; }
want build && source dev/cuda_tests_build.sh
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
if want tests; then
  timeout 300 $T --gtest_filter='CudaPerSegment*' > $OUT/tests.txt 2>&1; echo "tests rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/tests.txt | head
fi
if want sweep; then
  OUT=$OUT SWEEP_LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1) bash dev/sweep.sh dev/segments_offsets_sweep.cu 240 > /dev/null 2>&1
  echo "sweep:"; grep -E "^n =|round|WRONG|failures" $OUT/sweep.txt
fi
if want flagsweep; then
  mkdir -p $OUT/flags
  OUT=$OUT/flags FLAGS_ONLY=1 SWEEP_LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1) bash dev/sweep.sh dev/segments_look_back_sweep.cu 200 > /dev/null 2>&1
  echo "flags sweep:"; cat $OUT/flags/sweep.txt
fi
if want ncu; then
  mkdir -p $OUT/profile
  OUT=$OUT/profile SWEEP_LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1) OFFSETS_CALLS=1 bash dev/sweep.sh dev/offsets_profile.cu 100 > $OUT/profile.txt 2>&1
  cuobjdump -sass /tmp/smoke/sweep | awk '/Function : .*reduce_tilesIiiiNS_4plusELj5/{p=1} /Function : /&&!/reduce_tilesIiiiNS_4plusELj5/{p=0} p' > $OUT/reduce_tiles.sass
  for L in 1024 32; do
    OFFSETS_LEN=$L OFFSETS_CALLS=2 timeout 150 ncu --clock-control none --kernel-name regex:reduce_tiles --launch-skip 1 --launch-count 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis /tmp/smoke/sweep > $OUT/ncu-len$L.txt 2>&1
    echo "ncu $L: $(grep -E ' Duration|Executed Instructions  |One or More' $OUT/ncu-len$L.txt | tr -s ' ' | tr '\n' ';')"
  done
fi
if want sanitizers; then
  san=compute-sanitizer; x='-*Error*:*BadInput*'
  PARPRIM_CUDA_TEST_MAX_N=20000 timeout 120 $san --tool memcheck --error-exitcode 1 $T --gtest_filter="CudaPerSegment*$x" > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=5000 timeout 200 $san --tool racecheck --error-exitcode 1 $T --gtest_filter="CudaPerSegment/0.*:CudaPerSegment/6.*$x" > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"
  PARPRIM_CUDA_TEST_MAX_N=9000 timeout 120 $san --tool synccheck --error-exitcode 1 $T --gtest_filter="CudaPerSegment*$x" > $OUT/synccheck.txt 2>&1; echo "synccheck rc=$?"
  tail -n 3 $OUT/memcheck.txt $OUT/racecheck.txt $OUT/synccheck.txt
fi
if want stretches; then
  mkdir -p $OUT/stretches
  OUT=$OUT/stretches SWEEP_LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1) bash dev/sweep.sh dev/offsets_stretch_check.cu 60 > $OUT/stretches/log.txt 2>&1
  echo "stretches: $(grep -c ': ok' $OUT/stretches/sweep.txt) ok, $(grep -E '^failures' $OUT/stretches/sweep.txt)"
  for tool in memcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/smoke/sweep > $OUT/stretches/$tool.txt 2>&1
    echo "$tool rc=$?: $(tail -1 $OUT/stretches/$tool.txt)"
  done
fi
