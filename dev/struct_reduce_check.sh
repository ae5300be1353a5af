#!/bin/bash
# scratch: the reduction of user structs (rung 7's vectorized body without an identity) in one
# call on a GPU machine: the CUDA library sources, dev/struct_reduce_probe.cu against this tree
# and against build-ab/old-backends, and tests/cuda/reduce_user_test.cu (GoogleTest) built at
# once with nvcc; then the CudaReduceUser tests, compute-sanitizer memcheck and racecheck on the
# struct arg-min test, PROBE_PAIRS pairs of the probe (old, new), and ncu on the new probe's
# kernels. Output under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
B=/tmp/structs; rm -rf $B; mkdir -p $B/new/inc/parprim $B/old/inc/parprim
for v in new old; do
  printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/$v/inc/parprim/config.hpp
done
ln -sfn $PWD/backends $B/new/inc/parprim/backends
ln -sfn $PWD/build-ab/old-backends $B/old/inc/parprim/backends
NV="nvcc -std=c++20 -O3 -arch=sm_90 -DPARPRIM_HAS_CUDA=1 -lineinfo --extended-lambda -Iinclude"
s=$SECONDS
(ls src/cuda/*.cu src/cuda/*.cpp | xargs -P 13 -I{} sh -c "$NV -I$B/new/inc -c {} -o $B/lib_\$(basename {}).o || echo FAILED {}") > $OUT/build.txt 2>&1 &
$NV -I$B/new/inc -c dev/struct_reduce_probe.cu -o $B/new.o >> $OUT/build.txt 2>&1 &
$NV -I$B/old/inc -c dev/struct_reduce_probe.cu -o $B/old.o >> $OUT/build.txt 2>&1 &
$NV -I$B/new/inc -Itests -c tests/cuda/reduce_user_test.cu -o $B/tests.o >> $OUT/build.txt 2>&1 &
wait
for v in new old; do $NV $B/lib_*.o $B/$v.o -o $B/probe_$v -lcuda >> $OUT/build.txt 2>&1; done
$NV $B/lib_*.o $B/tests.o -o $B/tests -lgtest -lgtest_main -lpthread >> $OUT/build.txt 2>&1
echo "build $((SECONDS - s)) s"; tail -5 $OUT/build.txt
timeout 120 $B/tests --gtest_filter='CudaReduceUser*' > $OUT/tests.txt 2>&1
echo "tests rc=$? $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
for tool in memcheck racecheck; do
  PARPRIM_CUDA_TEST_MAX_N=70000 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 \
    $B/tests --gtest_filter='CudaReduceUser.Argmin*:CudaReduceUser.Commutative*' > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? $((SECONDS - s)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool.txt | head -3
done
for i in $(seq ${PROBE_PAIRS:-2}); do
  for v in old new; do echo "== $v"; AB_REPS=15 timeout 60 $B/probe_$v; echo "rc=$?"; done
done > $OUT/probe.txt 2>&1
echo "probe $((SECONDS - s)) s"
PROBE_NCU=1 timeout 90 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread \
  $B/probe_new > $OUT/ncu.txt 2>&1
echo "ncu rc=$? $((SECONDS - s)) s"
