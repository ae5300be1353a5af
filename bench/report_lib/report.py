"""bench/report's command line: JSON in; report.md, plots.json and PNG plots out; the compact
table on the terminal."""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import bandwidth, fmt, ladders, mpi, openmp, results

METHOD_OPENMP = """\
Model (the lecture's): `T_P(n, p) = t_c n/p + t_log log2 p`: each of p threads processes n/p
elements at t_c seconds each, then a combine tree of depth log2 p. On a real machine t_c
depends on n (caches), so the local part is the measured one-thread time over p,
`T_1(n)/p` (t_c = T_1(n)/n, shown for the smallest and largest n), and only t_log is fitted:
by relative least squares (every point weighs the same whatever its size) on what the local
part leaves of the p > 1 times, `T - T_1(n)/p = t_log log2 p` (clamped at 0).
S(p) = T_1(n)/T(n, p) (the same code on one thread), E = S/p, cost = p T_P. The model's
efficiency is `1 / (1 + p t_log log2 p / T_1(n))`, so holding E needs
`T_1(n) = E/(1-E) p t_log log2 p` (the isoefficiency function; n read off the measured T_1
curve; with a constant t_c, `n = E/(1-E) (t_log/t_c) p log2 p`). Where measurement and model
part, the model's omissions show: memory bandwidth (the threads share one memory system, so
large n stops scaling at the roof: the "roof bound" column is T_1(n) over the time the call's
bytes take at the roof's rate) and caches (sizes that fit in the caches of p cores but not of
one can scale better than linearly)."""

METHOD_MPI = """\
Model: `T_P(n, p) = t_c n/p + lambda(p)` with lambda(p) the measured time of one collective of
a scalar at p ranks (`mpi/latency/...`: MPI_Allreduce for reduce, MPI_Exscan for the scans),
in place of the lecture's log p term; t_c from the same competitor's one-rank time,
`(T(1) - lambda(1)) / n` (strong) or `/ (n/p)` (weak). Strong scaling: n fixed, S = T(1)/T(p),
E = S/p. Weak scaling: n/p fixed, ideal time constant, weak efficiency T(1)/T(p). Times are the
slowest rank's. All ranks of one host share its memory bandwidth, which the model leaves out."""


def _parse_n(text: str) -> int:
    return 1 << int(text[2:]) if text.startswith("2^") else int(text)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="bench/report",
        description="Tables and plots from parprim-bench / parprim-bench-mpi JSON.")
    ap.add_argument("json", nargs="+", help="Google Benchmark JSON files (CPU, GPU, mpirun)")
    ap.add_argument("--out", required=True, help="report folder (created)")
    ap.add_argument("--type", default="int32", help="element type of the plots (int32)")
    ap.add_argument("--table-n", type=_parse_n, action="append", default=[],
                    help="size of the compact table, e.g. 2^24 (repeatable; default: the size "
                         "most benchmarks ran)")
    ap.add_argument("--ladder-n", type=_parse_n, default=1 << 28,
                    help="size of the CUDA ladder tables (default 2^28, else the largest)")
    ap.add_argument("--title", default="parprim bench report", help="report title")
    ap.add_argument("--preamble", help="Markdown file inserted below the title")
    ap.add_argument("--prefix", default="",
                    help="name files PREFIX.md, PREFIX-*.png, PREFIX-plots.json "
                         "(default report.md, *.png, plots.json)")
    ap.add_argument("--no-plots", action="store_true",
                    help="tables only (no matplotlib needed)")
    ap.add_argument("--quiet", action="store_true", help="no terminal table")
    return ap.parse_args(argv)


def _file_name(prefix: str, name: str) -> str:
    if name == "report.md":
        return f"{prefix}.md" if prefix else name
    return f"{prefix}-{name}" if prefix else name


def _inputs_section(paths: list, contexts: dict) -> str:
    rows = []
    for path in paths:
        c = contexts.get(path, {})
        what = c.get("parprim_backends", "")
        if "mpi_ranks" in c:
            what = f"mpi, {c['mpi_ranks']} ranks (local: {c.get('parprim_local_policy', '?')})"
        rows.append([f"`{os.path.basename(path)}`", c.get("host_name", ""),
                     str(c.get("num_cpus", "")), c.get("date", "")[:19], what,
                     c.get("parprim_build_type", fmt.DASH)])
    return fmt.markdown_table(["file", "host", "CPUs", "date", "backends", "parprim build"], rows,
                              "llrlll")


def build(args) -> dict:
    """Everything the report shows, computed from the JSON files (what plots.json holds)."""
    res, errors, contexts, notes = results.load(args.json)
    if not res:
        raise SystemExit("bench/report: no usable benchmark in " + ", ".join(args.json))
    sizes = args.table_n or [bandwidth.choose_n(res)]
    return dict(
        inputs=args.json, contexts=contexts, notes=notes,
        errors=results.describe_errors(errors), type=args.type,
        summaries=[bandwidth.summary(res, n, args.type) for n in sizes if n],
        bandwidth=bandwidth.collect(res, args.type),
        ladders=ladders.collect(res, args.ladder_n),
        openmp=openmp.collect(res, args.type),
        mpi=mpi.collect(res, args.type))


