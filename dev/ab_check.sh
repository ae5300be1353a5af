#!/bin/bash
# scratch: an A/B of two trees' CUDA backends in one call: builds src/cuda + dev/ab_scan.cu
# against this tree's backends/ and against build-ab/old-backends/ (an older commit's backends/,
# made with `git archive <commit> backends`; carried to the GPU machine), both at once, then runs
# the two binaries alternately (AB_PAIRS pairs, AB_ROUNDS rounds each). Output under $OUT/ab/.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT/ab
build() {  # $1: build dir, $2: backends dir
  local B=$1; mkdir -p $B/inc/parprim
  ln -sfn $2 $B/inc/parprim/backends
  printf '#pragma once\n#define PARPRIM_VERSION "0"\n#define PARPRIM_BUILT_WITH_OPENMP 0\n#define PARPRIM_BUILT_WITH_MPI 0\n#define PARPRIM_BUILT_WITH_CUDA 1\n' > $B/inc/parprim/config.hpp
  local NV="nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I$B/inc -DPARPRIM_HAS_CUDA=1 -lineinfo"
  ls src/cuda/*.cu src/cuda/*.cpp dev/ab_scan.cu | xargs -P 8 -I{} sh -c "$NV --extended-lambda -c {} -o $B/\$(basename {}).o || echo FAILED {}" 2>&1 | tail -5
  $NV $B/*.o -o $B/ab -lcuda 2>&1 | tail -5
}
s=$SECONDS
build /tmp/ab_new $PWD/backends > $OUT/ab/build_new.txt 2>&1 &
build /tmp/ab_old $PWD/build-ab/old-backends > $OUT/ab/build_old.txt 2>&1 &
wait
echo "builds $((SECONDS - s)) s"; cat $OUT/ab/build_new.txt $OUT/ab/build_old.txt
for i in $(seq ${AB_PAIRS:-2}); do
  for v in old new; do
    echo "== $v"; AB_ROUNDS=${AB_ROUNDS:-2} timeout 120 /tmp/ab_$v/ab
  done
done 2>&1 | tee $OUT/ab/ab.txt
