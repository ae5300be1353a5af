#!/bin/bash
# scratch: parprim-bench of two trees on one GPU machine. build-ab/old-src (an older commit's
# tree: `git archive <commit> -- . ':!docs' | tar -x -C build-ab/old-src`, carried) is built
# beside build-dev (Release, sm_90, no tests); then old, new, old, new ... (AB_PAIRS pairs), each
# a process of its own with AB_FILTER and random interleaving. JSON: $OUT/ab-{old,new}-<i>.json.
# AB_BUILD_ONLY=1: the old tree's build only (e.g. in the background while the tests run).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
old=build-ab/old-build/bench/parprim-bench
if [[ ! -x $old ]]; then
  { cmake -S build-ab/old-src -B build-ab/old-build -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90-real -DPARPRIM_WITH_CUDA=ON -DPARPRIM_BUILD_TESTS=OFF \
      -DPARPRIM_BUILD_EXAMPLES=OFF &&
      cmake --build build-ab/old-build --target parprim-bench -j "$(nproc)"; } \
    >"$OUT/old-build.log" 2>&1 || { echo "old build failed"; tail "$OUT/old-build.log"; exit 1; }
fi
[[ ${AB_BUILD_ONLY:-0} == 1 ]] && exit 0
new=$(find build-dev -name parprim-bench -type f | head -1)
for i in $(seq "${AB_PAIRS:-2}"); do
  for v in old new; do
    b=$new
    [[ $v == old ]] && b=$old
    timeout "${AB_TIMEOUT:-200}" "$b" --benchmark_filter="$AB_FILTER" \
      --benchmark_enable_random_interleaving=true --benchmark_out="$OUT/ab-$v-$i.json" \
      --benchmark_out_format=json >"$OUT/ab-$v-$i.txt" 2>&1
    echo "$v $i rc=$?"
  done
done
