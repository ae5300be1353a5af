#!/usr/bin/env python3
"""The CUDA-versus-CUB matrix of parprim-bench (`--benchmark_filter='^matrix/'`; names and method:
bench/cuda/matrix_bench.hpp) as a Markdown table and, with --png, a heat map.

A benchmark `matrix/<primitive>/<type>/<op>/<competitor>/n:<N>/manual_time` is one competitor
(parprim or cub) of the cell (primitive, type, op, N). The table has one row per (primitive,
type, op) and one column per N; each cell is CUB's time over parprim's (medians where the runs
were repeated), so above 1 means parprim is faster. A cell is `-` where the size was not run
for that type (2^27 instead of 2^28 for 8- and 16-byte types) and `err` where a competitor
failed its check or was skipped (its error is listed under the table). The heat map shows
the same ratios, colour-mapped on a diverging map centred at 1.0 (blue: parprim faster, red:
CUB faster), one panel per primitive, each cell annotated with its ratio.

With --device it tables the device-time rows instead (`matrix_device/...`: the GPU's time for
the enqueued work alone, without launch gaps or synchronisation; matrix_bench.hpp).

With --cpu it makes the same table and heat map of the OpenMP backend against the OpenMP code a
programmer writes by hand (the full report's openmp step): `reduce/omp/<type>` against
`reduce/omp_clause/<type>` (a `reduction(+:)` clause) and `scan/omp/<type>` against
`scan/two_pass/<type>` (the textbook two-pass scan), one row per (primitive, type, thread
count); each cell is the hand-written code's time over parprim's.

  matrix_table.py [--cpu | --device] [--title T] [--png FILE] FILE.json... > matrix.md
"""

import argparse
import json
import math
import re
import sys

PRIMITIVE_ORDER = ["reduce", "inclusive_scan", "exclusive_scan", "segmented_scan_1",
                   "segmented_scan_32", "segmented_scan_1024", "segmented_scan_65536",
                   "segmented_scan_one"]
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def parse(run_name: str, prefix: str = "matrix"):
    """(primitive, type, op, competitor, n) of a matrix benchmark (`prefix`/...), else None."""
    parts = [p for p in run_name.split("/")
             if not p.startswith(("min_time:", "repeats:", "manual_time", "real_time"))]
    if len(parts) != 6 or parts[0] != prefix or not parts[5].startswith("n:"):
        return None
    _, primitive, type_, op, competitor, n = parts
    return primitive, type_, op, competitor, int(n[2:])


CPU_ANCHORS = {("reduce", "omp_clause"), ("scan", "two_pass")}


def parse_device(run_name: str):
    """parse() of the device-time rows (matrix_device/...)."""
    return parse(run_name, "matrix_device")


def parse_cpu(run_name: str):
    """(primitive, type, "<t> threads", competitor, n) of an OpenMP row and its hand-written
    anchor (competitor "parprim" or "anchor"), else None."""
    parts = [p for p in run_name.split("/")
             if not p.startswith(("min_time:", "repeats:", "manual_time", "real_time"))]
    if len(parts) != 5 or not parts[3].startswith("threads:") or not parts[4].startswith("n:"):
        return None
    primitive, competitor, type_, threads, n = parts
    if competitor == "omp":
        who = "parprim"
    elif (primitive, competitor) in CPU_ANCHORS:
        who = "anchor"
    else:
        return None
    t = threads[len("threads:"):]
    return primitive, type_, f"{t} thread" + ("" if t == "1" else "s"), who, int(n[2:])


def load(paths, parse_name=parse):
    """({(primitive, type, op): {n: {competitor: seconds}}}, {(row, n): error}) in input order."""
    medians, singles, errors = {}, {}, {}
    for path in paths:
        with open(path) as f:
            for b in json.load(f).get("benchmarks", []):
                run = b.get("run_name", b["name"])
                key = parse_name(run)
                if key is None:
                    continue
                primitive, type_, op, competitor, n = key
                if b.get("error_occurred"):
                    errors[((primitive, type_, op), n)] = (
                        f"{competitor}: {b.get('error_message', 'error')}")
                    continue
                seconds = b["real_time"] * TIME_UNITS[b.get("time_unit", "ns")]
                if b.get("run_type") == "aggregate":
                    if b.get("aggregate_name") == "median":
                        medians[key] = seconds
                elif key not in singles:
                    singles[key] = seconds
    cells = {}
    for key in list(singles) + [k for k in medians if k not in singles]:
        primitive, type_, op, competitor, n = key
        cells.setdefault((primitive, type_, op), {}).setdefault(n, {})[competitor] = (
            medians.get(key, singles.get(key)))
    return cells, errors


