#!/bin/bash
# scratch: recompile only the A/B's dev file (argument 1) in /tmp/ab_new and /tmp/ab_old (built
# by dev/ab_check.sh or dev/minmax_check.sh on this machine) and relink both binaries.
set -u
export PATH=$PATH:/usr/local/cuda/bin
for v in new old; do
  B=/tmp/ab_$v
  nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -I$B/inc -DPARPRIM_HAS_CUDA=1 -lineinfo \
    --extended-lambda -c $1 -o $B/$(basename $1).o && nvcc $B/*.o -o $B/sweep -lcuda &
done
wait
