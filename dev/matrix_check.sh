#!/bin/bash
# scratch: the matrix against CUB on a GPU machine in one call: configures build-dev as
# dev/cuda_tests_build.sh does but with the bench, builds parprim-bench and parprim-cuda-tests,
# runs the tests in TEST_FILTER (default the pipeline tests), then the matrix rows (and
# reduce_by_key at 2^28) with 5 repetitions -> $OUT/matrix.json.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DPARPRIM_WERROR=ON -DPARPRIM_WITH_CUDA=ON -DPARPRIM_BUILD_BENCH=ON \
  -DPARPRIM_BUILD_EXAMPLES=OFF > $OUT/configure.log 2>&1
/usr/bin/time -f "build %e s" cmake --build build-dev -j16 --target parprim-bench parprim-cuda-tests > $OUT/build.log 2>&1
echo "build rc=$?"; tail -2 $OUT/build.log
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
B=$(find build-dev -name parprim-bench -type f | head -1)
timeout ${TEST_TIMEOUT:-120} $T --gtest_filter="${TEST_FILTER:-CudaPipeline*}" > $OUT/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout ${MATRIX_TIMEOUT:-200} $B --benchmark_filter="${MATRIX_FILTER:-^matrix/|^reduce_by_key/(cuda|cub)[a-z_]*/int32/.*/n:268435456/}" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out=$OUT/matrix.json > $OUT/matrix.log 2>&1
echo "matrix rc=$?"; tail -3 $OUT/matrix.log