def make_plots(data: dict, out: str, prefix: str) -> dict:
    """{figure: file name} of the PNG files written."""
    from . import plots

    files = {}
    if data["bandwidth"]:
        files["bandwidth"] = _file_name(prefix, "bandwidth.png")
        plots.bandwidth(data["bandwidth"], os.path.join(out, files["bandwidth"]))
    shown = [lad for lad in data["ladders"] if lad["type"] == data["type"] and
             (lad.get("rungs") or lad.get("anchors"))]
    # Segmented scans: one segment length (ladders are sorted, the preferred one first).
    seen, picked = set(), []
    for lad in shown:
        if lad["panel"] not in seen:
            seen.add(lad["panel"])
            picked.append(lad)
    if picked:
        files["ladders"] = _file_name(prefix, "cuda-ladders.png")
        plots.ladders(picked, os.path.join(out, files["ladders"]))
    if data["openmp"]:
        files["openmp"] = _file_name(prefix, "openmp.png")
        plots.openmp(data["openmp"], os.path.join(out, files["openmp"]))
    if data["mpi"]["strong"] or data["mpi"]["weak"]:
        files["mpi"] = _file_name(prefix, "mpi.png")
        plots.mpi(data["mpi"], os.path.join(out, files["mpi"]))
    return files


def markdown(data: dict, files: dict, title: str, preamble: str) -> str:
    def image(key, alt):
        return f"\n\n![{alt}]({files[key]})" if key in files else ""

    parts = [f"# {title}"]
    if preamble:
        parts.append(preamble.strip())
    parts.append("Generated by `bench/report` from:\n\n" +
                 _inputs_section(data["inputs"], data["contexts"]))
    remarks = data["notes"] + data["errors"]
    if remarks:
        parts.append("Notes on the input:\n\n" + "\n".join(f"- {r}" for r in remarks))
    parts.append("Units: GB/s = 10^9 bytes of input read per second as each benchmark counts "
                 "them (`bytes_per_second`: the CPU segmented scans count values and one-byte "
                 "flags, the CUDA ones values only); times are medians where a benchmark was "
                 "repeated; n counts elements.")
    for s in data["summaries"]:
        if s["rows"]:
            parts.append(f"## Summary at n = {fmt.n_label(s['n'])} ({s['type']})\n\n"
                         "Each competitor at the most threads it ran with; `vs seq`: parprim "
                         "seq's time over this one; `% of roof`: traffic rate over the copy "
                         "roof's (CPU reduce: the read roof's; a CPU copy loop also pays the "
                         "write-allocate reads that streaming stores avoid, so a CPU scan can "
                         "pass 100 %).\n\n" +
                         bandwidth.summary_table(s, True))
    if data["bandwidth"]:
        parts.append("## Bandwidth vs n\n\nOne line per backend, rung and anchor; the copy "
                     "roof dashed, expressed in the primitive's input bytes (a scan reads half "
                     "the bytes a copy moves, so its roof is half the copy's traffic)." +
                     image("bandwidth", "bandwidth vs n") + "\n\n" +
                     bandwidth.markdown(data["bandwidth"]))
    if data["ladders"]:
        tables = []
        for lad in data["ladders"]:
            for suffix in ("", "_device"):
                if lad.get("rungs" + suffix) or lad.get("anchors" + suffix):
                    tables.append(f"### {ladders.title(lad, suffix)}\n\n" +
                                  ladders.markdown(lad, suffix))
        parts.append("## CUDA ladders\n\nStep speedup: the previous rung's time over this "
                     "one's; cumulative: the first rung's time over this one's (for anchors: "
                     "the first rung's time over the anchor's). % of copy roof: traffic rate "
                     "over a device-to-device copy's of the same n." +
                     image("ladders", "CUDA ladders") + "\n\n" + "\n\n".join(tables))
    if data["openmp"]:
        parts.append("## OpenMP scaling\n\n" + METHOD_OPENMP + image("openmp", "OpenMP scaling")
                     + "\n\n" + openmp.markdown(data["openmp"]))
    else:
        parts.append("## OpenMP scaling\n\nNo thread sweep in the input (parprim-bench's "
                     "`<primitive>/omp/<type>/threads:<p>/n:<N>` at several p including 1).")
    if data["mpi"]["strong"] or data["mpi"]["weak"]:
        parts.append("## MPI scaling\n\n" + METHOD_MPI + image("mpi", "MPI scaling") + "\n\n" +
                     mpi.markdown(data["mpi"]))
    return "\n\n".join(parts) + "\n"


def terminal(data: dict) -> str:
    out = []
    for s in data["summaries"]:
        if s["rows"]:
            out.append(f"n = {s['n']} {s['type']} ({fmt.n_label(s['n'])}); GB/s = input bytes "
                       "read per second; % of roof = traffic / copy (CPU reduce: read) roof")
            out.append(bandwidth.summary_table(s, False))
    m = mpi.summary_table(data["mpi"])
    if m:
        out.append("MPI, at the most ranks run (E: strong-scaling efficiency; weak E: "
                   "T(1)/T(p))")
        out.append(m)
    for e in data["errors"]:
        out.append("note: " + e.replace("`", ""))
    return "\n\n".join(out)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    data = build(args)
    os.makedirs(args.out, exist_ok=True)
    files = {} if args.no_plots else make_plots(data, args.out, args.prefix)
    preamble = ""
    if args.preamble:
        with open(args.preamble, encoding="utf-8") as f:
            preamble = f.read()
    report = os.path.join(args.out, _file_name(args.prefix, "report.md"))
    with open(report, "w", encoding="utf-8") as f:
        f.write(markdown(data, files, args.title, preamble))
    with open(os.path.join(args.out, _file_name(args.prefix, "plots.json")), "w",
              encoding="utf-8") as f:
        json.dump(dict(data, files=files), f, indent=1)
    if not args.quiet:
        print(terminal(data))
    written = [report] + [os.path.join(args.out, v) for v in files.values()]
    print("bench/report: wrote " + ", ".join(written), file=sys.stderr)
    return 0
