#!/bin/bash
# scratch, sourced by the dev/*_check.sh scripts: configures build-dev as scripts/gpu-check does
# (Release, sm_90 + PTX, warnings as errors, no examples) and builds parprim-cuda-tests
# and parprim_cuda (CUDA_BUILD_BENCH=1: parprim-bench too; CUDA_BUILD_TARGETS: those targets
# instead); logs under $OUT. Sets T (the test program), LIB (the library) and BENCH
# (parprim-bench), each where built.
bench=OFF; targets=${CUDA_BUILD_TARGETS:-"parprim-cuda-tests parprim_cuda"}
[[ -n ${CUDA_BUILD_BENCH:-} ]] && bench=ON && targets="$targets parprim-bench"
cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DPARPRIM_WERROR=ON -DPARPRIM_WITH_CUDA=ON -DPARPRIM_BUILD_BENCH=$bench \
  -DPARPRIM_BUILD_EXAMPLES=OFF > $OUT/configure.log 2>&1
/usr/bin/time -f "build %e s" cmake --build build-dev -j16 --target $targets > $OUT/build.log 2>&1
echo "build rc=$?"; tail -2 $OUT/build.log
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1)
BENCH=$(find build-dev -name parprim-bench -type f | head -1)
