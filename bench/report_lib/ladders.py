"""The CUDA kernel ladders in the lecture's form: per rung the time, GB/s of input read, % of the
copy roof, the step speedup (previous rung's time / this one's) and the cumulative speedup
(first rung's time / this one's); the anchors (CUB, Thrust, parprim's default) below with
their speedup over the first rung, and the copy roof.

Rungs are the competitors named cuda_k<N>_<name>, ordered by N, whatever N the input holds;
a primitive with GPU results but no rungs still gets its table of GPU competitors (the
per-segment calls: parprim's rows and the CUB anchors, each with its % of the copy roof).
Device-time variants (`_device`) get a second table when present.
"""

from __future__ import annotations

from . import fmt
from .bandwidth import PRIMITIVES, input_share, percent_of_roof, roof_for, roofs

# The primitives with a GPU table: those of the bandwidth plots, then the per-segment calls
# (bench/cuda/segments_bench.hpp; their traffic counters give the % of the copy roof).
GPU_PRIMITIVES = PRIMITIVES + ("segmented_reduce", "reduce_by_key")


def _rows(entries: list, roof) -> tuple:
    """(rung rows, anchor rows) from the entries of one ladder at one size."""
    rungs = sorted((r for r in entries if fmt.rung_of(r.competitor)),
                   key=lambda r: fmt.rung_of(r.competitor)[0])
    rung_rows, first, previous = [], None, None
    for r in rungs:
        number, name = fmt.rung_of(r.competitor)
        first = first or r.seconds
        rung_rows.append(dict(rung=f"k{number}", competitor=r.competitor, name=name,
                              us=r.seconds * 1e6, gbps=r.rate / 1e9,
                              roof_pct=percent_of_roof(r, roof),
                              step=previous / r.seconds if previous else None,
                              cumulative=first / r.seconds))
        previous = r.seconds
    best = min((r.seconds for r in rungs), default=None)
    anchor_rows = []
    for r in sorted((r for r in entries if not fmt.rung_of(r.competitor)),
                    key=lambda r: r.seconds):
        anchor_rows.append(dict(competitor=r.competitor, label=fmt.label(r.competitor),
                                us=r.seconds * 1e6, gbps=r.rate / 1e9,
                                roof_pct=percent_of_roof(r, roof),
                                vs_first=first / r.seconds if first else None,
                                best_rung_vs=r.seconds / best if best else None))
    return rung_rows, anchor_rows


def collect(results: list, preferred_n: int) -> list:
    """One dict per (primitive, type, segments) with GPU results: the ladder at preferred_n
    (or the largest size measured), synchronous and, when measured, device time."""
    gpu = [r for r in results if not r.group and r.is_gpu and r.primitive in GPU_PRIMITIVES
           and r.n > 0]
    keys = sorted({(r.panel, r.type, r.segment_rank, r.segments_label) for r in gpu},
                  key=lambda k: (GPU_PRIMITIVES.index(k[0].split(" ")[0]), k[0],
                                 ("int32", "float32", "float64").index(k[1])
                                 if k[1] in ("int32", "float32", "float64") else 9, k[2], k[3]))
    out = []
    for panel, type_, _, segments in keys:
        mine = [r for r in gpu if (r.panel, r.type, r.segments_label) == (panel, type_, segments)]
        ns = {r.n for r in mine}
        n = preferred_n if preferred_n in ns else max(ns)
        ladder = dict(panel=panel, primitive=mine[0].primitive, type=type_, segments=segments,
                      n=n)
        for suffix, device_time in (("", False), ("_device", True)):
            entries = [r for r in mine if r.n == n and r.device_time == device_time]
            if not entries:
                continue
            share = input_share(mine, ladder["primitive"], type_)
            roof = roof_for(roofs(results, type_, device_time), ladder["primitive"], type_,
                            "gpu", n, share)
            rungs, anchors = _rows(entries, roof)
            ladder["rungs" + suffix] = rungs
            ladder["anchors" + suffix] = anchors
            if roof:
                ladder["roof" + suffix] = dict(us=roof[2].seconds * 1e6,
                                               traffic_gbps=roof[1] / 1e9,
                                               input_gbps=roof[0] / 1e9)
        out.append(ladder)
    return out


def markdown(ladder: dict, suffix: str = "") -> str:
    """The table of one ladder; suffix "_device" for device time."""
    rows = []
    for r in ladder.get("rungs" + suffix, []):
        rows.append([f"**{r['rung']}**", f"`{r['name']}`", fmt.num(r["us"], 1),
                     fmt.num(r["gbps"], 0), fmt.num(r["roof_pct"], 1),
                     fmt.num(r["step"], 2, "x"), fmt.num(r["cumulative"], 2, "x")])
    for a in ladder.get("anchors" + suffix, []):
        rows.append(["", a["label"], fmt.num(a["us"], 1), fmt.num(a["gbps"], 0),
                     fmt.num(a["roof_pct"], 1), fmt.DASH, fmt.num(a["vs_first"], 2, "x")])
    roof = ladder.get("roof" + suffix)
    if roof:
        rows.append(["", f"copy roof: D2D copy of the n elements, {roof['traffic_gbps']:,.0f} GB/s"
                     " read + write (= 100 %)", fmt.num(roof["us"], 1),
                     fmt.num(roof["input_gbps"], 0) + " (as input)", "ref.", fmt.DASH, fmt.DASH])
    headers = ["rung", "kernel / anchor", "time (us)", "GB/s (input read)", "% of copy roof",
               "step speedup", "cumulative (vs first rung)"]
    return fmt.markdown_table(headers, rows, "llrrrrr")


def title(ladder: dict, suffix: str = "") -> str:
    what = "device time" if suffix else "synchronous call"
    segs = f", {ladder['segments']}" if ladder["segments"] else ""
    return (f"{ladder['panel']} ladder, {ladder['type']}{segs}, n = {fmt.n_label(ladder['n'])}"
            f" ({what})")
