"""The report's figures (matplotlib, Agg backend: no display needed). Conventions: measured
data solid with markers; model curves dashed in the same colour; roofs dashed black / grey;
ideal speedup dotted; sizes on log2 axes labelled 2^k; units in every axis label.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator, NullFormatter,  # noqa: E402
                               NullLocator)

from . import fmt  # noqa: E402

DPI = 100
CPU_COLOURS = {"seq": "tab:gray", "omp": "tab:blue", "omp_clause": "tab:cyan",
               "omp_clause_simd": "teal", "std_seq": "tab:olive", "std_par": "tab:green",
               "two_pass": "tab:purple"}
GPU_ANCHOR_COLOURS = ["tab:red", "darkred", "tab:orange", "tab:brown", "tab:pink", "gold"]
MPI_COLOURS = {"parprim": "tab:blue", "parprim_user_op": "tab:cyan",
               "parprim_derived": "teal", "raw": "tab:orange", "raw_bound": "tab:orange",
               "raw_textbook": "tab:red", "raw_user_op": "tab:brown", "raw_derived": "tab:pink",
               "raw_reduce_then_scan": "tab:green"}
# For competitors without a colour of their own: none of MPI_COLOURS' (matplotlib's default cycle
# would reuse parprim's blue).
MPI_SPARE_COLOURS = ["tab:purple", "tab:olive", "tab:gray", "gold", "navy"]


def mpi_colour(competitor: str, others: list) -> str:
    """The colour of an MPI competitor: its own, else a spare one by its place among `others`."""
    if competitor in MPI_COLOURS:
        return MPI_COLOURS[competitor]
    unknown = [c for c in others if c not in MPI_COLOURS]
    return MPI_SPARE_COLOURS[unknown.index(competitor) % len(MPI_SPARE_COLOURS)]


def _pow2_label(v, _pos=None) -> str:
    if v <= 0:
        return ""
    k = math.log2(v)
    return f"$2^{{{k:.0f}}}$" if abs(k - round(k)) < 1e-9 else f"{v:g}"


def _plain_label(v, _pos=None) -> str:
    return f"{v:g}"


def size_axis(ax, which: str, values: list):
    """A log2 axis with a tick per power of two in range (every other one when crowded)."""
    lo, hi = min(values), max(values)
    k0, k1 = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    step = 1 if k1 - k0 <= 10 else 2
    ticks = [2.0 ** k for k in range(k0, k1 + 1, step)]
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=2)
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(_pow2_label))
    axis.set_minor_locator(NullLocator())


def count_axis(ax, values: list):
    """x axis of threads / ranks: log2 scale, a tick at every value measured."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(values))))
    ax.xaxis.set_major_formatter(FuncFormatter(_plain_label))
    ax.xaxis.set_minor_locator(NullLocator())


def speedup_axis(ax, values: list):
    """y axis of speedups: log2 scale (ideal S = p is then a straight line), plain labels."""
    ax.set_yscale("log", base=2)
    top = max(values)
    ticks = [2.0 ** k for k in range(-3, 12) if 2.0 ** k <= top * 1.5]
    lo = min(v for v in values if v > 0)
    ax.yaxis.set_major_locator(FixedLocator([t for t in ticks if t >= lo / 1.5]))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain_label))
    ax.yaxis.set_minor_locator(NullLocator())


def log10_axis(ax, which: str = "y"):
    """A log10 axis labelled 1, 2, 5, 10, 20, ... in plain numbers."""
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(_plain_label))
    axis.set_minor_formatter(NullFormatter())


def competitor_style(competitor: str, where: str, last_rung: int, anchor_index: dict) -> dict:
    """Colour and marker naming the backend: CPU blues/greens, CUDA rungs light (k1) to dark
    (the last rung), GPU anchors reds."""
    rung = fmt.rung_of(competitor)
    if rung:
        colour = plt.cm.viridis(0.9 - 0.85 * (rung[0] - 1) / max(1, last_rung - 1))
        return dict(color=colour, marker="o")
    if where == "gpu":
        i = anchor_index.setdefault(competitor, len(anchor_index))
        return dict(color=GPU_ANCHOR_COLOURS[i % len(GPU_ANCHOR_COLOURS)], marker="^")
    return dict(color=CPU_COLOURS.get(competitor, "tab:olive"), marker="s")


