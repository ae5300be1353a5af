#!/bin/bash
# scratch: the matrix against CUB on a GPU machine in one call: dev/cuda_tests_build.sh with the
# bench, the tests in TEST_FILTER (default the pipeline tests), then the matrix rows (and
# reduce_by_key at 2^28) with 5 repetitions -> $OUT/matrix.json.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
CUDA_BUILD_BENCH=1 source dev/cuda_tests_build.sh  # sets T and BENCH
timeout ${TEST_TIMEOUT:-120} $T --gtest_filter="${TEST_FILTER:-CudaPipeline*}" > $OUT/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout ${MATRIX_TIMEOUT:-200} $BENCH --benchmark_filter="${MATRIX_FILTER:-^matrix/|^reduce_by_key/(cuda|cub)[a-z_]*/int32/.*/n:268435456/}" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=$OUT/matrix.json > $OUT/matrix.log 2>&1
echo "matrix rc=$?"; tail -3 $OUT/matrix.log
