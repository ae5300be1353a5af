#!/usr/bin/env python3
"""Every benchmark of Google Benchmark JSON files as Markdown tables, one per case, each row
beside the case's anchor.

A case is a benchmark name without its competitor: `reduce/cuda_exact_plus/float32/n:268435456`
and `reduce/cub_device_reduce_sum/float32/n:268435456` are the case `reduce/float32/n:268435456`
(`threads:T` is kept in the case: CPU rows compare at one thread count; a competitor named
`*_device`, timed in device time, makes its own case). The competitor is the
component after the primitive (after `inclusive`/`exclusive` for the scans). Each case lists its
competitors in the order of the input with the median time (the single run where a benchmark
was not repeated) and `anchor / this`: the anchor's time over this one, so above 1 is faster
than the anchor. The anchor is the case's first competitor named by --anchor (regular
expressions, tried in order; default: CUB, then the OpenMP reduction clause, the two-pass
scan, seq).

  rows_table.py [--title T] [--anchor RE]... FILE.json... > rows.md
"""

import argparse
import json
import re
import sys

DEFAULT_ANCHORS = [r"^cub_", r"^omp_clause$", r"^two_pass$", r"^seq$"]
SCAN_KINDS = ("inclusive", "exclusive")
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def split(run_name: str):
    """(case, competitor) of a benchmark's run name, or None for a name with one part."""
    parts = [p for p in run_name.split("/")
             if not p.startswith(("min_time:", "repeats:", "manual_time", "real_time"))]
    at = 2 if len(parts) > 2 and parts[1] in SCAN_KINDS else 1
    if len(parts) <= at:
        return None
    case, competitor = "/".join(parts[:at] + parts[at + 1:]), parts[at]
    if competitor.endswith("_device"):  # device time: its own case
        case, competitor = case + " (device time)", competitor[:-len("_device")]
    return case, competitor


def rows(paths):
    """{case: {competitor: seconds}} in input order: medians where repeated."""
    medians, singles = {}, {}
    for path in paths:
        with open(path) as f:
            for b in json.load(f).get("benchmarks", []):
                if b.get("error_occurred"):
                    continue
                run = b.get("run_name", b["name"])
                seconds = b["real_time"] * TIME_UNITS[b.get("time_unit", "ns")]
                if b.get("run_type") == "aggregate":
                    if b.get("aggregate_name") == "median":
                        medians[run] = seconds
                elif run not in singles:
                    singles[run] = seconds
    out = {}
    for run in list(singles) + [r for r in medians if r not in singles]:
        key = split(run)
        if key is None:
            continue
        case, competitor = key
        out.setdefault(case, {})[competitor] = medians.get(run, singles.get(run))
    return out


def time_label(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"


def markdown(cases, anchors, title) -> str:
    lines = [f"## {title}", ""] if title else []
    lines += ["| case | competitor | time | anchor / this |", "| --- | --- | ---: | ---: |"]
    for case, competitors in cases.items():
        anchor = None
        for pattern in anchors:
            anchor = next((c for c in competitors if re.search(pattern, c)), None)
            if anchor is not None:
                break
        for i, (competitor, seconds) in enumerate(competitors.items()):
            if anchor is None:
                ratio = ""
            elif competitor == anchor:
                ratio = "anchor"
            else:
                ratio = f"{competitors[anchor] / seconds:.2f}x"
            lines.append(f"| {f'`{case}`' if i == 0 else ''} | {competitor} | "
                         f"{time_label(seconds)} | {ratio} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--title", default="")
    p.add_argument("--anchor", action="append", help="competitor regex (repeatable, in order)")
    a = p.parse_args(argv)
    cases = rows(a.files)
    if not cases:
        print(f"rows_table: no benchmarks in {' '.join(a.files)}", file=sys.stderr)
        return 1
    sys.stdout.write(markdown(cases, a.anchor or DEFAULT_ANCHORS, a.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