def _save(fig, path: str):
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# --- bandwidth vs n -----------------------------------------------------------------------------

def _is_parprim(competitor: str) -> bool:
    return competitor in ("seq", "omp") or competitor.startswith("cuda")


def _bandwidth_bars(ax, panel: str, data: dict):
    """One size measured (scripts/compare): a bar per competitor (anchors hatched), fastest at
    the top, parprim's bars with their ratio to the fastest anchor, the memory roofs as
    vertical lines, so every competitor reads at that size."""
    rungs = max([fmt.rung_of(s["competitor"])[0] for s in data["series"]
                 if fmt.rung_of(s["competitor"])] + [1])
    anchors = {}
    bars = [s for s in data["series"] if s["where"] != "roof"]
    bars.sort(key=lambda s: s["gbps"][0])
    # parprim's bars name their ratio to the fastest anchor (a competitor that is not parprim)
    others = [s for s in bars if not _is_parprim(s["competitor"])]
    best = max(others, key=lambda s: s["gbps"][0]) if others else None
    for i, s in enumerate(bars):
        style = competitor_style(s["competitor"], s["where"], rungs, anchors)
        ax.barh(i, s["gbps"][0], color=style["color"], height=0.7,
                hatch=None if _is_parprim(s["competitor"]) else "//", edgecolor="white")
        text = f" {s['gbps'][0]:.0f}"
        if best is not None and _is_parprim(s["competitor"]) and best["gbps"][0] > 0:
            text += f"  ({s['gbps'][0] / best['gbps'][0]:.2f}x {best['label']})"
        ax.text(s["gbps"][0], i, text, va="center", fontsize=8)
    ax.set_yticks(range(len(bars)), [s["label"] for s in bars], fontsize=8.5)
    for s in data["series"]:
        if s["where"] == "roof":
            gpu = s["competitor"].startswith("cuda")
            ax.axvline(s["gbps"][0], color="dimgray" if gpu else "black", linewidth=2,
                       linestyle=(0, (6, 3)) if gpu else "--", label=s["label"])
    n = data["series"][0]["n"][0] if data["series"] else 0
    widest = max([s["gbps"][0] for s in data["series"]] + [1.0])
    ax.set_xlim(0, widest * 1.7)  # room for the labels
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.set_xlabel("GB/s of input read")
    ax.set_title(f"{panel}: bandwidth at n = {fmt.n_label(n)} ({data['type']}; CPU at the most "
                 f"threads run)")
    if any(s["where"] == "roof" for s in data["series"]):
        ax.legend(loc="upper right", fontsize=8.5)


def bandwidth(panels: dict, path: str):
    sizes = {n for data in panels.values() for s in data["series"] for n in s["n"]}
    if len(sizes) == 1:
        rows = sum(max(3, len(data["series"])) for data in panels.values())
        fig, axes = plt.subplots(len(panels), 1, figsize=(13, 0.32 * rows + 1.6 * len(panels)),
                                 squeeze=False, constrained_layout=True)
        for ax, (panel, data) in zip(axes[:, 0], panels.items()):
            _bandwidth_bars(ax, panel, data)
        _save(fig, path)
        return
    fig, axes = plt.subplots(len(panels), 1, figsize=(13, 5.0 * len(panels)), squeeze=False,
                             constrained_layout=True)
    for ax, (panel, data) in zip(axes[:, 0], panels.items()):
        rungs = max([fmt.rung_of(s["competitor"])[0] for s in data["series"]
                     if fmt.rung_of(s["competitor"])] + [1])
        anchors, all_n = {}, []
        for s in data["series"]:
            all_n += s["n"]
            if s["where"] == "roof":
                gpu = s["competitor"].startswith("cuda")
                style = dict(color="dimgray" if gpu else "black", linewidth=2,
                             linestyle=(0, (6, 3)) if gpu else "--")
                if len(s["n"]) == 1:   # one size measured: a level across the plot
                    ax.axhline(s["gbps"][0], label=f"{s['label']} (at n = "
                               f"{fmt.n_label(s['n'][0])})", **style)
                else:
                    ax.plot(s["n"], s["gbps"], label=s["label"], **style)
                continue
            style = competitor_style(s["competitor"], s["where"], rungs, anchors)
            ax.plot(s["n"], s["gbps"], linewidth=1.6, markersize=5, label=s["label"], **style)
        size_axis(ax, "x", all_n)
        log10_axis(ax, "y")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel("n (elements, log scale)")
        ax.set_ylabel("GB/s of input read (log scale)")
        ax.set_title(f"{panel}: bandwidth vs n ({data['type']}; CPU at the most threads run)")
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5, frameon=False)
    _save(fig, path)


