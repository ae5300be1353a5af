#!/usr/bin/env bash
# Device-side check for .local(parprim::cuda) (not part of the project: a helper's runner).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/run.log
exec > >(tee "$log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
jobs=$(nproc)
t0=$SECONDS
echo "== env"; nvidia-smi -L; command -v mpirun || { echo "NO MPI"; exit 1; }; mpirun --version | head -1; ls /usr/include/x86_64-linux-gnu/mpich /usr/lib/x86_64-linux-gnu/openmpi/include 2>/dev/null | head -2; nvcc --version | tail -1; cmake --version | head -1; g++ --version | head -1; nproc
prefix=$root/build-deps/prefix
if [[ ! -d $prefix/lib/cmake/GTest ]]; then
  (cmake -S build-deps/src/googletest -B build-deps/gtest-build -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_GMOCK=OFF >/dev/null && \
   cmake --build build-deps/gtest-build -j"$jobs" >/dev/null && cmake --install build-deps/gtest-build >/dev/null) || echo "gtest build FAILED"
fi
build=build-dev
echo "== configure ($((SECONDS-t0)) s)"
cmake -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DPARPRIM_WITH_CUDA=ON -DPARPRIM_WITH_MPI=ON -DPARPRIM_WERROR=${WERROR:-OFF} \
  -DCMAKE_PREFIX_PATH="$prefix" > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
grep -E "parprim:" $OUT/configure.log
echo "== build ($((SECONDS-t0)) s)"
timeout 300 cmake --build $build -j"$jobs" --target ${TARGETS:-parprim-test-mpi-cuda parprim-bench-mpi-cuda} > $OUT/build.log 2>&1 || { grep -E "error" -A5 $OUT/build.log | head -60; exit 1; }
grep -E "warning" -A3 $OUT/build.log | head -30
echo "== tests ($((SECONDS-t0)) s)"
timeout ${TEST_TIMEOUT:-200} ctest --test-dir $build -R "${TEST_REGEX:-mpi.cuda}" --output-on-failure --timeout 300 2>&1 | tail -${TEST_TAIL:-60}
if [[ ${MEMCHECK:-1} == 1 ]]; then
  echo "== memcheck, 2 ranks ($((SECONDS-t0)) s)"
  timeout 200 mpirun --allow-run-as-root --oversubscribe -np 2 compute-sanitizer --tool memcheck --error-exitcode 1 \
    $build/tests/mpi/parprim-test-mpi-cuda --gtest_filter='MpiLocalCuda/cuda_i32_plus*:MpiLocalCuda/cuda_k3_k2_f32_plus*:MpiLocalCudaSegmented.*:MpiLocalCudaErrors.*:MpiLocalCudaDevice.*' > $OUT/memcheck.log 2>&1
  echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid" $OUT/memcheck.log | sort | uniq -c | head -20
fi
echo "== bench ($((SECONDS-t0)) s)"
if [[ ${BENCH:-1} == 1 ]]; then
  timeout 150 scripts/mpi-gpu-bench $OUT/bench $build 2>&1 | grep -v "manual_time_\(mean\|stddev\|cv\)" | tail -40
fi
echo "== done ($((SECONDS-t0)) s)"
