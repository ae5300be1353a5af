#!/usr/bin/env python3
"""Writes tests/report/fixtures/*.json: small Google Benchmark JSON files shaped like real runs
(parprim-bench on a 16-core host, parprim-bench with CUDA, parprim-bench-mpi under mpirun with
1..16 ranks), with times from simple formulas so that check_report.py's expected numbers can
be computed by hand. Run it again after changing a formula; the files are committed.

Formulas (n elements, p threads / ranks, times in seconds):
  OpenMP reduce     T = 0.8e-9 n/p + 2e-6 log2 p               (exactly the model)
  OpenMP scan       T = max(0.9e-9 n/p, 8n / 35e9) + 2e-6 log2 p   (capped at the copy roof)
  OpenMP seg. scan  T = max(1.06e-9 n/p, 9n / 35e9) + 3e-6 log2 p
  CUDA reduce ladder at 2^28 int32 (us): k1 2000, k2 1000, k3 800, k4 400, k5 320, k6 260,
                    k7 250; CUB Sum 255, CUB Reduce 256, Thrust 262; D2D copy 500
  CUDA scan ladder at 2^28 int32 (us): k1 3000, k2 2400, k3 1200, k4 800, k5 520;
                    CUB InclusiveSum 680 (no traffic counter), D2D copy 500
  CUDA segmented scan at 2^28, seg:1024 (us): k1 2600, k2 2200, k3 1100, k4 760, k5 560;
                    CUB InclusiveSumByKey 900, Thrust 1300 (traffic: 9n bytes, by key 12n)
  MPI latency (us)  allreduce 0.2, 1, 2, 3, 4 and exscan 0.2, 1.5, 3, 4.5, 6 at p = 1..16
  MPI reduce        parprim T = 0.5e-9 n/p + lambda(p); raw T = max(0.5e-9 n/p, 4n/90e9)
                    + lambda(p) (strong: n = 2^28; weak: n/p = 2^24)
"""

import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
LOG2 = math.log2

CPU_CONTEXT = {"date": "2026-11-22T10:00:00+00:00", "host_name": "fixture-host",
               "executable": "build/release/bench/parprim-bench", "num_cpus": 16,
               "mhz_per_cpu": 2000, "cpu_scaling_enabled": False, "library_build_type": "release",
               "compiler": "13.2.0", "max_threads": "16", "parprim_backends": "seq,omp",
               "parprim_build_type": "Release", "parprim_version": "0.1.0",
               "std_par": "libstdc++ PSTL on TBB"}


def entry(name, seconds, unit, n, bytes_read, bytes_written, extra=None, aggregate=None,
          repetitions=1):
    """One benchmark entry as Google Benchmark 1.7 writes it."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    e = {"name": name + (f"_{aggregate}" if aggregate else ""), "run_name": name,
         "run_type": "aggregate" if aggregate else "iteration", "repetitions": repetitions,
         "threads": 1}
    if aggregate:
        e.update(aggregate_name=aggregate, aggregate_unit="time")
    e.update(iterations=max(1, int(0.05 / seconds)), real_time=seconds * scale,
             cpu_time=seconds * scale, time_unit=unit, bytes_per_second=bytes_read / seconds,
             items_per_second=n / seconds)
    if bytes_written is not None:
        e["traffic"] = (bytes_read + bytes_written) / seconds
    e.update(extra or {})
    return e


def write(name, context, benchmarks):
    """Google Benchmark's layout, one benchmark per line (small files, easy diffs)."""
    os.makedirs(OUT, exist_ok=True)
    lines = ",\n".join("    " + json.dumps(b) for b in benchmarks)
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write('{\n  "context": ' + json.dumps(context) + ',\n  "benchmarks": [\n' + lines +
                "\n  ]\n}\n")


# --- CPU host: OpenMP sweep, anchors, roofs -------------------------------------------------------