# --- CUDA ladders -------------------------------------------------------------------------------

def ladders(ladder_list: list, path: str):
    heights = [len(lad.get("rungs", [])) + len(lad.get("anchors", [])) for lad in ladder_list]
    fig, axes = plt.subplots(len(ladder_list), 1, squeeze=False, constrained_layout=True,
                             figsize=(14, 1.6 + 0.42 * sum(h + 2 for h in heights)),
                             gridspec_kw=dict(height_ratios=[h + 2 for h in heights]))
    for ax, lad in zip(axes[:, 0], ladder_list):
        rows = [(f"k{r['rung'][1:]} {r['name'].replace('_', ' ')}", r, "rung")
                for r in lad.get("rungs", [])]
        rows += [(a["label"], a, "anchor") for a in lad.get("anchors", [])]
        device = {r["competitor"]: r for r in lad.get("rungs_device", []) +
                  lad.get("anchors_device", [])}
        y = list(range(len(rows)))[::-1]
        n_rungs = max([int(r["rung"][1:]) for r in lad.get("rungs", [])] + [1])
        anchor_colours = {}
        bar = 0.38 if device else 0.7
        for yi, (name, r, kind) in zip(y, rows):
            style = competitor_style(r["competitor"], "gpu", n_rungs, anchor_colours)
            ax.barh(yi + (bar / 2 if device else 0), r["gbps"], height=bar, color=style["color"])
            note = f"{r['gbps']:,.0f} GB/s"
            if r.get("roof_pct") is not None:
                note += f", {r['roof_pct']:.0f} % of roof"
            if kind == "rung" and r.get("step"):
                note += f", step {r['step']:.2f}x"
            ax.text(r["gbps"] * 1.01, yi + (bar / 2 if device else 0), note, va="center",
                    fontsize=8, bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
            d = device.get(r["competitor"])
            if d:
                ax.barh(yi - bar / 2, d["gbps"], height=bar, color=style["color"], alpha=0.45,
                        hatch="//")
        handles = [Patch(facecolor="gray", label="synchronous call (result on the host)")]
        if device:
            handles.append(Patch(facecolor="gray", alpha=0.45, hatch="//",
                                 label="device time (kernels only)"))
        roof = lad.get("roof")
        if roof:
            handles.append(ax.axvline(roof["input_gbps"], color="black", linestyle="--",
                                      linewidth=1.5, label=f"copy roof "
                                      f"({roof['input_gbps']:,.0f} GB/s as input)"))
        ax.set_yticks(y)
        ax.set_yticklabels([name for name, _, _ in rows], fontsize=9)
        top = max([r["gbps"] for _, r, _ in rows] + [roof["input_gbps"] if roof else 0])
        ax.set_xlim(0, top * 1.4)
        ax.set_xlabel("GB/s of input read")
        ax.grid(True, axis="x", alpha=0.3)
        segs = f", {lad['segments']}" if lad["segments"] else ""
        ax.set_title(f"CUDA {lad['panel']} ladder, {lad['type']}{segs}, "
                     f"n = {fmt.n_label(lad['n'])}: rungs (light to dark) and anchors (red)")
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5,
                  frameon=False)
    _save(fig, path)


# --- OpenMP scaling -----------------------------------------------------------------------------

SIZE_COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"]
LEVEL_COLOURS = ["tab:green", "tab:blue", "tab:red", "tab:purple"]


def _model_handle(ax):
    ax.plot([], [], "--", color="black", linewidth=1, label="model (dashed)")


