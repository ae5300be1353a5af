#!/bin/bash
# scratch, sourced by the dev/*_check.sh scripts: configures build-dev as scripts/gpu-check does
# (Release, sm_90 + PTX, warnings as errors, no bench or examples) and builds parprim-cuda-tests
# and parprim_cuda; logs under $OUT. Sets T (the test program) and LIB (the library).
cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
  -DPARPRIM_WERROR=ON -DPARPRIM_WITH_CUDA=ON -DPARPRIM_BUILD_BENCH=OFF \
  -DPARPRIM_BUILD_EXAMPLES=OFF > $OUT/configure.log 2>&1
/usr/bin/time -f "build %e s" cmake --build build-dev -j16 --target parprim-cuda-tests parprim_cuda > $OUT/build.log 2>&1
echo "build rc=$?"; tail -2 $OUT/build.log
T=$(find build-dev -name parprim-cuda-tests -type f | head -1)
LIB=$(find build-dev -name 'libparprim_cuda*.a' | head -1)
