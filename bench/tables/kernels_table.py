#!/usr/bin/env python3
"""The reduction-ladder tables of docs/kernels.md, from parprim-bench's JSON and ncu's CSV.

Standard library only. Inputs:
  - the Google Benchmark JSON of `parprim-bench --benchmark_filter='cuda|cub|thrust'
    --benchmark_out=... --benchmark_out_format=json` (scripts/gpu-check writes cuda_bench.json);
    the `median` aggregates are used; bytes_per_second counts the input bytes read;
  - optionally the CSV of scripts/gpu-check's ncu step (ncu.csv: sections `# <rung>`, each a
    header row, a units row and one values row).

Usage:
  kernels_table.py BENCH.json [--ncu NCU.csv] TABLE...       print tables (Markdown)
  kernels_table.py BENCH.json [--ncu NCU.csv] --update DOC.md rewrite the generated blocks
  kernels_table.py --list                                     the table names

TABLE is one of
  ladder:<type>:<n>        the ladder at one size, with CUB, Thrust and the copy roof
  ladder:<type>:<n>:_device  the same from the device-time benchmarks (`..._device`)
  compact:<type>           time and GB/s of every rung at every measured size
  lecture:<type>:<n>       our GB/s and speedups beside the lecture's G80 / GTX 460 figures
  ncu                      the ncu counters of each rung's first kernel launch
  device:<type>            device time (the `_device` benchmarks) next to the synchronous call;
                           a placeholder with the headings when the JSON has none
  summary                  rung 7 against CUB DeviceReduce::Sum, every type and size
<type> is int32, float32 or float64; <n> a size such as 268435456 (or 2^28).

--update DOC.md replaces the text between `<!-- kernels_table NAME -->` and
`<!-- /kernels_table -->` by the table NAME, for every such block in DOC.md.

"% of copy roof": the device-to-device copy of the same n elements moves 2n bytes (it reads
and writes), so its traffic rate (counter `traffic`) is the machine's practical bandwidth. A
reduction reading n bytes at that rate would take half the copy's time; the column is
reduce GB/s (input read) / copy traffic GB/s = (copy time / 2) / reduce time.
"""

import argparse
import csv
import io
import json
import re
import sys

TYPES = ("int32", "float32", "float64")
RUNGS = (
    ("k1", "cuda_k1_interleaved_divergent", "interleaved addressing, divergent (`tid % (2*s)`)"),
    ("k2", "cuda_k2_interleaved_strided", "interleaved addressing, strided index"),
    ("k3", "cuda_k3_sequential_addressing", "sequential addressing"),
    ("k4", "cuda_k4_first_add_during_load", "first add during load"),
    ("k5", "cuda_k5_unrolled_last_warp", "unrolled (block size), last warp by shuffles"),
    ("k6", "cuda_k6_grid_stride_multiple_elements", "several elements per thread, cost-optimal grid"),
    ("k7", "cuda_k7_vectorized_single_pass", "16-byte loads, one launch (default)"),
)
ANCHORS = (
    ("reduce/cub_device_reduce_sum", "CUB `DeviceReduce::Sum`"),
    ("reduce/cub_device_reduce", "CUB `DeviceReduce::Reduce`"),
    ("reduce/thrust_reduce", "Thrust `reduce`"),
)
COPY = "roof/cuda_copy_d2d"

# The lecture notes' table ("Kernel / GTX 8800 / GTX 460"; docs/kernels.md, "Beside the lecture":
# GB/s and step/cumulative speedup; kernel 6 on the GTX 460 is "???" in the notes). The notes
# give no times and no array size.
LECTURE = {
    "k1": ("2.16", "-", "4.3", "-"),
    "k2": ("4.28", "1.98", "7.8", "1.8"),
    "k3": ("9.73", "2.3 / 4.5", "11.71", "1.5 / 2.7"),
    "k4": ("17.6", "1.8 / 8.1", "23.43", "2 / 5.4"),
    "k5": ("36.7", "2.1 / 16.9", "46.8", "2 / 10.8"),
    "k6": ("57.2", "1.6 / 26.5", "???", "?"),
    "k7": ("", "", "", ""),
}

