#!/bin/bash
# scratch: build the CUDA library sources + dev/scan_smoke.cu with nvcc directly and run it
set -u
B=/tmp/smoke; mkdir -p $B/inc/parprim
ln -sfn $PWD/backends $B/inc/parprim/backends
printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/inc/parprim/config.hpp
NV="nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I$B/inc -DPARPRIM_HAS_CUDA=1 -lineinfo"
ls src/cuda/*.cu src/cuda/*.cpp ${1:-dev/scan_smoke.cu} | xargs -P 16 -I{} sh -c "$NV --extended-lambda -c {} -o $B/\$(basename {}).o || echo FAILED {}" 2>&1 | tail -20
$NV $B/*.o -o $B/smoke -lcuda 2>&1 | tail -5
echo "== smoke"
timeout 300 $B/smoke
echo "rc=$?"
if [ "${SANITIZE:-0}" = 1 ]; then
  echo "== memcheck (no timing part)"; timeout 200 compute-sanitizer --tool memcheck $B/smoke 2>&1 | tail -5
fi
