#!/usr/bin/env python3
"""CTest `report.matrix_table`: bench/tables/matrix_table.py on a small Google Benchmark JSON
written here (medians beside other aggregates, a failed competitor, sizes missing for a type):
checks the Markdown rows cell by cell and, where matplotlib imports, that the heat map is a
PNG of a plausible size; its --device table on the device-time rows of the same file (which the
default table leaves out); and its --cpu table on OpenMP rows.

Exit status: 0 pass, 1 fail (every failed check listed).

Usage: check_matrix_table.py --script bench/tables/matrix_table.py --work DIR
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys


def entry(primitive, type_, op, competitor, n, us, mean_us=None, prefix="matrix"):
    """The mean and median aggregates of one benchmark (the mean deliberately off)."""
    run = (f"{prefix}/{primitive}/{type_}/{op}/{competitor}/n:{n}/min_time:0.005/repeats:5/"
           "manual_time")
    return [{"name": f"{run}_{agg}", "run_name": run, "run_type": "aggregate", "repetitions": 5,
             "aggregate_name": agg, "real_time": t, "cpu_time": t, "time_unit": "us"}
            for agg, t in (("mean", mean_us or us * 1.5), ("median", us))]


def fixture():
    b = []
    # reduce int32 plus: 20/10 = 2.00 at 2^16, 300/400 = 0.75 at 2^28 (bold), no 2^27
    b += entry("reduce", "int32", "plus", "parprim", 1 << 16, 10.0)
    b += entry("reduce", "int32", "plus", "cub", 1 << 16, 20.0)
    b += entry("reduce", "int32", "plus", "parprim", 1 << 28, 400.0)
    b += entry("reduce", "int32", "plus", "cub", 1 << 28, 300.0)
    # float64 at 2^27 only: 100/100 = 1.00
    b += entry("reduce", "float64", "plus", "parprim", 1 << 27, 100.0)
    b += entry("reduce", "float64", "plus", "cub", 1 << 27, 100.0)
    # segmented, one segment: 10/9.96 prints 1.00 and is not bold; registered before the scan
    # below but listed after it (primitive order)
    b += entry("segmented_scan_one", "int32", "minimum", "parprim", 1 << 16, 9.96)
    b += entry("segmented_scan_one", "int32", "minimum", "cub", 1 << 16, 10.0)
    # a competitor that failed its check
    run = ("matrix/inclusive_scan/affine_f64/affine_compose/parprim/n:65536/min_time:0.005/"
           "repeats:5/manual_time")
    b.append({"name": run, "run_name": run, "run_type": "iteration", "error_occurred": True,
              "error_message": "wrong scan: 3 of 65536 elements differ"})
    b += entry("inclusive_scan", "affine_f64", "affine_compose", "cub", 1 << 16, 30.0)
    # device time (matrix_device/): 6/8 = 0.75 at 2^16, 350/280 = 1.25 at 2^28
    b += entry("reduce", "int32", "plus", "parprim", 1 << 16, 8.0, prefix="matrix_device")
    b += entry("reduce", "int32", "plus", "cub", 1 << 16, 6.0, prefix="matrix_device")
    b += entry("reduce", "int32", "plus", "parprim", 1 << 28, 280.0, prefix="matrix_device")
    b += entry("reduce", "int32", "plus", "cub", 1 << 28, 350.0, prefix="matrix_device")
    return {"context": {"host_name": "fixture"}, "benchmarks": b}


def check_table(script, option, path, want, rows):
    """`script option path`: exits 0 and prints every line of `want` and `rows` table rows
    (header and rule included)."""
    proc = subprocess.run([sys.executable, script, option, path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    failures = [] if proc.returncode == 0 else [f"{option}: exit {proc.returncode}: {proc.stderr}"]
    lines = proc.stdout.splitlines()
    failures += [f"{option}: missing line: {w}" for w in want if w not in lines]
    if sum(1 for line in lines if line.startswith("| ")) != rows:
        failures.append(f"{option}: expected {rows} table lines (header and rule included)")
    return failures


def check_device(script, path):
    """--device: only the matrix_device/ rows."""
    return check_table(script, "--device", path,
                       ["| primitive | type | op | 2^16 | 2^28 |",
                        "| reduce | int32 | plus | **0.75** | 1.25 |"], 3)


EXPECTED = [
    "| primitive | type | op | 2^16 | 2^27 | 2^28 |",
    "| reduce | int32 | plus | 2.00 | - | **0.75** |",
    "| reduce | float64 | plus | - | 1.00 | - |",
    "| inclusive_scan | affine_f64 | affine_compose | err | - | - |",
    "| segmented_scan_one | int32 | minimum | 1.00 | - | - |",
    "4 cells: geometric mean 1.11; 1 below 1.0 (bold), smallest 0.75, largest 2.00.",
    "- `inclusive_scan/affine_f64/affine_compose` n = 2^16: parprim: wrong scan: 3 of 65536 "
    "elements differ",
]


def cpu_entry(name, threads, n, us):
    """One OpenMP row (iterations, no aggregates), as the openmp and cpu-matrix steps write."""
    run = f"{name}/threads:{threads}/n:{n}/real_time"
    return {"name": run, "run_name": run, "run_type": "iteration", "real_time": us,
            "cpu_time": us, "time_unit": "us"}


def check_cpu(script, work):
    """--cpu: omp against omp_clause / two_pass, one row per (primitive, type, threads); rows of
    other competitors (seq, omp_exact) left out."""
    b = [cpu_entry("reduce/omp/int32", 1, 1 << 20, 100.0),
         cpu_entry("reduce/omp_clause/int32", 1, 1 << 20, 150.0),
         cpu_entry("reduce/omp_exact/float32", 2, 1 << 20, 999.0),
         cpu_entry("scan/omp/float64", 2, 1 << 28, 50.0),
         cpu_entry("scan/two_pass/float64", 2, 1 << 28, 40.0)]
    b.append({"name": "scan/seq/int32/n:1048576/real_time", "run_name":
              "scan/seq/int32/n:1048576/real_time", "run_type": "iteration", "real_time": 1.0,
              "time_unit": "us"})
    path = os.path.join(work, "cpu.json")
    with open(path, "w") as f:
        json.dump({"context": {}, "benchmarks": b}, f)
    return check_table(script, "--cpu", path,
                       ["| primitive | type | threads | 2^20 | 2^28 |",
                        "| reduce | int32 | 1 thread | 1.50 | - |",
                        "| scan | float64 | 2 threads | - | **0.80** |"], 4)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--script", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, "matrix.json")
    with open(path, "w") as f:
        json.dump(fixture(), f)
    failures = []
    have_matplotlib = importlib.util.find_spec("matplotlib") is not None
    png = os.path.join(a.work, "matrix.png") if have_matplotlib else None
    args = [sys.executable, a.script, "--title", "fixture", path] + (["--png", png] if png else [])
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)
    if proc.returncode != 0:
        failures.append(f"exit {proc.returncode}: {proc.stderr.strip()}")
    lines = proc.stdout.splitlines()
    for want in EXPECTED:
        if want not in lines:
            failures.append(f"missing line: {want}")
    order = [line.split("|")[1].strip() for line in lines if line.startswith("| ")][2:]
    if order != ["reduce", "reduce", "inclusive_scan", "segmented_scan_one"]:
        failures.append(f"row order {order}")
    if png:
        with open(png, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 10_000:
            failures.append(f"heat map: not a plausible PNG ({len(data)} bytes)")
    failures += check_device(a.script, path)
    failures += check_cpu(a.script, a.work)
    for f in failures:
        print("FAIL:", f)
    print("report.matrix_table:", "FAILED" if failures else
          ("passed" + ("" if png else " (table only: no matplotlib)")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