NCU_METRICS = (
    ("gpu__time_duration.sum", "duration (us)", lambda v: fmt(v / 1000.0, 1)),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", lambda v: fmt(v, 1)),
    ("dram__bytes_read.sum.per_second", "DRAM read GB/s", lambda v: fmt(v / 1e9, 0)),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %",
     lambda v: fmt(v, 1)),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniformity %",
     lambda v: fmt(v, 2)),
    ("smsp__sass_branch_targets_threads_divergent.sum", "divergent branch targets", lambda v: big(v)),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem bank conflicts ld",
     lambda v: big(v)),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem bank conflicts st",
     lambda v: big(v)),
    ("smsp__inst_executed.sum", "instructions executed", lambda v: big(v)),
    ("smsp__warps_launched.sum", "warps launched", lambda v: big(v)),
    ("launch__grid_size", "grid (blocks)", lambda v: big(v)),
)


def fmt(x, digits):
    if x is None:
        return "—"
    return f"{x:,.{digits}f}"


def big(x):
    """An integer count, with M / k for the large ones."""
    if x is None:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k"
    return f"{x:,.0f}"


def parse_n(text):
    m = re.fullmatch(r"2\^(\d+)", text)
    return 1 << int(m.group(1)) if m else int(text)


def n_label(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def load_bench(path):
    """{(family, n): median benchmark entry}; family = the name up to '/n:'."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred") or b.get("skipped"):
            continue
        name = b.get("run_name", b["name"])
        m = re.match(r"(.*?)/n:(\d+)", name)
        if not m:
            continue
        key = (m.group(1), int(m.group(2)))
        # A median aggregate wins over a single run of the same name.
        if key not in out or b.get("aggregate_name") == "median":
            out[key] = b
    return data.get("context", {}), out


def time_us(b):
    t = float(b["real_time"])
    unit = b.get("time_unit", "ns")
    return t * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[unit]


def load_ncu(path):
    """{rung short name (k1..k7): {metric: (value, unit)}} from scripts/gpu-check's ncu.csv."""
    sections, current = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# "):
                current = line[2:].strip()
                sections[current] = []
            elif current is not None and line.strip():
                sections[current].append(line)
    out = {}
    for name, lines in sections.items():
        rows = list(csv.reader(io.StringIO("".join(lines))))
        if len(rows) < 3:
            continue
        header, units, values = rows[0], rows[1], rows[2]
        metrics = {}
        for h, u, v in zip(header, units, values):
            metrics[h] = (v, u)
        out[name.split("_")[0]] = metrics
    return out


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def table(headers, rows, align=None):
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def copy_traffic(bench, t, n, suffix=""):
    """The copy roof's traffic rate (read + write bytes / s), or None."""
    c = bench.get((f"{COPY}{suffix}/{t}", n))
    if not c:
        return None, None
    traffic = c.get("traffic") or 2.0 * float(c["bytes_per_second"])
    return float(traffic), c


def ladder(bench, t, n, suffix=""):
    """The ladder at one size; `suffix` "_device" for the device-time benchmarks."""
    traffic, copy = copy_traffic(bench, t, n, suffix)
    rows, first, prev = [], None, None
    for short, fam, what in RUNGS:
        b = bench.get((f"reduce/{fam}{suffix}/{t}", n))
        if not b:
            rows.append([short, f"`{fam[len('cuda_'):]}`", "—", "—", "—", "—", "—"])
            prev = None
            continue
        us, bps = time_us(b), float(b["bytes_per_second"])
        first = first or us
        rows.append([
            f"**{short}**", f"`{fam[len('cuda_'):]}`", fmt(us, 1), fmt(bps / 1e9, 0),
            fmt(100.0 * bps / traffic, 1) if traffic else "—",
            fmt(prev / us, 2) + "x" if prev else "—", fmt(first / us, 1) + "x"])
        prev = us
    for fam, what in ANCHORS:
        b = bench.get((f"{fam}{suffix}/{t}", n))
        if not b:
            continue
        us, bps = time_us(b), float(b["bytes_per_second"])
        rows.append(["", what, fmt(us, 1), fmt(bps / 1e9, 0),
                     fmt(100.0 * bps / traffic, 1) if traffic else "—", "—",
                     fmt(first / us, 1) + "x" if first else "—"])
    if copy:
        us = time_us(copy)
        rows.append(["", f"copy roof: D2D copy of the n elements, {traffic / 1e9:,.0f} GB/s "
                     "read + write (= 100 %)", fmt(us, 1),
                     fmt(float(copy["bytes_per_second"]) / 1e9, 0), "ref.", "—", "—"])
    head = ["rung", "kernel (`parprim::cuda_reduce::`)", "time (us)", "GB/s (input read)",
            "% of copy roof",
            "step speedup", "cumulative (vs k1)"]
    return table(head, rows, ["l", "l", "r", "r", "r", "r", "r"])


def sizes_of(bench, t, suffix=""):
    return sorted({n for (fam, n) in bench if fam.endswith(f"{suffix}/{t}")
                   and (fam.startswith("reduce/cuda_k") or fam.startswith("reduce/cub"))})


def compact(bench, t, suffix=""):
    ns = sizes_of(bench, t, suffix)
    head = ["rung / anchor"] + [f"{n_label(n)}: us · GB/s" for n in ns]
    rows = []
    entries = [(short, f"reduce/{fam}{suffix}/{t}") for short, fam, _ in RUNGS]
    entries += [(what, f"{fam}{suffix}/{t}") for fam, what in ANCHORS]
    entries += [("copy roof", f"{COPY}{suffix}/{t}")]
    for label, fam in entries:
        cells = []
        for n in ns:
            b = bench.get((fam, n))
            cells.append(f"{fmt(time_us(b), 1)} · {fmt(float(b['bytes_per_second']) / 1e9, 0)}"
                         if b else "—")
        if any(c != "—" for c in cells):
            rows.append([label] + cells)
    return table(head, rows)


def lecture(bench, t, n):
    rows, first, prev = [], None, None
    for short, fam, what in RUNGS:
        b = bench.get((f"reduce/{fam}/{t}", n))
        g80, g80s, gtx, gtxs = LECTURE[short]
        if b:
            us, bps = time_us(b), float(b["bytes_per_second"])
            first = first or us
            ours = [fmt(us, 1), fmt(bps / 1e9, 0),
                    (fmt(prev / us, 2) if prev else "-") + " / " + fmt(first / us, 1)]
            prev = us
        else:
            ours = ["—", "—", "—"]
        rows.append([f"{short}: {what}"] + ours + [g80 or "—", g80s or "—", gtx or "—",
                                                    gtxs or "—"])
    head = [f"kernel", f"H200 time (us)", "H200 GB/s", "H200 step / cum.",
            "GTX 8800 GB/s", "GTX 8800 step / cum.", "GTX 460 GB/s", "GTX 460 step / cum."]
    return table(head, rows, ["l"] + ["r"] * 7)


def ncu_table(ncu):
    head = ["rung", "kernel"] + [label for _, label, _ in NCU_METRICS]
    rows = []
    for short, fam, _ in RUNGS:
        m = ncu.get(short)
        if not m:
            continue
        kernel = m.get("Kernel Name", ("", ""))[0]
        kernel = re.sub(r"^void ", "", kernel).split("(")[0]
        kernel = re.sub(r"<(.*?), int, int, plus>", r"<\1, int>", kernel)
        cells = []
        for metric, _, f in NCU_METRICS:
            v = m.get(metric)
            cells.append(f(number(v[0])) if v else "—")
        rows.append([f"**{short}**", f"`{kernel}`"] + cells)
    return table(head, rows, ["l", "l"] + ["r"] * len(NCU_METRICS))


def device(bench, t):
    """Device time next to the synchronous call, at every size."""
    ns = sizes_of(bench, t, "_device")
    have = bool(ns)
    ns = ns or sizes_of(bench, t) or [1 << 20, 1 << 24, 1 << 28, 1 << 30]
    head = ["rung / anchor"]
    for n in ns:
        head += [f"{n_label(n)} device us", f"{n_label(n)} sync us"]
    entries = [(short, f"reduce/{fam}", ) for short, fam, _ in RUNGS]
    entries += [(what, fam) for fam, what in ANCHORS if "thrust" not in fam]
    entries += [("copy roof", COPY)]
    rows = []
    for label, fam in entries:
        cells = []
        for n in ns:
            d = bench.get((f"{fam}_device/{t}", n))
            s = bench.get((f"{fam}/{t}", n))
            cells += [fmt(time_us(d), 1) if d else "—", fmt(time_us(s), 1) if s else "—"]
        rows.append([label] + cells)
    out = table(head, rows)
    if have:
        k7, cub = "reduce/cuda_k7_vectorized_single_pass_device", "reduce/cub_device_reduce_sum_device"
        ratios = []
        for n in ns:
            a, b = bench.get((f"{k7}/{t}", n)), bench.get((f"{cub}/{t}", n))
            if a and b:
                ratios.append(f"{n_label(n)}: {time_us(b) / time_us(a):.2f}x")
        if ratios:
            out += "\n\nk7 speedup over CUB `DeviceReduce::Sum`, device time: " + ", ".join(ratios)
    else:
        out = ("**Placeholder: no `_device` benchmarks in this JSON yet (they arrive with the "
               "next GPU run); the device-time columns are empty on purpose.**\n\n" + out)
    return out


def summary(bench):
    """Rung 7 against CUB DeviceReduce::Sum, every type and size (synchronous call)."""
    k7, cub = "reduce/cuda_k7_vectorized_single_pass", "reduce/cub_device_reduce_sum"
    rows = []
    for t in TYPES:
        for n in sizes_of(bench, t):
            a, b = bench.get((f"{k7}/{t}", n)), bench.get((f"{cub}/{t}", n))
            if not (a and b):
                continue
            rows.append([t, n_label(n), fmt(time_us(a), 1), fmt(time_us(b), 1),
                         fmt(float(a["bytes_per_second"]) / 1e12, 2),
                         fmt(float(b["bytes_per_second"]) / 1e12, 2),
                         fmt(time_us(b) / time_us(a), 2) + "x"])
    head = ["type", "n", "k7 (us)", "CUB Sum (us)", "k7 TB/s", "CUB TB/s", "k7 speedup over CUB"]
    return table(head, rows, ["l", "r", "r", "r", "r", "r", "r"])


def render(name, bench, ncu):
    parts = name.split(":")
    kind = parts[0]
    if kind == "ladder":
        return ladder(bench, parts[1], parse_n(parts[2]), parts[3] if len(parts) > 3 else "")
    if kind == "compact":
        return compact(bench, parts[1])
    if kind == "lecture":
        return lecture(bench, parts[1], parse_n(parts[2]))
    if kind == "ncu":
        if ncu is None:
            raise SystemExit("table 'ncu' needs --ncu NCU.csv")
        return ncu_table(ncu)
    if kind == "device":
        return device(bench, parts[1])
    if kind == "summary":
        return summary(bench)
    raise SystemExit(f"unknown table {name!r} (see --list)")


BLOCK = re.compile(r"(<!-- kernels_table (\S+) -->\n)(.*?)(<!-- /kernels_table -->)", re.S)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", nargs="?", help="parprim-bench JSON (cuda_bench.json)")
    ap.add_argument("tables", nargs="*", help="table names (see --list)")
    ap.add_argument("--ncu", help="scripts/gpu-check's ncu.csv")
    ap.add_argument("--update", metavar="DOC", help="rewrite the generated blocks of DOC")
    ap.add_argument("--list", action="store_true", help="print the table names and exit")
    args = ap.parse_intermixed_args()
    if args.list:
        print(__doc__[__doc__.index("TABLE is"):__doc__.index("--update DOC.md replaces")])
        return
    if not args.bench:
        ap.error("the bench JSON is required")
    _, bench = load_bench(args.bench)
    ncu = load_ncu(args.ncu) if args.ncu else None
    if args.update:
        with open(args.update, encoding="utf-8") as f:
            doc = f.read()
        count = 0

        def sub(m):
            nonlocal count
            count += 1
            return m.group(1) + "\n" + render(m.group(2), bench, ncu) + "\n\n" + m.group(4)

        doc = BLOCK.sub(sub, doc)
        with open(args.update, "w", encoding="utf-8") as f:
            f.write(doc)
        print(f"{args.update}: {count} tables regenerated", file=sys.stderr)
        return
    for name in args.tables or [f"ladder:{t}:2^28" for t in TYPES]:
        print(f"<!-- {name} -->\n{render(name, bench, ncu)}\n")


if __name__ == "__main__":
    main()
