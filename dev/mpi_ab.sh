#!/bin/bash
# dev: parprim-bench-mpi's per-segment rows built from two trees, run alternately on one host.
#   bash dev/mpi_ab.sh <patch>   (from the repository root; results in $OUT/res.tgz)
# The base tree is this one with <patch> reversed (e.g. `git show <commit> -- backends/seq`);
# each rank count runs base, new, base, new (two processes each, 2 rounds of the rows per
# process, odd rounds backwards). Tabled by dev/mpi_ab_table.py.
set -u
patch_file=$(realpath "$1")
rm -rf /tmp/base && mkdir /tmp/base
cp -r $(ls -A | grep -v "^build" | grep -v "^\.git$") /tmp/base/
(cd /tmp/base && patch -R -p1 < "$patch_file") > $OUT/patch.log 2>&1 || exit 1
C="-DCMAKE_BUILD_TYPE=Release -DPARPRIM_WITH_MPI=ON -DPARPRIM_WITH_CUDA=OFF -DPARPRIM_BUILD_TESTS=OFF
   -DPARPRIM_BUILD_EXAMPLES=OFF -DPARPRIM_BUILD_BENCH=ON -DPARPRIM_WERROR=ON"
(cmake -S . -B build-mpi $C > /dev/null &&
  cmake --build build-mpi --target parprim-bench-mpi -j8 > $OUT/build-new.log 2>&1) &
(cmake -S /tmp/base -B /tmp/base/build-mpi $C > /dev/null &&
  cmake --build /tmp/base/build-mpi --target parprim-bench-mpi -j8 > $OUT/build-base.log 2>&1) &
wait
R="mpirun --allow-run-as-root --bind-to core --map-by core"
F='--benchmark_filter=^mpi/(reduce_by_key|inclusive_scan_by_key|segmented_reduce)/'
export PARPRIM_BENCH_MPI_ROUNDS=2
mkdir -p /tmp/res
for p in 1 2 16; do for k in 1 2; do for b in base new; do
  bin=build-mpi/bench/mpi/parprim-bench-mpi
  [[ $b == base ]] && bin=/tmp/base/$bin
  $R -np $p $bin "$F" --benchmark_out=/tmp/res/$b-r$p-$k.json --benchmark_out_format=json \
    > /dev/null 2>> $OUT/err.log
done; done; done
tar czf $OUT/res.tgz -C /tmp/res .