def cpu():
    sizes = [1 << k for k in range(16, 29, 2)]
    threads = [1, 2, 4, 8, 16]
    out = []

    def par(name, n, p, t, read, written):
        out.append(entry(f"{name}/threads:{p}/n:{n}/real_time", t, "us", n, read, written,
                         {"nthreads": float(p)}))

    def seq(name, n, t, read, written):
        out.append(entry(f"{name}/n:{n}", t, "us", n, read, written, {"nthreads": 1.0}))

    for n in sizes:
        seq("reduce/seq/int32", n, 0.75e-9 * n, 4 * n, 0)
        seq("reduce/std_seq/int32", n, 0.76e-9 * n, 4 * n, 0)
        for p in threads:
            par("reduce/omp/int32", n, p, 0.8e-9 * n / p + 2e-6 * LOG2(p), 4 * n, 0)
        par("reduce/omp_clause/int32", n, 16, 0.82e-9 * n / 16 + 3e-6, 4 * n, 0)
        par("reduce/std_par/int32", n, 16, 0.9e-9 * n / 16 + 6e-6, 4 * n, 0)
        seq("scan/seq/int32", n, 0.9e-9 * n, 4 * n, 4 * n)
        seq("scan/std_seq/int32", n, 0.92e-9 * n, 4 * n, 4 * n)
        for p in threads:
            par("scan/omp/int32", n, p, max(0.9e-9 * n / p, 8 * n / 35e9) + 2e-6 * LOG2(p),
                4 * n, 4 * n)
        par("scan/two_pass/int32", n, 16, 12 * n / 35e9 + 4e-6, 4 * n, 4 * n)
        par("scan/std_par/int32", n, 16, 12 * n / 35e9 + 9e-6, 4 * n, 4 * n)
        seq("segmented_scan/seq/int32/heads:1in1000", n, 1.06e-9 * n, 5 * n, 4 * n)
        for p in threads:
            par("segmented_scan/omp/int32/heads:1in1000", n, p,
                max(1.06e-9 * n / p, 9 * n / 35e9) + 3e-6 * LOG2(p), 5 * n, 4 * n)
        if n >= 1 << 24:   # the short segments at two sizes only (not plotted: not the longest)
            par("segmented_scan/omp/int32/heads:1in10", n, 16, 1.5 * 9 * n / 35e9, 5 * n, 4 * n)
        par("roof/copy/int32", n, 16, 8 * n / 35e9 + 3e-6, 4 * n, 4 * n)
        par("roof/read/int32", n, 16, 4 * n / 90e9 + 3e-6, 4 * n, 0)
    for p in threads:
        n = 1 << 24
        par("false_sharing/packed/int32", n, p, 0.2e-9 * n * (1 + 0.5 * LOG2(p)), 4 * n, 0)
        par("false_sharing/padded/int32", n, p, 0.8e-9 * n / p + 2e-6, 4 * n, 0)
    # What scripts/compare records on a machine without a GPU.
    out.append({"name": "reduce/cuda_k1_interleaved_divergent/int32/n:268435456/min_time:0.050"
                        "/repeats:5/manual_time",
                "run_name": "reduce/cuda_k1_interleaved_divergent/int32/n:268435456/"
                            "min_time:0.050/repeats:5/manual_time",
                "run_type": "iteration", "repetitions": 1, "threads": 1, "iterations": 0,
                "real_time": 0.0, "cpu_time": 0.0, "time_unit": "us", "error_occurred": True,
                "error_message": "no GPU"})
    write("cpu.json", CPU_CONTEXT, out)


# --- GPU: the two ladders, anchors, copy roof, device time ---------------------------------------

REDUCE_US = {"cuda_k1_interleaved_divergent": 2000, "cuda_k2_interleaved_strided": 1000,
             "cuda_k3_sequential_addressing": 800, "cuda_k4_first_add_during_load": 400,
             "cuda_k5_unrolled_last_warp": 320, "cuda_k6_grid_stride_multiple_elements": 260,
             "cuda_k7_vectorized_single_pass": 250, "cub_device_reduce_sum": 255,
             "cub_device_reduce": 256, "thrust_reduce": 262}
SCAN_US = {"cuda_k1_kogge_stone": 3000, "cuda_k2_brent_kung": 2400,
           "cuda_k3_coarsened_three_phase": 1200, "cuda_k4_warp_reduce_then_scan": 800,
           "cuda_k5_decoupled_look_back": 520, "cub_inclusive_sum": 680, "cub_inclusive_scan": 700,
           "thrust_inclusive_scan": 720}
EXCLUSIVE_US = {"cuda_k5_decoupled_look_back": 530, "cub_exclusive_sum": 690}
# segmented scans at seg:1024; every rung but k4 and k5 runs at seg:1024 only
SEG_US = {"cuda_k1_kogge_stone": 2600, "cuda_k2_brent_kung": 2200,
          "cuda_k3_coarsened_three_phase": 1100, "cuda_k4_warp_reduce_then_scan": 760,
          "cuda_k5_decoupled_look_back": 560, "cub_inclusive_sum_by_key": 900,
          "thrust_inclusive_scan_by_key": 1300}
SEG_SLOWER = {32: 1.1, 1024: 1.0, 65536: 1.0, "random": 1.02}
COPY_US = 500.0


