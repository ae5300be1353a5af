#!/bin/bash
# scratch: the one-pass exact scan (dev/exact_scan_dd_one_pass.cuh) measured in one call on a GPU
# machine: the library and tests/cuda/exact_test.cu built by dev/exact_paths_check.sh
# (STEPS=build), dev/exact_one_pass_sweep.cu linked with its scan objects (dev/sweep.sh,
# SWEEP_LIB), the sweep, then the exact tests, their mutations and the sanitizers of
# dev/exact_paths_check.sh. (The call of c5669f0, where the one pass was the library's path,
# built the two side by side and ran the sanitizers under a time limit.) Output under $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
B=/tmp/paths-check
STEPS=build bash dev/exact_paths_check.sh
SWEEP_BUILD=/tmp/ops SWEEP_HOST_ONLY=1 SWEEP_BUILD_ONLY=1 \
  SWEEP_LIB="$B/lib_scan_float.cu.o $B/lib_scan_double.cu.o" \
  bash dev/sweep.sh dev/exact_one_pass_sweep.cu > $OUT/sweep-build.txt 2>&1
tail -3 $OUT/sweep-build.txt
timeout 150 /tmp/ops/sweep > $OUT/sweep.txt 2>&1; echo "sweep rc=$? $SECONDS s"; cat $OUT/sweep.txt
STEPS='tests|sanitizers' bash dev/exact_paths_check.sh
