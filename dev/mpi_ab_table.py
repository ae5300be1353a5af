#!/usr/bin/env python3
"""dev: the table of dev/mpi_ab.sh's results: per tree and rank count, each per-segment call's
median (over both processes' rounds) for parprim and raw_bound, and their ratio.
    python3 dev/mpi_ab_table.py <folder of base-r<p>-<k>.json and new-r<p>-<k>.json>"""
import collections
import glob
import json
import statistics
import sys

folder = sys.argv[1]
print("| tree | ranks | call | scaling | parprim (ms) | raw_bound (ms) | ratio |")
print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
for tree in ("base", "new"):
    for ranks in (1, 2, 16):
        rows = collections.defaultdict(list)
        for f in sorted(glob.glob(f"{folder}/{tree}-r{ranks}-*.json")):
            for b in json.load(open(f))["benchmarks"]:
                if b.get("run_type") == "iteration":
                    rows[b["name"]].append(b["real_time"])
        for call in ("segmented_reduce", "reduce_by_key", "inclusive_scan_by_key"):
            for scaling in ("strong", "weak"):
                def median(competitor):
                    names = [k for k in rows if k.startswith(f"mpi/{call}/{competitor}/")
                             and f"/{scaling}/" in k]
                    return statistics.median(rows[names[0]]) if names else float("nan")
                a, r = median("parprim"), median("raw_bound")
                print(f"| {tree} | {ranks} | `{call}` | {scaling} | {a:.1f} | {r:.1f} | {a / r:.2f} |")
