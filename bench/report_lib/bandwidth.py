"""Bandwidth vs n per primitive, one series per backend / rung / anchor, with the copy roof;
and the compact summary table at one size.

GB/s are 1e9 input bytes read per second (parprim-bench's bytes_per_second). The roof is what
the memory system delivers to a copy, expressed in the primitive's input bytes: a primitive
that moves `share` of its traffic as input (reduce 1, scan s/2s, segmented scan with one-byte
flags (s+1)/(2s+1) for s-byte values) and ran at the copy's traffic rate would reach
share * copy traffic. CPU reduce uses the read roof (a parallel sum loop) instead.
"% of roof" is a benchmark's traffic rate over the roof's (input rate over the roof line when
a benchmark reports no traffic counter).
"""

from __future__ import annotations

from collections import Counter

from . import fmt
from .results import TYPE_BYTES

PRIMITIVES = ("reduce", "scan", "segmented_scan")


def roof_share(primitive: str, type_: str) -> float:
    """Input bytes / all bytes moved, for the primitive on elements of `type_`."""
    s = TYPE_BYTES.get(type_, 4)
    if primitive == "reduce":
        return 1.0
    if primitive == "segmented_scan":
        return (s + 1) / (2 * s + 1)
    return 0.5


def is_parprim(competitor: str) -> bool:
    return competitor in ("seq", "omp") or competitor.startswith("cuda")


