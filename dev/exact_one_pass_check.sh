# scratch: the one-pass exact scan (dev/exact_scan_dd_one_pass.cuh) measured in one call on a GPU
# machine: the library and tests/cuda/exact_test.cu built by dev/exact_paths_check.sh
# (STEPS=build), dev/exact_one_pass_sweep.cu beside them; then the sweep, the CudaExact tests and
# compute-sanitizer memcheck, synccheck and racecheck on the exact scans, each while time is left
# (at c5669f0 the one pass was the library's path, so they checked it). Output under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
S=$SECONDS
STEPS=build bash dev/exact_paths_check.sh > $OUT/build-step.txt 2>&1 &
mkdir -p /tmp/ops/inc/parprim; ln -sfn $PWD/backends /tmp/ops/inc/parprim/backends
printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > /tmp/ops/inc/parprim/config.hpp
nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I/tmp/ops/inc -DPARPRIM_HAS_CUDA=1 -lineinfo --extended-lambda -c dev/exact_one_pass_sweep.cu -o /tmp/ops/sw.o > $OUT/sweep-build.txt 2>&1 &
wait
B=/tmp/paths-check
nvcc -arch=sm_90 /tmp/ops/sw.o $B/lib_memory.cpp.o $B/lib_temp_storage.cpp.o $B/lib_scan_float.cu.o $B/lib_scan_double.cu.o -o /tmp/ops/sweep -lcuda >> $OUT/sweep-build.txt 2>&1
tail -3 $OUT/build-step.txt; tail -3 $OUT/sweep-build.txt; echo "built $((SECONDS-S)) s"
timeout 120 /tmp/ops/sweep > $OUT/sweep.txt 2>&1; echo "sweep rc=$? $((SECONDS-S)) s"; cat $OUT/sweep.txt
timeout 200 $B/tests --gtest_filter='CudaExact*' > $OUT/tests.txt 2>&1
echo "tests rc=$? $((SECONDS-S)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
san=compute-sanitizer
if (( SECONDS - S < 330 )); then
PARPRIM_CUDA_TEST_MAX_N=70000 timeout 100 $san --tool memcheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.*Scans*' > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? $((SECONDS-S)) s"; tail -n 2 $OUT/memcheck.txt
fi
if (( SECONDS - S < 420 )); then
PARPRIM_CUDA_TEST_MAX_N=20000 timeout 70 $san --tool synccheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.*Scans*' > $OUT/synccheck.txt 2>&1
echo "synccheck rc=$? $((SECONDS-S)) s"; tail -n 2 $OUT/synccheck.txt
fi
if (( SECONDS - S < 480 )); then
PARPRIM_CUDA_TEST_MAX_N=2100 timeout 70 $san --tool racecheck --error-exitcode 9 $B/tests --gtest_filter='CudaExact.Float*Scans*' > $OUT/racecheck-scans.txt 2>&1
echo "racecheck rc=$? $((SECONDS-S)) s"; tail -n 2 $OUT/racecheck-scans.txt
fi
