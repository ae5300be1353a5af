#!/bin/bash
# scratch: builds parprim-bench and the CUDA tests (dev/cuda_tests_build.sh), runs the tests of
# ROWS_TESTS (a gtest filter, if set) and the bench rows of ROWS_FILTER (5 repetitions, medians)
# into $OUT/rows.json, with nvidia-smi's view of the GPU; a summary in $OUT/summary.txt.
set -u
CUDA_BUILD_BENCH=1 source dev/cuda_tests_build.sh
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/smi.txt 2>&1
{
  echo "commit ${PARPRIM_COMMIT:-unknown}"; cat $OUT/smi.txt
  if [[ -n ${ROWS_TESTS:-} ]]; then
    $T --gtest_filter="$ROWS_TESTS" > $OUT/tests.log 2>&1
    echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests.log | tr '\n' ' ')"
  fi
  $BENCH --benchmark_filter="$ROWS_FILTER" --benchmark_repetitions=${ROWS_REPS:-5} \
    --benchmark_report_aggregates_only=true --benchmark_out=$OUT/rows.json \
    --benchmark_out_format=json > $OUT/bench.log 2>&1
  echo "bench rc=$?"
  grep -E '_median' $OUT/bench.log | awk '{print $1, $2, $3}'
} > $OUT/summary.txt 2>&1
cat $OUT/summary.txt
