#!/bin/bash
# scratch: build the CUDA library sources (src/cuda) + one dev .cu (argument 1) with nvcc and run it; output in $OUT/sweep.txt
set -u
# SWEEP_BUILD: the build folder (default /tmp/smoke); SWEEP_BACKENDS: the backends/ to build
# against (default this tree's); SWEEP_BUILD_ONLY=1: build $SWEEP_BUILD/sweep and stop
B=${SWEEP_BUILD:-/tmp/smoke}; mkdir -p $B/inc/parprim
ln -sfn ${SWEEP_BACKENDS:-$PWD/backends} $B/inc/parprim/backends
printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/inc/parprim/config.hpp
NV="nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I$B/inc -DPARPRIM_HAS_CUDA=1 -lineinfo"
# SWEEP_LIB=path/to/libparprim_cuda.a links an already built library instead of compiling src/cuda
# SWEEP_HOST_ONLY=1 compiles only src/cuda/*.cpp (a dev file that calls the kernels' drivers itself)
srcs="src/cuda/*.cu src/cuda/*.cpp"; [[ -n ${SWEEP_LIB:-} ]] && srcs=
[[ -n ${SWEEP_HOST_ONLY:-} ]] && srcs="src/cuda/*.cpp"
rm -f $B/*.o
ls $srcs $1 | xargs -P 16 -I{} sh -c "$NV --extended-lambda -c {} -o $B/\$(basename {}).o || echo FAILED {}" 2>&1 | tail -20
$NV $B/*.o ${SWEEP_LIB:-} -o $B/sweep -lcuda 2>&1 | tail -5
[[ -n ${SWEEP_BUILD_ONLY:-} ]] && exit 0
timeout ${2:-400} $B/sweep | tee $OUT/sweep.txt
echo "rc=$?"
