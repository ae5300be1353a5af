#!/bin/bash
# scratch: where does a scanning tile of the offsets segmented_reduce spend its time, in this
# tree and in an older one (build-ab/old-src, as dev/bench_ab.sh: built beside if not yet)?
# ncu (--clock-control none) of the first launch of the segments' tile kernels (the three
# steps' reduce_tiles, or the one pass's reduce_offset_spans) in parprim-bench's offsets rows,
# int32, segments of 1, 32 and 1024 (NCU_TILES_ROWS), at NCU_TILES_N (268435456): speed of
# light, launch and occupancy, memory workload (L1 and L2 hit rates), warp states (stall
# reasons, among them no_instruction: the instruction cache), instruction and scheduler
# statistics. One CSV per row and tree under $OUT/ncu-tiles/ ({old,new}-seg<L>.csv), tarred
# to $OUT/ncu-tiles.tar.gz.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}
AB_BUILD_ONLY=1 bash "$(dirname "$0")/bench_ab.sh" || exit 1
new=$(find build-dev -name parprim-bench -type f | head -1)
old=build-ab/old-build/bench/parprim-bench
n=${NCU_TILES_N:-268435456}
dir=$OUT/ncu-tiles
mkdir -p "$dir"
for len in ${NCU_TILES_ROWS:-1 32 1024}; do
  for v in old new; do
    b=$new
    [[ $v == old ]] && b=$old
    timeout "${NCU_TILES_TIMEOUT:-120}" ncu --clock-control none --csv --page raw \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      --kernel-name-base demangled --kernel-name 'regex:reduce_tiles|reduce_offset_spans' \
      --launch-count 1 "$b" --benchmark_filter="^segmented_reduce/cuda/int32/seg:$len/n:$n/" >"$dir/$v-seg$len.csv" 2>&1
    echo "$v seg:$len rc=$?"
  done
done
tar -czf "$OUT/ncu-tiles.tar.gz" -C "$OUT" ncu-tiles && rm -rf "$dir"