def openmp(data: dict, path: str):
    fig, axes = plt.subplots(len(data), 4, figsize=(22, 5.3 * len(data)), squeeze=False,
                             constrained_layout=True)
    first = next(iter(data.values()))
    fig.suptitle(f"OpenMP scaling of {first['label']}, {first['type']}: measured (solid) "
                 "against the model T_P = t_c n/p + t_log log2 p (dashed)", fontsize=13)
    for row, (primitive, a) in zip(axes, data.items()):
        colours = dict(zip(a["plot_sizes"], SIZE_COLOURS))
        curves = [c for c in a["curves"] if c["n"] in a["plot_sizes"]]
        ax_s, ax_e, ax_c, ax_i = row
        for c in curves:
            colour, name = colours[c["n"]], f"n = {fmt.n_label(c['n'])}"
            ax_s.plot(c["p"], c["speedup"], "o-", color=colour, label=name)
            ax_s.plot(c["model_p"], c["model_speedup"], "--", color=colour, linewidth=1)
            ax_e.plot(c["p"], c["efficiency"], "o-", color=colour, label=name)
            ax_e.plot(c["model_p"], c["model_efficiency"], "--", color=colour, linewidth=1)
            ax_c.plot(c["p"], [t * 1e3 for t in c["cost"]], "o-", color=colour, label=name)
            ax_c.plot(c["model_p"], [t * 1e3 for t in c["model_cost"]], "--", color=colour,
                      linewidth=1)
        p_all = a["threads"]
        ax_s.plot([1, max(p_all)], [1, max(p_all)], ":", color="black", label="ideal S = p")
        big = curves[-1]
        if big.get("roof_speedup"):
            ax_s.axhline(big["roof_speedup"], color="gray", linestyle="-.", linewidth=1.2,
                         label=f"memory roof bound, n = {fmt.n_label(big['n'])}")
        _model_handle(ax_s)
        ax_e.axhline(1.0, color="black", linestyle=":", linewidth=1)
        iso_n = []
        for level, colour in zip(a["isoefficiency"], LEVEL_COLOURS):
            exact = [(p, n) for p, n, how in zip(level["p"], level["measured"], level["how"])
                     if n and not how]
            bounds = [(p, n) for p, n, how in zip(level["p"], level["measured"], level["how"])
                      if n and how == "<="]
            ax_i.plot([], [], "-", color=colour, linewidth=4,
                      label=f"E = {level['efficiency']:.2f}")
            if exact:
                ax_i.plot([p for p, _ in exact], [n for _, n in exact], "o-", color=colour)
            if bounds:
                ax_i.plot([p for p, _ in bounds], [n for _, n in bounds], "v", color=colour,
                          markerfacecolor="none", markersize=8)
            ax_i.plot(level["model_p"], level["model"], "--", color=colour, linewidth=1.2)
            iso_n += [n for _, n in exact + bounds] + [n for n in level["model"] if n > 0]
        segs = f" ({a['segments']})" if a["segments"] else ""
        for ax in row:
            count_axis(ax, p_all)
            ax.grid(True, alpha=0.3)
            ax.set_xlabel("p (OpenMP threads, log scale)")
        speedup_axis(ax_s, [v for c in curves for v in c["speedup"] + c["model_speedup"]] +
                     [max(p_all), big.get("roof_speedup") or 1.0])
        ax_s.set_ylabel("speedup S(p) = T(n,1) / T(n,p) (log scale)")
        ax_s.set_title(f"{primitive}{segs}: speedup")
        ax_e.set_ylabel("efficiency E(p) = S(p) / p")
        ax_e.set_ylim(0, max(1.1, max(max(c["efficiency"]) for c in curves) * 1.05))
        ax_e.set_title(f"{primitive}{segs}: efficiency")
        log10_axis(ax_c, "y")
        ax_c.set_ylabel("cost p * T_P (ms, log scale)")
        ax_c.set_title(f"{primitive}{segs}: cost")
        if iso_n:
            size_axis(ax_i, "y", iso_n)
        else:
            ax_i.text(0.5, 0.5, "needs a sweep over n\n(and a fitted t_log > 0)", ha="center",
                      va="center", transform=ax_i.transAxes)
        ax_i.set_ylabel("n needed to hold E (elements, log scale)")
        ax_i.set_title(f"{primitive}{segs}: isoefficiency")
        ax_i.plot([], [], "o-", color="gray", label="measured (interpolated in log n)")
        ax_i.plot([], [], "v", color="gray", markerfacecolor="none",
                  label="reached at the smallest n run (upper bound)")
        _model_handle(ax_i)
        ax_s.legend(fontsize=8, loc="upper left")
        ax_i.legend(fontsize=8, loc="lower right")
    _save(fig, path)


