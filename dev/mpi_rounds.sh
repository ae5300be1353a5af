#!/bin/bash
# dev: parprim-bench-mpi's per-segment rows of this tree, several processes at each rank count
# (one rank per core, bound), for a steadier median than one process gives.
#   MPI_ROUNDS_RANKS (16), MPI_ROUNDS_PROCESSES (4), PARPRIM_BENCH_MPI_ROUNDS (3),
#   MPI_ROUNDS_FILTER (the per-segment rows); results in $OUT/mpi-rounds/new-r<p>-<k>.json,
#   tabled by `python3 dev/mpi_ab_table.py $OUT/mpi-rounds` (its `new` rows).
set -u
OUT=${OUT:-$PWD/out}
C="-DCMAKE_BUILD_TYPE=Release -DPARPRIM_WITH_MPI=ON -DPARPRIM_WITH_CUDA=OFF -DPARPRIM_BUILD_TESTS=OFF
   -DPARPRIM_BUILD_EXAMPLES=OFF -DPARPRIM_BUILD_BENCH=ON -DPARPRIM_WERROR=ON"
if [[ ${MPI_ROUNDS_RUN_ONLY:-0} != 1 ]]; then
  (cmake -S . -B build-mpi $C > /dev/null &&
    cmake --build build-mpi --target parprim-bench-mpi -j"${MPI_ROUNDS_JOBS:-8}" > "$OUT/build-mpi.log" 2>&1) ||
    { echo "mpi build FAILED"; exit 1; }
fi
[[ ${MPI_ROUNDS_BUILD_ONLY:-0} == 1 ]] && exit 0
R="mpirun --allow-run-as-root --bind-to core --map-by core"
F=${MPI_ROUNDS_FILTER:-'^mpi/(reduce_by_key|inclusive_scan_by_key|segmented_reduce)/'}
export PARPRIM_BENCH_MPI_ROUNDS=${PARPRIM_BENCH_MPI_ROUNDS:-3}
mkdir -p "$OUT/mpi-rounds"
for p in ${MPI_ROUNDS_RANKS:-16}; do
  for k in $(seq 1 "${MPI_ROUNDS_PROCESSES:-4}"); do
    $R -np "$p" build-mpi/bench/mpi/parprim-bench-mpi "--benchmark_filter=$F" \
      --benchmark_out="$OUT/mpi-rounds/new-r$p-$k.json" --benchmark_out_format=json \
      > /dev/null 2>> "$OUT/mpi-rounds.err"
  done
done
python3 "$(dirname "$0")/mpi_ab_table.py" "$OUT/mpi-rounds" | grep -v "| base |" > "$OUT/mpi-rounds.md"
# one archive: the device tool brings back a limited number of files
tar czf "$OUT/mpi-rounds.tgz" -C "$OUT" mpi-rounds && rm -rf "$OUT/mpi-rounds"
