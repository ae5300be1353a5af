#!/usr/bin/env bash
# scratch: the OpenMP scans of this tree against an older one (build-ab/old-src: `git archive
# <commit> -- . ':!docs' | tar -x -C build-ab/old-src`, carried to the device machine) with
# dev/cpu_variants.sh, then the full report's cpu-matrix rows (reduce and scan against the
# hand-written OpenMP code, 1-16 threads) of this tree with repetitions in random interleaving.
# Output under ${OUT:-out}: ab/ (cpu_variants.sh's table.txt and runs) and cpu-matrix.json.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
s=$SECONDS
CPU_VARIANTS='new=;old@build-ab/old-src=' \
  CPU_FILTER=${CPU_SCAN_AB_FILTER:-'^scan/(omp|two_pass)/(int32|float32|float64)/threads:[0-9]+/n:(1048576|16777216)(/|$)'} \
  CPU_THREADS=${CPU_SCAN_AB_THREADS:-1,2,4,8,16} CPU_ROUNDS=${CPU_SCAN_AB_ROUNDS:-3} CPU_REPS=3 \
  OUT=$OUT/ab timeout "${CPU_SCAN_AB_TIMEOUT:-300}" bash dev/cpu_variants.sh >"$OUT/ab.log" 2>&1
echo "a/b: rc $? at $((SECONDS - s)) s"
timeout "${CPU_MATRIX_TIMEOUT:-280}" env PARPRIM_BENCH_THREADS=1,2,4,8,$(nproc) \
  build-cpu-new/bench/parprim-bench \
  --benchmark_filter='^(reduce/(omp|omp_clause)|scan/(omp|two_pass))/(int32|float32|float64)/threads:[0-9]+/n:(1048576|268435456)(/|$)' \
  --benchmark_min_time=0.05 --benchmark_repetitions="${CPU_MATRIX_REPS:-3}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_out="$OUT/cpu-matrix.json" \
  --benchmark_out_format=json >"$OUT/cpu-matrix.log" 2>&1
echo "cpu-matrix: rc $? at $((SECONDS - s)) s"