def gpu():
    out = []

    def add(name, n, us_at_2p28, read, written, traffic=True, aggregates=("median",)):
        # Scaled from 2^28 with a 6 us launch + sync floor, so small sizes look launch-bound.
        t = 6e-6 + (us_at_2p28 * 1e-6 - 6e-6) * n / (1 << 28) if n != 1 << 28 else \
            us_at_2p28 * 1e-6
        full = f"{name}/n:{n}/min_time:0.050/repeats:5/manual_time"
        for a in aggregates:
            # the mean is 10 % slower than the median: the report must use the median
            scale = {"median": 1.0, "mean": 1.1, "stddev": 0.02, "cv": 0.0001}[a]
            out.append(entry(full, t * scale, "us", n, read, written if traffic else None,
                             aggregate=a, repetitions=5))

    for n in (1 << 20, 1 << 24, 1 << 28):
        every = ("mean", "median", "stddev", "cv") if n == 1 << 28 else ("median",)
        for c, us in REDUCE_US.items():
            add(f"reduce/{c}/int32", n, us, 4 * n, 0, aggregates=every)
        add("roof/cuda_copy_d2d/int32", n, COPY_US, 4 * n, 4 * n, aggregates=every)
        for c, us in SCAN_US.items():
            add(f"scan/inclusive/{c}/int32", n, us, 4 * n, 4 * n, traffic=c.startswith("cuda"))
        for c, us in EXCLUSIVE_US.items():
            add(f"scan/exclusive/{c}/int32", n, us, 4 * n, 4 * n)
    for n in (1 << 20, 1 << 28):
        for c, us in REDUCE_US.items():
            if c != "thrust_reduce":
                add(f"reduce/{c}_device/int32", n, us - 3, 4 * n, 0)
        add("roof/cuda_copy_d2d_device/int32", n, COPY_US - 2, 4 * n, 4 * n)
    for c, us in REDUCE_US.items():
        add(f"reduce/{c}/float32", 1 << 28, us * 1.01, 4 << 28, 0)
    add("roof/cuda_copy_d2d/float32", 1 << 28, COPY_US, 4 << 28, 4 << 28)
    # bytes_per_second counts the values only; traffic adds the output and the one-byte flags
    # (parprim) or the four-byte keys (the by-key anchors), as bench/cuda/scan_bench.hpp does
    for n in (1 << 24, 1 << 28):
        for seg, slower in SEG_SLOWER.items():
            for c, us in SEG_US.items():
                if seg != 1024 and c[:7] in ("cuda_k1", "cuda_k2", "cuda_k3"):
                    continue
                extra = 4 * n if c.startswith(("cub", "thrust")) else n
                add(f"segmented_scan/inclusive/{c}/int32/seg:{seg}", n, us * slower, 4 * n,
                    4 * n + extra)
    context = dict(CPU_CONTEXT, parprim_backends="seq,omp,cuda", date="2026-11-22T11:00:00+00:00")
    write("gpu.json", context, out)


# --- MPI: one file per rank count -----------------------------------------------------------------

LATENCY_US = {"allreduce": [0.2, 1.0, 2.0, 3.0, 4.0], "exscan": [0.2, 1.5, 3.0, 4.5, 6.0],
              "exscan_flag_pair": [0.3, 2.0, 4.0, 6.0, 8.0]}
RANKS = [1, 2, 4, 8, 16]


def mpi():
    for i, p in enumerate(RANKS):
        out = []

        def add(name, scaling, n, t, read):
            iters = max(3, min(50, (1 << 28) // (n // p)))
            full = f"{name}/{scaling}/ranks:{p}/n:{n}/iterations:{iters}/manual_time"
            out.append(entry(full, t, "ms", n, read, None,
                             {"n_per_rank": n / p, "ranks": float(p)}))

        lam = {c: v[i] * 1e-6 for c, v in LATENCY_US.items()}
        for scaling, n in (("strong", 1 << 28), ("weak", (1 << 24) * p)):
            local = n // p
            add("mpi/reduce/parprim/int32", scaling, n, 0.5e-9 * local + lam["allreduce"], 4 * n)
            add("mpi/reduce/raw/int32", scaling, n,
                max(0.5e-9 * local, 4 * n / 90e9) + lam["allreduce"], 4 * n)
            add("mpi/reduce/parprim/float64", scaling, n, 0.9e-9 * local + lam["allreduce"], 8 * n)
            add("mpi/scan/parprim/int32", scaling, n,
                max(0.9e-9 * local, 8 * n / 35e9) * (1 if p == 1 else 1.6) + lam["exscan"], 4 * n)
            add("mpi/scan/raw_bound/int32", scaling, n,
                max(0.9e-9 * local, 8 * n / 35e9) + lam["exscan"], 4 * n)
            add("mpi/scan/raw_textbook/int32", scaling, n,
                max(0.9e-9 * local, 8 * n / 35e9) * (1 if p == 1 else 1.8) + lam["exscan"], 4 * n)
            add("mpi/segmented_scan/parprim/int32/heads:1in1024", scaling, n,
                max(1.0e-9 * local, 9 * n / 35e9) + lam["exscan_flag_pair"], 5 * n)
            add("mpi/segmented_scan/raw_textbook/int32/heads:1in1024", scaling, n,
                max(1.2e-9 * local, 9 * n / 35e9) * (1 if p == 1 else 1.3) +
                lam["exscan_flag_pair"], 5 * n)
        for c in LATENCY_US:
            full = f"mpi/latency/{c}/int32/ranks:{p}/n:1/iterations:1000/manual_time"
            out.append(entry(full, lam[c], "ms", 1, 4, None, {"ranks": float(p)}))
        context = {"date": "2026-11-22T12:00:00+00:00", "host_name": "fixture-host",
                   "executable": "build/release/bench/mpi/parprim-bench-mpi", "num_cpus": 16,
                   "library_build_type": "release", "mpi_ranks": str(p),
                   "parprim_local_policy": "seq"}
        write(f"mpi-ranks{p}.json", context, out)


if __name__ == "__main__":
    cpu()
    gpu()
    mpi()
    print("wrote", ", ".join(sorted(os.listdir(OUT))))
