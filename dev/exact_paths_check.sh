#!/bin/bash
# scratch: the GPU exact scans' paths in one call on a GPU machine, built with nvcc alone (no
# CMake): the CUDA library sources and tests/cuda/exact_test.cu (GoogleTest) against this tree;
# the same test program with three mutations the exact tests must catch
# (kernels/scan_exact_sum.cuh: exact_output rounds one last place up; the double results'
# carried prefix drops its low part; in scan_tile_by_lanes lane 0 counts its own elements
# twice); dev/exact_scan_paths.cu (the paths each seed takes, and their times); and
# dev/exact_scan_ab.cu against this tree and against build-ab/old-tree (an earlier commit's
# include/, backends/ and src/, carried). Then the exact tests, the mutated ones, the probe
# (narrow and wide inputs), AB_PAIRS pairs of the A/B (old, new) and compute-sanitizer
# memcheck, racecheck and synccheck on the exact scans. STEPS: a regex of
# build|tests|probe|ab|sanitizers (default all). Output under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
steps=${STEPS:-build|tests|probe|ab|sanitizers}
want() { [[ $1 =~ ^($steps)$ ]]; }
B=/tmp/paths-check
s=$SECONDS
if want build; then
rm -rf $B; mkdir -p $B/new/inc/parprim $B/mut/inc/parprim $B/old/inc/parprim
for v in new mut old; do
  printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/$v/inc/parprim/config.hpp
done
ln -sfn $PWD/backends $B/new/inc/parprim/backends
ln -sfn $PWD/build-ab/old-tree/backends $B/old/inc/parprim/backends
cp -r backends $B/mut/inc/parprim/backends
M=$B/mut/inc/parprim/backends/cuda/kernels/scan_exact_sum.cuh
sed -i 's/  out = prefix.template round<F>();/  out = __builtin_bit_cast(F, __builtin_bit_cast(unsigned, prefix.template round<F>()) + 1u);/' $M
sed -i 's/      a_lo = two_sum(u, c, a_hi);/      two_sum(u, c, a_hi); a_lo = 0;/' $M
sed -i 's/  if (lane == 0) before = exact_accumulator<F>{};/  if (lane == 0) before.state = 0;/' $M
echo "mutations: $(grep -c 'bit_cast(unsigned, prefix\|a_lo = 0;\|before.state = 0;' $M) (want 3)"
NV="nvcc -std=c++20 -O3 -arch=sm_90 -DPARPRIM_HAS_CUDA=1 -lineinfo --extended-lambda -Iinclude"
(ls src/cuda/*.cu src/cuda/*.cpp | xargs -P 14 -I{} sh -c "$NV -I$B/new/inc -c {} -o $B/lib_\$(basename {}).o || echo FAILED {}") > $OUT/build.txt 2>&1 &
$NV -I$B/new/inc -Itests -c tests/cuda/exact_test.cu -o $B/tests.o >> $OUT/build.txt 2>&1 &
$NV -I$B/mut/inc -c src/cuda/scan_float.cu -o $B/mut_scan_float.o >> $OUT/build.txt 2>&1 &
$NV -I$B/mut/inc -c src/cuda/scan_double.cu -o $B/mut_scan_double.o >> $OUT/build.txt 2>&1 &
SWEEP_BUILD=$B/probe SWEEP_HOST_ONLY=1 SWEEP_BUILD_ONLY=1 bash dev/sweep.sh dev/exact_scan_paths.cu >> $OUT/build.txt 2>&1 &
$NV -I$B/new/inc -c dev/exact_scan_ab.cu -o $B/ab_new.o >> $OUT/build.txt 2>&1 &
OV="nvcc -std=c++20 -O3 -arch=sm_90 -DPARPRIM_HAS_CUDA=1 -lineinfo --extended-lambda -Ibuild-ab/old-tree/include -I$B/old/inc"
(cd build-ab/old-tree && ls src/cuda/*.cu src/cuda/*.cpp) | xargs -P 14 -I{} sh -c "$OV -c build-ab/old-tree/{} -o $B/old/lib_\$(basename {}).o || echo FAILED old {}" >> $OUT/build.txt 2>&1 &
$OV -c dev/exact_scan_ab.cu -o $B/ab_old.o >> $OUT/build.txt 2>&1 &
wait
$NV $B/lib_*.o $B/tests.o -o $B/tests -lgtest -lgtest_main -lpthread >> $OUT/build.txt 2>&1
$NV $(ls $B/lib_*.o | grep -v 'lib_scan_float\|lib_scan_double') $B/mut_scan_float.o $B/mut_scan_double.o $B/tests.o -o $B/tests_mut -lgtest -lgtest_main -lpthread >> $OUT/build.txt 2>&1
$NV $B/lib_*.o $B/ab_new.o -o $B/ab_new >> $OUT/build.txt 2>&1
$NV $B/old/lib_*.o $B/ab_old.o -o $B/ab_old >> $OUT/build.txt 2>&1
echo "build $((SECONDS - s)) s"; grep -E "error|FAILED" $OUT/build.txt | head
fi
if want tests; then
timeout 300 $B/tests --gtest_filter='CudaExact*:CudaScanCarry*' > $OUT/tests.txt 2>&1
echo "tests rc=$? $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout 150 $B/tests_mut --gtest_filter='CudaExact.*Scans*:CudaExact.*LongRuns*' > $OUT/tests-mutated.txt 2>&1
echo "mutated tests rc=$? (want 1) $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-mutated.txt | head -8
fi
if want probe; then
EXACT_SEEDS=${EXACT_SEEDS:-4} timeout 200 $B/probe/sweep > $OUT/paths.txt 2>&1
echo "probe rc=$? $((SECONDS - s)) s"
if [[ ${PROBE_WIDE:-1} == 1 ]]; then
  EXACT_WIDE=1 EXACT_SEEDS=2 timeout 120 $B/probe/sweep > $OUT/paths-wide.txt 2>&1
  echo "probe wide rc=$? $((SECONDS - s)) s"
fi
fi
if want ab; then
for i in $(seq ${AB_PAIRS:-2}); do
  for v in old new; do echo "== $v"; timeout 100 $B/ab_$v; echo "rc=$?"; done
done > $OUT/ab.txt 2>&1
echo "ab $((SECONDS - s)) s"; cat $OUT/ab.txt
fi
if want sanitizers; then
san=compute-sanitizer
PARPRIM_CUDA_TEST_MAX_N=70000 timeout 150 $san --tool memcheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.*Scans*:CudaScanCarry*' > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? $((SECONDS - s)) s"
PARPRIM_CUDA_TEST_MAX_N=2100 timeout 100 $san --tool racecheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.Float*Scans*' > $OUT/racecheck-scans.txt 2>&1
echo "racecheck rc=$? $((SECONDS - s)) s"
PARPRIM_CUDA_TEST_MAX_N=20000 timeout 100 $san --tool synccheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.*Scans*' > $OUT/synccheck.txt 2>&1
echo "synccheck rc=$? $((SECONDS - s)) s"
for f in memcheck racecheck-scans synccheck; do tail -n 2 $OUT/$f.txt; done
fi
