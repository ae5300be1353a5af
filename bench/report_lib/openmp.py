"""OpenMP scaling from a thread sweep (threads 1..max x sizes): speedup S(p), efficiency E(p),
cost p*T_P and isoefficiency, measured and from the fitted model (see model.py), for parprim's
`omp` competitor of each primitive (segmented scan: segments closest to 1024 long).

S and E are relative to the same code on one thread, T_1(n) = T(n, 1), which is also the
model's local part. The memory roof bound on the speedup, where the input has the roof at that
size, is T(n, 1) / (the bytes the call moves / the roof's traffic rate).
"""

from __future__ import annotations

import math

from . import fmt, model
from .bandwidth import PRIMITIVES, roof_for, roof_share, roofs

EFFICIENCY_LEVELS = (0.25, 0.5, 0.75)
MIN_N = 1 << 16


def _grid(records: list) -> dict:
    """{n: {p: seconds}} keeping sizes measured on one thread and on more."""
    grid = {}
    for r in records:
        grid.setdefault(r.n, {})[r.threads] = r.seconds
    return {n: row for n, row in sorted(grid.items()) if 1 in row and len(row) > 1}


def _spread(values: list, count: int) -> list:
    if len(values) <= count:
        return list(values)
    return [values[i * (len(values) - 1) // (count - 1)] for i in range(count)]


def _curves(grid: dict, one: dict, t_log: float, roof_speedup: dict) -> list:
    """Measured and modelled S, E, cost per size; the model on every p in 1..max."""
    p_max = max(p for row in grid.values() for p in row)
    model_p = list(range(1, p_max + 1))
    curves = []
    for n, row in grid.items():
        ps = sorted(row)
        ts = [row[p] for p in ps]
        modelled = [one[n] / p + t_log * math.log2(p) for p in model_p]
        curve = dict(n=n, p=ps, seconds=ts,
                     speedup=[one[n] / t for t in ts],
                     efficiency=[one[n] / t / p for p, t in zip(ps, ts)],
                     cost=[p * t for p, t in zip(ps, ts)],
                     model_p=model_p, model_seconds=modelled,
                     model_speedup=[one[n] / t for t in modelled],
                     model_efficiency=[one[n] / t / p for p, t in zip(model_p, modelled)],
                     model_cost=[p * t for p, t in zip(model_p, modelled)])
        if n in roof_speedup:
            curve["roof_speedup"] = roof_speedup[n]
        curves.append(curve)
    return curves


def _isoefficiency(grid: dict, one: dict, t_log: float) -> list:
    """Per efficiency level: the n that holds it on each p, measured and modelled."""
    ps = sorted({p for row in grid.values() for p in row if p > 1})
    model_p = list(range(2, max(ps) + 1))
    levels = []
    for e in EFFICIENCY_LEVELS:
        measured = [model.isoefficiency_measured(
            [(n, one[n] / row[p] / p) for n, row in grid.items() if p in row], e) for p in ps]
        levels.append(dict(
            efficiency=e, p=ps, measured=[m[0] for m in measured], how=[m[1] for m in measured],
            model_p=model_p, model=[model.isoefficiency_model(e, p, t_log * math.log2(p),
                                                              list(one.items()))
                                    for p in model_p]))
    return levels


def collect(results: list, type_: str, competitor: str = "omp") -> dict:
    """{primitive: analysis} for every primitive with a thread sweep of `competitor`."""
    roof_table = roofs(results, type_)
    out = {}
    for primitive in PRIMITIVES:
        records = [r for r in results if not r.group and r.panel == primitive
                   and r.competitor == competitor and r.type == type_ and r.n >= MIN_N]
        if not records:
            continue
        preferred = min(r.segment_rank for r in records)
        records = [r for r in records if r.segment_rank == preferred]
        grid = _grid(records)
        if not grid:
            continue
        one = {n: row[1] for n, row in grid.items()}
        points = [(n, p, t) for n, row in grid.items() for p, t in row.items() if p > 1]
        t_log = model.fit_log_term([(p, t, one[n] / p) for n, p, t in points])
        roof_speedup = {}
        for r in records:
            roof = roof_for(roof_table, primitive, type_, "cpu", r.n)
            if r.threads == 1 and r.n in grid and roof:
                moved = (r.traffic or r.rate / roof_share(primitive, type_)) * r.seconds
                roof_speedup[r.n] = r.seconds / (moved / roof[1])
        out[primitive] = dict(
            competitor=competitor, label=fmt.label(competitor), type=type_,
            segments=records[0].segments_label,
            t_c={str(n): t / n for n, t in one.items()}, t_log=t_log,
            rel_rms=model.relative_rms([(one[n] / p + t_log * math.log2(p), t)
                                        for n, p, t in points]),
            points=len(points), sizes=list(grid), plot_sizes=_spread(list(grid), 5),
            threads=sorted({p for row in grid.values() for p in row}),
            curves=_curves(grid, one, t_log, roof_speedup),
            isoefficiency=_isoefficiency(grid, one, t_log))
    return out


def markdown(data: dict) -> str:
    if not data:
        return ""
    fit_rows = []
    for primitive, a in data.items():
        t_c = list(a["t_c"].values())
        fit_rows.append([primitive + (f" ({a['segments']})" if a["segments"] else ""),
                         a["label"], f"{t_c[0] * 1e9:.3f} .. {t_c[-1] * 1e9:.3f}",
                         fmt.num(a["t_log"] * 1e6, 2),
                         fmt.num(100 * a["rel_rms"], 0, " %"), str(a["points"]),
                         f"{fmt.n_label(a['sizes'][0])}..{fmt.n_label(a['sizes'][-1])}, "
                         f"p = {','.join(map(str, a['threads']))}"])
    headers = ["primitive", "competitor", "t_c = T_1(n)/n, smallest .. largest n (ns)",
               "t_log (us per log2 p)", "fit error (rel. RMS)", "points (p > 1)", "sweep"]
    parts = ["Model fit (`T_P = T_1(n)/p + t_log log2 p`):\n\n" +
             fmt.markdown_table(headers, fit_rows, "llrrrrl")]
    for primitive, a in data.items():
        ps = a["threads"]
        rows = []
        for c in a["curves"]:
            if c["n"] not in a["plot_sizes"]:
                continue
            cells = []
            for p in ps:
                if p not in c["p"]:
                    cells.append(fmt.DASH)
                    continue
                i = c["p"].index(p)
                m = c["model_efficiency"][c["model_p"].index(p)]
                cells.append(f"{c['speedup'][i]:.2f} · {100 * c['efficiency'][i]:.0f} % "
                             f"({100 * m:.0f} %)")
            bound = fmt.num(c.get("roof_speedup"), 1, "x")
            rows.append([fmt.n_label(c["n"]), fmt.sig(c["seconds"][0] * 1e3, 4)] + cells + [bound])
        parts.append(f"**{primitive}**: speedup S(p) · efficiency E(p) (model E) on p threads:\n\n"
                     + fmt.markdown_table(["n", "T(n,1) ms"] + [f"p = {p}" for p in ps] +
                                          ["roof bound on S"], rows))
        iso_rows = []
        for i, p in enumerate(a["isoefficiency"][0]["p"]):
            cells = []
            for level in a["isoefficiency"]:
                n, how = level["measured"][i], level["how"][i]
                measured = (f"> {fmt.n_label(a['sizes'][-1])}" if n is None else
                            f"{how} {fmt.n_approx(n)}".strip())
                model_n = level["model"][level["model_p"].index(p)]
                cells.append(f"{measured} / {fmt.n_approx(model_n)}")
            iso_rows.append([str(p)] + cells)
        parts.append(f"**{primitive}**: isoefficiency, the n needed to hold E on p threads "
                     "(measured, interpolated in log n / model):\n\n" + fmt.markdown_table(
                         ["p"] + [f"E = {level['efficiency']:.2f}" for level in a["isoefficiency"]],
                         iso_rows))
    return "\n\n".join(parts)