# --- MPI scaling --------------------------------------------------------------------------------

def mpi(data: dict, path: str):
    prims = [p for p in ("reduce", "scan", "segmented_scan")
             if p in data["strong"] or p in data["weak"]]
    cols = len(prims) + 1
    fig, axes = plt.subplots(2, cols, figsize=(5.6 * cols, 10.5), squeeze=False,
                             constrained_layout=True)
    ranks = sorted({p for s in ("strong", "weak") for d in data[s].values()
                    for a in d["competitors"] for p in a["p"]} |
                   {p for s in data["latency"] for p in s["p"]}) or [1]
    for j, primitive in enumerate(prims):
        ax = axes[0, j]
        d = data["strong"].get(primitive)
        if d:
            for a in d["competitors"]:
                colour = mpi_colour(a["competitor"], [c["competitor"] for c in d["competitors"]])
                line, = ax.plot(a["p"], a["speedup"], "o-", color=colour, label=a["label"])
                ax.plot(a["p"], a["model_speedup"], "--", color=line.get_color(), linewidth=1)
            ax.plot([1, max(ranks)], [1, max(ranks)], ":", color="black", label="ideal S = p")
            _model_handle(ax)
            speedup_axis(ax, [v for a in d["competitors"] for v in a["speedup"] +
                              a["model_speedup"]] + [max(ranks)])
            n = d["competitors"][0]["n"][0]
            ax.set_title(f"MPI {primitive}: strong scaling, n = {fmt.n_label(n)}")
        ax.set_ylabel("speedup S(p) = T(1) / T(p) (log scale)")
        ax = axes[1, j]
        d = data["weak"].get(primitive)
        if d:
            for a in d["competitors"]:
                colour = mpi_colour(a["competitor"], [c["competitor"] for c in d["competitors"]])
                line, = ax.plot(a["p"], a["ms"], "o-", color=colour, label=a["label"])
                ax.plot(a["p"], a["model_ms"], "--", color=line.get_color(), linewidth=1)
            _model_handle(ax)
            a0 = d["competitors"][0]
            ax.set_title(f"MPI {primitive}: weak scaling, n/p = "
                         f"{fmt.n_label(a0['n'][0] // a0['p'][0])}")
            ax.set_ylim(0, max(max(a["ms"] + a["model_ms"]) for a in d["competitors"]) * 1.1)
        ax.set_ylabel("time per call (ms, slowest rank)")
    ax = axes[0, -1]
    for s in data["latency"]:
        ax.plot(s["p"], s["us"], "o-", label=f"{s['collective']} (measured)")
    if data["latency"]:
        ref = data["latency"][0]
        top = [(p, u) for p, u in zip(ref["p"], ref["us"]) if p > 1]
        if top:
            p0, u0 = top[-1]
            ax.plot(ranks, [u0 * math.log2(p) / math.log2(p0) for p in ranks], ":",
                    color="black", label="proportional to log2 p")
        ax.set_title("collective latency, one scalar: lambda(p)")
    else:
        ax.text(0.5, 0.5, "no mpi/latency/... benchmark in the input:\nlambda(p) fitted "
                "as t_log log2 p", ha="center", va="center", transform=ax.transAxes)
        ax.set_title("collective latency")
    ax.set_ylabel("latency (us)")
    ax = axes[1, -1]
    for primitive in prims:
        d = data["weak"].get(primitive)
        if not d:
            continue
        a = d["competitors"][0]
        line, = ax.plot(a["p"], a["efficiency"], "o-", label=f"{primitive}, {a['label']}")
        ax.plot(a["p"], a["model_efficiency"], "--", color=line.get_color(), linewidth=1)
    ax.axhline(1.0, color="black", linestyle=":", linewidth=1)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("weak efficiency T(1) / T(p)")
    ax.set_title("weak-scaling efficiency (model dashed)")
    for ax in axes.flat:
        count_axis(ax, ranks)
        ax.set_xlim(ranks[0] / 1.15, ranks[-1] * 1.15)
        ax.set_xlabel("p (MPI ranks, log scale)")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="best")
    _save(fig, path)