def ordered_rows(cells):
    """Rows by primitive (PRIMITIVE_ORDER, then unknown ones), then type and op in input order."""
    def rank(row):
        p = row[0]
        return PRIMITIVE_ORDER.index(p) if p in PRIMITIVE_ORDER else len(PRIMITIVE_ORDER)
    first_seen = {row: i for i, row in enumerate(cells)}
    type_op_seen = {}
    for row in cells:
        type_op_seen.setdefault(row[1:], len(type_op_seen))

    types = sorted({t for t, _ in type_op_seen})

    def type_op(row):
        # the OpenMP rows ("<t> threads"): by type, then by thread count (random interleaving
        # leaves their input order random)
        threads = re.fullmatch(r"(\d+) threads?", row[2])
        if threads:
            return (types.index(row[1]), int(threads.group(1)))
        return (type_op_seen[row[1:]], 0)
    return sorted(cells, key=lambda r: (rank(r), r[0], type_op(r), first_seen[r]))


def ratio(cell):
    """The other competitor's time (CUB, or the hand-written anchor) / parprim's, or None."""
    other = "cub" if cell and "cub" in cell else "anchor"
    if not cell or other not in cell or "parprim" not in cell or cell["parprim"] <= 0:
        return None
    return cell[other] / cell["parprim"]


def below_one(r: float) -> bool:
    """Whether a ratio prints below 1.00 (two decimals)."""
    return round(r, 2) < 1


def n_label(n: int) -> str:
    k = math.log2(n)
    return f"2^{k:.0f}" if n > 0 and abs(k - round(k)) < 1e-9 else str(n)


def table(cells, errors):
    """(rows, sizes, {(row, n): ratio or None})."""
    rows = ordered_rows(cells)
    sizes = sorted({n for row in cells.values() for n in row} | {n for _, n in errors})
    ratios = {(row, n): ratio(cells[row].get(n)) for row in rows for n in sizes}
    return rows, sizes, ratios


CUB_TEXT = "CUB's time over parprim's"
DEVICE_TEXT = ("CUB's device time over parprim's (the GPU's time for the enqueued work alone, "
               "behind a stream gate)")
CPU_TEXT = ("The hand-written OpenMP code's time (reduce: a `reduction(+:)` clause; scan: the "
            "two-pass scan) over parprim's OpenMP backend's")


def markdown(cells, errors, title, what=CUB_TEXT) -> str:
    rows, sizes, ratios = table(cells, errors)
    lines = [f"## {title}", ""] if title else []
    lines += [f"{what} (median of the repetitions): above 1 parprim is faster. "
              "`-`: not run at this size; `err`: a competitor failed its check or was skipped.",
              ""]
    op_column = "threads" if what == CPU_TEXT else "op"
    lines.append(f"| primitive | type | {op_column} | " + " | ".join(n_label(n) for n in sizes) +
                 " |")
    lines.append("| --- | --- | --- | " + " | ".join("---:" for _ in sizes) + " |")
    for row in rows:
        out = []
        for n in sizes:
            r = ratios[(row, n)]
            if (row, n) in errors:
                out.append("err")
            elif r is None:
                out.append("-")
            else:
                out.append(f"**{r:.2f}**" if below_one(r) else f"{r:.2f}")
        lines.append(f"| {row[0]} | {row[1]} | {row[2]} | " + " | ".join(out) + " |")
    measured = [r for r in ratios.values() if r is not None]
    if measured:
        geomean = math.exp(sum(math.log(r) for r in measured) / len(measured))
        below = sum(1 for r in measured if below_one(r))
        lines += ["", f"{len(measured)} cells: geometric mean {geomean:.2f}; {below} below 1.0 "
                      f"(bold), smallest {min(measured):.2f}, largest {max(measured):.2f}."]
    if errors:
        lines += ["", "Errors:", ""]
        for (row, n), message in errors.items():
            lines.append(f"- `{'/'.join(row)}` n = {n_label(n)}: {message}")
    return "\n".join(lines) + "\n"


