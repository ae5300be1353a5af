#!/usr/bin/env bash
# CPU-only Release builds of parprim-bench with compile-time knobs, benched in turn (host code:
# the OpenMP and seq backends), for A/B measurements on a many-core host.
#   CPU_VARIANTS: 'name=extra CXX flags;name@source dir=flags;...' (default: 'default='; a
#                 source dir such as an ignored export of an older commit, carried along)
#   CPU_FILTER:   the benchmark filter;  CPU_THREADS: PARPRIM_BENCH_THREADS (1,16)
#   CPU_ROUNDS:   rounds of the variants in turn (3);  CPU_REPS: repetitions a run (3)
#   CPU_ENV_<name>: environment of that variant's runs ('VAR=value ...'; e.g. the exact passes'
#                 PARPRIM_EXACT_SIMD=avx2 beside a variant without it)
# Output under ${OUT:-out}: one JSON a variant and round, and table.txt (medians, ms).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
IFS=';' read -ra variants <<<"${CPU_VARIANTS:-default=}"
jobs=$(nproc)
per=$((jobs / ${#variants[@]}))
((per < 1)) && per=1
for v in "${variants[@]}"; do
  name=${v%%=*}
  flags=${v#*=}
  src=.
  [[ $name == *@* ]] && src=${name#*@} && name=${name%%@*}
  (cmake -S "$src" -B "build-cpu-$name" -DCMAKE_BUILD_TYPE=Release -DPARPRIM_WITH_CUDA=OFF \
    -DPARPRIM_WITH_MPI=OFF -DPARPRIM_BUILD_TESTS=OFF -DPARPRIM_BUILD_EXAMPLES=OFF \
    -DCMAKE_CXX_FLAGS="$flags" >"$OUT/configure-$name.log" 2>&1 &&
    cmake --build "build-cpu-$name" -j"$per" --target parprim-bench >"$OUT/build-$name.log" 2>&1 ||
    echo "build of $name FAILED") &
done
wait
lscpu | head -20 >"$OUT/lscpu.txt"
for r in $(seq 1 "${CPU_ROUNDS:-3}"); do
  for v in "${variants[@]}"; do
    name=${v%%=*}
    name=${name%%@*}
    env_of="CPU_ENV_$name"
    # (word splitting intended: VAR=value pairs)
    # shellcheck disable=SC2086
    env ${!env_of:-} PARPRIM_BENCH_THREADS=${CPU_THREADS:-1,16} "build-cpu-$name/bench/parprim-bench" \
      --benchmark_filter="$CPU_FILTER" --benchmark_min_time=0.05 \
      --benchmark_repetitions="${CPU_REPS:-3}" --benchmark_report_aggregates_only=true \
      --benchmark_out="$OUT/$name-r$r.json" --benchmark_out_format=json >/dev/null 2>"$OUT/$name-r$r.err"
  done
done
python3 - "$OUT" <<'PY' >"$OUT/table.txt"
import json, sys, glob, os, re
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, '*-r*.json'))):
    m = re.match(r'(.*)-r(\d+)\.json', os.path.basename(f))
    for b in json.load(open(f))['benchmarks']:
        if b.get('aggregate_name') != 'median':
            continue
        t = b['real_time'] * {'ns': 1e-6, 'us': 1e-3, 'ms': 1.0, 's': 1e3}[b['time_unit']]
        rows.setdefault(b['run_name'], {}).setdefault(m.group(1), []).append(t)
names = sorted({v for r in rows.values() for v in r})
print('benchmark'.ljust(70), *[n.rjust(24) for n in names])
for k in sorted(rows):
    print(k.ljust(70), *[' '.join('%7.2f' % t for t in rows[k].get(n, [])).rjust(24) for n in names])
PY
cat "$OUT/table.txt"
# (few files come back: the JSONs and logs in one archive)
tar -czf "$OUT/runs.tar.gz" -C "$OUT" --remove-files $(cd "$OUT" && ls | grep -v -e '^table.txt$' -e '^runs.tar.gz$')
