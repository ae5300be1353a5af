#!/usr/bin/env python3
"""CTest `report.fixture`: runs bench/report on tests/report/fixtures/*.json (see
make_fixtures.py for the formulas behind every time) and checks what it writes:

  - report.md: numbers computed by hand from the fixture's formulas, in the ladder, summary,
    OpenMP and MPI tables (so a wrong formula, unit or column fails, not only a crash);
  - the PNG files: present, valid PNG (signature, IHDR), of a plausible size, not blank;
  - plots.json: the plotted series and fitted constants;
  - robustness: a JSON file cut short is read up to its last complete entry; --no-plots writes
    the tables without matplotlib.

Exit status: 0 pass, 1 fail (every failed check listed), 77 skip (no Python with matplotlib:
CTest's SKIP_RETURN_CODE).

Usage: check_report.py --report bench/report --fixtures DIR --work DIR
"""

import argparse
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def close(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b))


def run_report(report, args):
    proc = subprocess.run([sys.executable, report] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=240)
    return proc.returncode, proc.stdout, proc.stderr


# --- PNG -----------------------------------------------------------------------------------------

def png_facts(path):
    """(width, height, distinct byte values in the decompressed image data) or a string
    saying what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    pos, width, height, idat = 8, 0, 0, b""
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    try:
        pixels = zlib.decompress(idat)
    except zlib.error:
        return "IDAT does not decompress"
    return width, height, len(set(pixels[::7]))


def check_png(path):
    name = os.path.basename(path)
    if not check(os.path.isfile(path), f"{name} missing"):
        return
    size = os.path.getsize(path)
    check(20_000 < size < 4_000_000, f"{name}: implausible size {size} bytes")
    facts = png_facts(path)
    if not check(not isinstance(facts, str), f"{name}: {facts}"):
        return
    width, height, distinct = facts
    check(800 <= width <= 4000 and 500 <= height <= 4000, f"{name}: {width}x{height} pixels")
    check(distinct > 30, f"{name}: looks blank ({distinct} distinct byte values)")


# --- report.md -----------------------------------------------------------------------------------

# Every expected cell follows from make_fixtures.py's formulas; the comments show the sums.
EXPECTED_LINES = [
    # reduce ladder, int32, 2^28: k2 1000 us; 2^30 B / 1000 us = 1,074 GB/s; copy roof 500 us
    # moves 2^31 B: 4,295 GB/s traffic, so 1,074 / 4,295 = 25.0 %; step and cumulative 2000/1000
    "| **k2** | `interleaved_strided` | 1,000.0 | 1,074 | 25.0 | 2.00x | 2.00x |",
    # k5 320 us: 250/320 = 78.1 % of roof, step 400/320 = 1.25x, cumulative 2000/320 = 6.25x
    "| **k5** | `unrolled_last_warp` | 320.0 | 3,355 | 78.1 | 1.25x | 6.25x |",
    # CUB Sum: the median 255 us (the mean aggregate is 10 % slower), 2000/255 = 7.84x
    "|  | CUB DeviceReduce::Sum | 255.0 | 4,211 | 98.0 | — | 7.84x |",
    # scan ladder: k5 520 us, step 800/520 = 1.54x, cumulative 3000/520 = 5.77x, traffic 2^31 B
    # in 520 us over the copy's 2^31 B in 500 us = 96.2 %
    "| **k5** | `decoupled_look_back` | 520.0 | 2,065 | 96.2 | 1.54x | 5.77x |",
    # CUB InclusiveSum reports no traffic counter: input rate over half the copy traffic,
    # 500/680 = 73.5 %
    "|  | CUB DeviceScan::InclusiveSum | 680.0 | 1,579 | 73.5 | — | 4.41x |",
    # segmented scan ladder at seg:1024: bytes_per_second counts values only (2^30 B in 560 us
    # = 1,917 GB/s); traffic 9n bytes in 560 us over the copy's 8n in 500 us = 100.4 %; step
    # 760/560 = 1.36x, cumulative 2600/560 = 4.64x
    "| **k5** | `decoupled_look_back` | 560.0 | 1,917 | 100.4 | 1.36x | 4.64x |",
    # CUB by key moves 12n bytes: (12/900) / (8/500) = 83.3 %
    "|  | CUB DeviceScan::InclusiveSumByKey | 900.0 | 1,193 | 83.3 | — | 2.89x |",
    # summary at 2^28: omp reduce 0.8 ns * 2^28 / 16 + 2 us * 4 = 13.43 ms, 80.0 GB/s; seq
    # 0.75 ns * 2^28 = 201.3 ms: 14.99x; read roof 4 * 2^28 / 90e9 + 3 us: 80.0 / 90.0 = 89 %
    "| reduce | parprim omp | 16 | 13.43 | 80.0 | 14.99x | 89 % |",
    # OpenMP fit of data that follow the model exactly: t_c 0.8 ns, t_log 2 us, no error
    "| reduce | parprim omp | 0.800 .. 0.800 | 2.00 | 0 % | 28 |",
    # MPI latency table (us)
    "| `allreduce` | 0.20 | 1.00 | 2.00 | 3.00 | 4.00 |",
]
EXPECTED_TEXT = [
    # isoefficiency model for E = 0.5, p = 16: 1 * (2 us / 0.8 ns) * 16 * log2 16 = 160,000
    "/ 160,000 (2^17.3)",
    # MPI raw reduce, strong, p = 16: max(0.5 ns * 2^24, 4 * 2^28 / 90e9) + 4 us = 11.9 ms;
    # E = 134.2 / (16 * 11.93) = 70 %; model 0.5 ns * 2^24 + 4 us = 8.39 ms
    "11.9 · 70 % (8.39)",
    "### segmented_scan ladder, int32, segments of 1024, n = 2^28 (synchronous call)",
    "### scan (exclusive) ladder, int32, n = 2^28 (synchronous call)",
    "![bandwidth vs n](bandwidth.png)",
    "![CUDA ladders](cuda-ladders.png)",
    "![OpenMP scaling](openmp.png)",
    "![MPI scaling](mpi.png)",
    # the errored benchmark of cpu.json (no GPU) has a valid twin in gpu.json: not reported
]


def check_markdown(text):
    lines = set(text.splitlines())
    for expected in EXPECTED_LINES:
        # the OpenMP fit row has more columns after `points`
        found = expected in lines or any(line.startswith(expected) for line in lines)
        check(found, f"report.md lacks the line: {expected}")
    for expected in EXPECTED_TEXT:
        check(expected in text, f"report.md lacks: {expected}")
    check("no GPU" not in text, "report.md reports the cpu.json error although gpu.json has "
          "the benchmark")


# --- plots.json ----------------------------------------------------------------------------------

def series(panel, prefix):
    return next((s for s in panel["series"] if s["label"].startswith(prefix)), None)


def check_plots_json(data):
    red = data["bandwidth"].get("reduce", {"series": []})
    k7 = series(red, "parprim cuda k7")
    if check(k7 is not None, "plots.json: no k7 series in the reduce bandwidth plot"):
        check(k7["n"] == [1 << 20, 1 << 24, 1 << 28], f"k7 sizes {k7['n']}")
        check(close(k7["gbps"][-1], 2 ** 30 / 250e-6 / 1e9), f"k7 GB/s {k7['gbps'][-1]}")
    roof = next((s for s in red["series"] if s["where"] == "roof" and
                 s["competitor"] == "cuda_copy_d2d"), None)
    if check(roof is not None, "plots.json: no GPU copy roof in the reduce plot"):
        check(close(roof["gbps"][-1], 2 ** 31 / 500e-6 / 1e9), f"GPU roof {roof['gbps'][-1]}")
    omp = series(red, "parprim omp")
    check(omp is not None and omp["threads"] == 16, "reduce omp series not at 16 threads")
    check(not any("grain1" in s["competitor"] for s in red["series"]), "grain1 plotted")
    seg = data["bandwidth"].get("segmented_scan", {"series": []})
    labels = [s["label"] for s in seg["series"]]
    check(any("heads 1/1000" in x for x in labels) and not any("1/10)" in x for x in labels),
          f"segmented scan plot should show the longest segments only: {labels}")

    ladders = {(lad["panel"], lad["type"], lad["segments"]): lad for lad in data["ladders"]}
    lad = ladders.get(("reduce", "int32", ""))
    if check(lad is not None, "plots.json: no int32 reduce ladder"):
        steps = [r["step"] for r in lad["rungs"]]
        want = [None, 2.0, 1.25, 2.0, 1.25, 320 / 260, 260 / 250]
        check(len(steps) == 7 and steps[0] is None and
              all(close(a, b) for a, b in zip(steps[1:], want[1:])), f"reduce steps {steps}")
        check([r["rung"] for r in lad["rungs"]] == [f"k{i}" for i in range(1, 8)],
              "reduce rungs out of order")
        check(len(lad.get("rungs_device", [])) == 7, "no device-time ladder")
    check(("scan", "int32", "") in ladders, "no scan ladder")
    seg_ladders = [lad for lad in data["ladders"] if lad["panel"] == "segmented_scan"]
    check(seg_ladders and seg_ladders[0]["segments"] == "segments of 1024",
          "the segmented ladders should start with the one closest to 1024 (the plotted one)")
    seg_gpu = [s for s in data["bandwidth"]["segmented_scan"]["series"]
               if s["where"] == "roof" and s["competitor"] == "cuda_copy_d2d"]
    check(seg_gpu and close(seg_gpu[0]["gbps"][-1], 4 / 9 * 2 ** 31 / 500e-6 / 1e9),
          "GPU roof of the segmented scan: 4/9 of the copy traffic (values only as input)")

    a = data["openmp"].get("reduce")
    if check(a is not None, "plots.json: no OpenMP reduce analysis"):
        check(all(close(t, 0.8e-9) for t in a["t_c"].values()), f"t_c {a['t_c']}")
        check(close(a["t_log"], 2e-6), f"t_log {a['t_log']}")
        check(a["rel_rms"] < 1e-6, f"fit error {a['rel_rms']}")
        big = next(c for c in a["curves"] if c["n"] == 1 << 28)
        t1, t16 = 0.8e-9 * 2 ** 28, 0.8e-9 * 2 ** 28 / 16 + 2e-6 * 4
        check(close(big["speedup"][big["p"].index(16)], t1 / t16), "S(16) at 2^28")
        check(close(big["cost"][big["p"].index(16)], 16 * t16), "cost at p = 16")
        half = next(lv for lv in a["isoefficiency"] if lv["efficiency"] == 0.5)
        check(close(half["model"][half["model_p"].index(16)], 160000.0), "isoefficiency model")
        measured = half["measured"][half["p"].index(16)]
        check(measured is not None and abs(measured / 160000.0 - 1) < 0.05,
              f"isoefficiency measured {measured} (interpolated near 160,000)")
    check(set(data["openmp"]) == {"reduce", "scan", "segmented_scan"},
          f"OpenMP primitives {sorted(data['openmp'])}")

    m = data["mpi"]
    lat = {s["collective"]: s for s in m["latency"]}
    check("allreduce" in lat and all(close(a, b) for a, b in
                                     zip(lat["allreduce"]["us"], [0.2, 1, 2, 3, 4])),
          "MPI allreduce latency")
    strong = {c["competitor"]: c for c in m["strong"].get("reduce", {}).get("competitors", [])}
    if check("raw" in strong, "no MPI strong raw reduce"):
        t1 = 0.5e-9 * 2 ** 28 + 0.2e-6
        t16 = max(0.5e-9 * 2 ** 24, 4 * 2 ** 28 / 90e9) + 4e-6
        check(close(strong["raw"]["efficiency"][-1], t1 / (16 * t16)), "MPI strong E(16)")
        check(close(strong["raw"]["model_ms"][-1], (0.5e-9 * 2 ** 24 + 4e-6) * 1e3),
              "MPI strong model at p = 16")
    check(m["strong"].get("segmented_scan", {}).get("latency") == "exscan_flag_pair",
          "segmented scan should use the paired exscan latency")
    check(set(data["files"]) == {"bandwidth", "ladders", "openmp", "mpi"},
          f"figures {sorted(data['files'])}")


# --- robustness ----------------------------------------------------------------------------------

def check_truncated(report, fixtures, work):
    """A gpu.json cut in the middle of an entry (as when a run is killed) still reports."""
    with open(os.path.join(fixtures, "gpu.json"), encoding="utf-8") as f:
        data = json.load(f)
    text = json.dumps(data, indent=2)   # Google Benchmark's own layout
    cut = text[: len(text) // 2]
    path = os.path.join(work, "cut.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(cut)
    out = os.path.join(work, "cut")
    rc, _, err = run_report(report, ["--out", out, "--no-plots", "--quiet", path])
    if check(rc == 0, f"cut-short JSON: exit {rc}: {err.strip()[-300:]}"):
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            text = f.read()
        check("was cut short" in text, "cut-short JSON not noted in report.md")
        check("| **k1** |" in text, "cut-short JSON lost the ladder")
        check(not glob.glob(os.path.join(out, "*.png")), "--no-plots wrote PNG files")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    out = os.path.join(args.work, "report")
    inputs = sorted(glob.glob(os.path.join(args.fixtures, "*.json")))
    rc, stdout, stderr = run_report(args.report, ["--out", out] + inputs)
    if rc == SKIP:
        print("SKIP: " + stderr.strip())
        return SKIP
    if rc != 0:
        print(f"FAIL: bench/report exited {rc}\n{stdout}\n{stderr}")
        return 1
    check("parprim omp" in stdout and "% of roof" in stdout, "no compact table on stdout")
    check("MPI, at the most ranks run" in stdout, "no MPI table on stdout")
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        check_markdown(f.read())
    with open(os.path.join(out, "plots.json"), encoding="utf-8") as f:
        plots = json.load(f)
    try:
        check_plots_json(plots)
    except (KeyError, IndexError, TypeError, ValueError, StopIteration) as e:
        check(False, f"plots.json has not the expected shape: {type(e).__name__}: {e}")
    for name in ("bandwidth.png", "cuda-ladders.png", "openmp.png", "mpi.png"):
        check_png(os.path.join(out, name))
    check_truncated(args.report, args.fixtures, args.work)
    if failures:
        print(f"FAIL: {len(failures)} check(s) failed (report in {out}):")
        for f in failures:
            print("  - " + f)
        return 1
    print(f"PASS: report.md, plots.json and 4 PNG files checked (in {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