def heat_map(cells, errors, path: str, title: str, anchor: str = "CUB"):
    """One panel per primitive: rows (type, op), columns n, colour = ratio (centre 1.0)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    rows, sizes, ratios = table(cells, errors)
    primitives = []
    for row in rows:
        if row[0] not in primitives:
            primitives.append(row[0])
    measured = [r for r in ratios.values() if r is not None]
    lo = min([0.5] + [r for r in measured])
    hi = max([2.0] + [r for r in measured])
    norm = TwoSlopeNorm(vmin=lo, vcenter=1.0, vmax=hi)
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("lightgrey")
    panels = {p: [r for r in rows if r[0] == p] for p in primitives}
    height = max(len(v) for v in panels.values())
    shared = len({tuple(r[1:] for r in v) for v in panels.values()}) == 1  # same rows in all
    columns = min(4, len(primitives))
    lines = math.ceil(len(primitives) / columns)
    fig, axes = plt.subplots(lines, columns, squeeze=False, constrained_layout=True,
                             figsize=(0.45 * len(sizes) * columns + 3.5,
                                      max(3.5, (0.22 * height + 0.9) * lines + 0.5)))
    image = None
    for i, primitive in enumerate(primitives):
        ax = axes[i // columns][i % columns]
        prows = panels[primitive]
        data = [[ratios[(row, n)] if ratios[(row, n)] is not None else math.nan for n in sizes]
                for row in prows]
        image = ax.imshow(data, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        for y, row in enumerate(prows):
            for x, n in enumerate(sizes):
                r = ratios[(row, n)]
                text = "err" if (row, n) in errors else ("" if r is None else f"{r:.2f}")
                if text:
                    # white on the dark ends of the map; below 1.0 also bold (dark red on the
                    # pale cells near 1.0), so no slower cell passes for a faster one
                    strong = r is not None and (r < 0.7 or r > 1.6)
                    slower = r is not None and below_one(r)
                    ax.text(x, y, text, ha="center", va="center", fontsize=6.5,
                            fontweight="bold" if slower else "normal",
                            color="white" if strong else ("darkred" if slower else "black"))
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([f"$2^{{{math.log2(n):.0f}}}$" for n in sizes], fontsize=8)
        ax.set_yticks(range(len(prows)))
        if shared and i % columns:
            ax.set_yticklabels([])
        else:
            ax.set_yticklabels([f"{row[1]} {row[2]}" for row in prows], fontsize=7)
        ax.set_title(primitive, fontsize=9)
        ax.set_xlabel("n (elements)", fontsize=8)
    for j in range(len(primitives), lines * columns):
        axes[j // columns][j % columns].axis("off")
    if image is not None:
        bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.5)
        bar.set_label(f"{anchor} time / parprim time (>1: parprim faster)")
    fig.suptitle(title or f"parprim vs {anchor}")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--title", default="")
    p.add_argument("--png", help="write the heat map to this PNG file (needs matplotlib)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--cpu", action="store_true",
                       help="the OpenMP rows against the hand-written OpenMP code, not the CUDA "
                            "matrix")
    which.add_argument("--device", action="store_true",
                       help="the CUDA matrix in device time (matrix_device/ rows)")
    a = p.parse_args(argv)
    parse_name = parse_cpu if a.cpu else parse_device if a.device else parse
    cells, errors = load(a.files, parse_name)
    if not cells and not errors:
        what = ("OpenMP (reduce|scan)/omp" if a.cpu else
                "matrix_device/" if a.device else "matrix/")
        print(f"matrix_table: no {what} benchmarks in {' '.join(a.files)}", file=sys.stderr)
        return 1
    sys.stdout.write(markdown(cells, errors, a.title,
                              CPU_TEXT if a.cpu else DEVICE_TEXT if a.device else CUB_TEXT))
    if a.png:
        heat_map(cells, errors, a.png, a.title, "hand-written OpenMP" if a.cpu else "CUB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
