#!/bin/bash
# scratch: a timeline (nsys, CUDA trace) of dev/offsets_profile.cu on a GPU machine: the library's
# offsets call, parprim::reduce of the same input and CUB's DeviceSegmentedReduce::Sum, six calls
# each, at 2^28 in segments of 65536, 2^28 in one segment and 2^24 in segments of 65536. Builds the
# CUDA library as scripts/gpu-check does; each kernel's start and duration in
# $OUT/<case>_cuda_gpu_trace.csv, the API calls' in <case>_cuda_api_trace.csv.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DPARPRIM_WERROR=ON -DPARPRIM_WITH_CUDA=ON -DPARPRIM_BUILD_BENCH=OFF \
  -DPARPRIM_BUILD_EXAMPLES=OFF > $OUT/configure.log 2>&1
/usr/bin/time -f "build %e s" cmake --build build-dev -j16 --target parprim_cuda > $OUT/build.log 2>&1
echo "build rc=$?"; tail -1 $OUT/build.log
LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1)
SWEEP_LIB=$LIB SWEEP_BUILD_ONLY=1 bash dev/sweep.sh dev/offsets_profile.cu
command -v nsys || { echo "no nsys"; exit 1; }
for c in "28 65536" "28 268435456" "24 65536"; do
  set -- $c
  name=n$1_len$2
  OFFSETS_LOG2N=$1 OFFSETS_LEN=$2 OFFSETS_CALLS=6 nsys profile -t cuda -o /tmp/$name \
    --force-overwrite true /tmp/smoke/sweep > $OUT/$name.txt 2>&1
  grep wrong $OUT/$name.txt
  nsys stats -r cuda_gpu_trace,cuda_api_trace -f csv -o $OUT/$name /tmp/$name.nsys-rep \
    > $OUT/$name-stats.log 2>&1
done
ls $OUT
