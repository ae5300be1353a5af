#!/bin/bash
# scratch: each kernel's time (ncu, gpu__time_duration; kernels serialised, caches flushed before
# each) of dev/offsets_profile.cu on a GPU machine: the library's offsets call, parprim::reduce of
# the same input and CUB's DeviceSegmentedReduce::Sum, four calls each, at 2^28 in segments of
# 65536, 2^28 in one segment and 2^24 in segments of 65536. Builds the CUDA library as
# scripts/gpu-check does (dev/cuda_tests_build.sh); one CSV per case under $OUT.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
CUDA_BUILD_TARGETS=parprim_cuda source dev/cuda_tests_build.sh  # sets LIB
SWEEP_LIB=$LIB SWEEP_BUILD_ONLY=1 bash dev/sweep.sh dev/offsets_profile.cu
for c in "28 65536" "28 268435456" "24 65536"; do
  set -- $c
  OFFSETS_LOG2N=$1 OFFSETS_LEN=$2 OFFSETS_CALLS=4 timeout 100 ncu --metrics gpu__time_duration.sum \
    --csv /tmp/smoke/sweep > $OUT/ncu_n$1_len$2.csv 2>&1
  echo "rc=$?"; grep wrong $OUT/ncu_n$1_len$2.csv
done