def input_share(records: list, primitive: str, type_: str) -> float:
    """Input bytes / all bytes moved as the benchmarks count them: the median over parprim's
    own records that report traffic (the CPU segmented scans count the flags as input, the
    CUDA ones do not), else roof_share."""
    shares = sorted(r.rate / r.traffic for r in records
                    if is_parprim(r.competitor) and r.traffic > 0 and r.rate > 0)
    return shares[len(shares) // 2] if shares else roof_share(primitive, type_)


def _traffic(r) -> float:
    return r.traffic if r.traffic > 0 else 2.0 * r.rate   # a copy reads and writes


def roofs(results: list, type_: str, device_time: bool = False) -> dict:
    """{(where, kind): {n: Result}}: where cpu/gpu, kind copy/read; CPU roofs at the most
    threads measured; device_time: the `_device` roof instead."""
    out = {}
    for r in results:
        if r.group or r.primitive != "roof" or r.type != type_ or r.device_time != device_time:
            continue
        where = "gpu" if r.is_gpu else "cpu"
        kind = "read" if r.competitor == "read" else "copy"
        slot = out.setdefault((where, kind), {})
        if r.n not in slot or r.threads > slot[r.n].threads:
            slot[r.n] = r
    return out


def roof_for(roof_table: dict, primitive: str, type_: str, where: str, n: int,
             share: float | None = None):
    """(roof input rate in bytes/s, roof traffic in bytes/s, roof Result) at n, or None;
    share: input bytes / bytes moved (default roof_share)."""
    share = share if share is not None else roof_share(primitive, type_)
    if where == "cpu" and primitive == "reduce" and n in roof_table.get(("cpu", "read"), {}):
        r = roof_table[("cpu", "read")][n]
        return r.rate, r.rate, r
    r = roof_table.get((where, "copy"), {}).get(n)
    if r is None:
        return None
    return share * _traffic(r), _traffic(r), r


def percent_of_roof(r, roof) -> float | None:
    if roof is None:
        return None
    rate, traffic, _ = roof
    if r.traffic > 0 and traffic > 0:
        return 100.0 * r.traffic / traffic
    return 100.0 * r.rate / rate if rate > 0 else None


def best_threads(results: list) -> dict:
    """{(panel, segments, competitor, n): Result} keeping the most threads of each."""
    out = {}
    for r in results:
        key = (r.panel, r.segments_label, r.competitor, r.n)
        if key not in out or r.threads > out[key].threads:
            out[key] = r
    return out


def collect(results: list, type_: str) -> dict:
    """{panel: {"type", "segments", "series": [...]}} for the bandwidth plot; each series has
    label, competitor, where (cpu / gpu / roof), threads, n, gbps."""
    roof_table = roofs(results, type_)
    rows = [r for r in results if not r.group and r.primitive in PRIMITIVES and r.type == type_
            and not r.device_time and r.n > 0 and "grain1" not in r.competitor]
    panels = {}
    for panel in sorted({r.panel for r in rows}, key=_panel_order):
        mine = [r for r in rows if r.panel == panel]
        # Segmented scans: each competitor at one segment length (closest to 1024).
        preferred = {}
        for r in mine:
            preferred[r.competitor] = min(preferred.get(r.competitor, r.segment_rank),
                                          r.segment_rank)
        mine = [r for r in mine if r.segment_rank == preferred[r.competitor]]
        by_key = best_threads(mine)
        series = []
        for competitor in sorted({r.competitor for r in mine}, key=competitor_order):
            points = sorted((r for (p, s, c, n), r in by_key.items() if c == competitor),
                            key=lambda r: r.n)
            first = points[0]
            name = fmt.label(competitor)
            if first.segments_label:
                name += f" ({first.segments_label})"
            if not first.is_gpu and max(r.threads for r in points) > 1:
                name += f", {max(r.threads for r in points)} thr"
            series.append(dict(label=name, competitor=competitor,
                               where="gpu" if first.is_gpu else "cpu",
                               threads=max(r.threads for r in points),
                               n=[r.n for r in points], gbps=[r.rate / 1e9 for r in points]))
        primitive = mine[0].primitive
        for where in ("cpu", "gpu"):
            if not any(s["where"] == where for s in series):
                continue
            ns = sorted({n for s in series if s["where"] == where for n in s["n"]})
            share = input_share([r for r in mine if r.is_gpu == (where == "gpu")], primitive,
                                type_)
            pts = [(n, roof_for(roof_table, primitive, type_, where, n, share)) for n in ns]
            pts = [(n, roof) for n, roof in pts if roof]
            if pts:
                kind = pts[0][1][2].competitor
                series.append(dict(label=fmt.label(kind) + _roof_note(primitive, where),
                                   competitor=kind, where="roof", threads=pts[0][1][2].threads,
                                   n=[n for n, _ in pts], gbps=[roof[0] / 1e9 for _, roof in pts]))
        panels[panel] = dict(type=type_, series=series)
    return panels


def _roof_note(primitive: str, where: str) -> str:
    if where == "cpu" and primitive == "reduce":
        return ""
    return {"reduce": "", "scan": ", as scan input", "segmented_scan": ", as seg. scan input"
            }.get(primitive, "")


def _panel_order(panel: str):
    base = panel.split(" ")[0]
    return (PRIMITIVES.index(base) if base in PRIMITIVES else 9, panel)


def competitor_order(competitor: str):
    """parprim CPU, CPU anchors, the CUDA rungs in order, then GPU anchors."""
    cpu = ["seq", "omp", "omp_clause", "omp_clause_simd", "std_seq", "std_par", "two_pass"]
    if competitor in cpu:
        return (0, cpu.index(competitor), competitor)
    rung = fmt.rung_of(competitor)
    if rung:
        return (2, rung[0], competitor)
    if competitor.startswith("cuda"):
        return (2, 99, competitor)
    if competitor.startswith(("cub", "thrust")):
        return (3, 0, competitor)
    return (1, 0, competitor)


# --- the compact table ------------------------------------------------------------------------

def choose_n(results: list) -> int:
    """The size measured by most (primitive, competitor) pairs; ties go to the larger."""
    counts = Counter(r.n for r in results
                     if not r.group and r.primitive in PRIMITIVES and r.n > 0)
    if not counts:
        return 0
    return max(counts, key=lambda n: (counts[n], n))


def summary(results: list, n: int, type_: str) -> dict:
    """Rows of the compact table at size n: every competitor of every primitive (most threads),
    then the false-sharing demo and the roofs."""
    roof_table = roofs(results, type_)
    rows = [r for r in results if not r.group and r.n == n and r.type == type_
            and not r.device_time and (r.primitive in PRIMITIVES or
                                       r.primitive in ("false_sharing", "roof"))]
    by_key = best_threads(rows)
    rank = {r.segments_label: r.segment_rank for r in by_key.values()}
    groups = sorted({(r.panel, r.segments_label) for r in by_key.values()},
                    key=lambda g: (_panel_order(g[0]) if g[0] != "roof" else (10, ""),
                                   rank[g[1]], g[1]))
    out = []
    for panel, segments in groups:
        mine = [r for r in by_key.values() if (r.panel, r.segments_label) == (panel, segments)]
        seq = next((r for r in mine if r.competitor == "seq"), None)
        for r in sorted(mine, key=lambda r: competitor_order(r.competitor)):
            roof = None
            if r.primitive in PRIMITIVES:
                roof = roof_for(roof_table, r.primitive, type_, "gpu" if r.is_gpu else "cpu", n)
            elif r.primitive == "false_sharing":
                roof = roof_for(roof_table, "reduce", type_, "cpu", n)
            out.append(dict(
                primitive=panel + (f" {segments}" if segments else ""), competitor=r.competitor,
                label=fmt.label(r.competitor), where="GPU" if r.is_gpu else str(r.threads),
                ms=r.seconds * 1e3, gbps=r.rate / 1e9,
                vs_seq=seq.seconds / r.seconds if seq and r.seconds > 0 else None,
                roof_pct=percent_of_roof(r, roof)))
    return dict(n=n, type=type_, rows=out)


def summary_table(data: dict, markdown: bool) -> str:
    headers = ["primitive", "competitor", "threads", "time (ms)", "GB/s", "vs seq", "% of roof"]
    rows = [[r["primitive"], r["label"], r["where"], fmt.sig(r["ms"], 4), fmt.num(r["gbps"], 1),
             fmt.num(r["vs_seq"], 2, "x"), fmt.num(r["roof_pct"], 0, " %")]
            for r in data["rows"]]
    if markdown:
        return fmt.markdown_table(headers, rows, "llrrrrr")
    return fmt.text_table(headers, rows, "llrrrrr")


def markdown(panels: dict) -> str:
    """GB/s at up to four sizes per series, beside the plot."""
    parts = []
    for panel, data in panels.items():
        ns = sorted({n for s in data["series"] for n in s["n"]})
        if len(ns) > 4:
            ns = [ns[i * (len(ns) - 1) // 3] for i in range(4)]
        rows = []
        for s in data["series"]:
            cells = []
            for n in ns:
                cells.append(fmt.num(s["gbps"][s["n"].index(n)], 1) if n in s["n"] else fmt.DASH)
            rows.append([s["label"]] + cells)
        parts.append(f"**{panel}**, {data['type']}, GB/s of input read:\n\n" +
                     fmt.markdown_table(["series"] + [f"n = {fmt.n_label(n)}" for n in ns], rows))
    return "\n\n".join(parts)
