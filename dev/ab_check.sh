#!/bin/bash
# scratch: an A/B of two trees' CUDA backends in one call: builds src/cuda + dev/ab_scan.cu (or
# AB_FILE)
# against this tree's backends/ and against build-ab/old-backends/ (an older commit's backends/,
# made with `git archive <commit> backends`; carried to the GPU machine), both at once, then runs
# the two binaries alternately (AB_PAIRS pairs, AB_ROUNDS rounds each). Output under $OUT/ab/.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT/ab
s=$SECONDS
for v in new old; do  # dev/sweep.sh builds src/cuda and the dev file into /tmp/ab_$v/sweep
  backends=$PWD/backends; [[ $v == old ]] && backends=$PWD/build-ab/old-backends
  SWEEP_BUILD=/tmp/ab_$v SWEEP_BACKENDS=$backends SWEEP_BUILD_ONLY=1 \
    bash dev/sweep.sh ${AB_FILE:-dev/ab_scan.cu} > $OUT/ab/build_$v.txt 2>&1 &
done
wait
echo "builds $((SECONDS - s)) s"; cat $OUT/ab/build_new.txt $OUT/ab/build_old.txt
for i in $(seq ${AB_PAIRS:-2}); do
  for v in old new; do
    echo "== $v"; AB_ROUNDS=${AB_ROUNDS:-2} timeout 120 /tmp/ab_$v/sweep
  done
done 2>&1 | tee $OUT/ab/ab.txt
