"""MPI strong and weak scaling (parprim-bench-mpi, one JSON per rank count) against the cost
model T_P = t_c n/p + lambda(p) (model.py), lambda(p) the measured latency of one collective
of a scalar at p ranks: `mpi/latency/<collective>/...` (reduce: a name with "allreduce"; scan:
"exscan"; segmented scan: an exscan named with pair / flag / seg, else the scan's). Where the
input has no latency benchmark at some p, lambda(p) = t_log log2 p fitted to the data as for
OpenMP, and the report says so.

Strong scaling: n fixed, t_c = (T(1) - lambda(1)) / n of the same competitor;
S = T(1)/T(p), E = S/p. Weak scaling: n/p fixed, t_c = (T(1) - lambda(1)) / (n/p), the model
T(p) = t_c n/p + lambda(p); weak efficiency T(1)/T(p).
"""

from __future__ import annotations

import math

from . import fmt, model
from .bandwidth import PRIMITIVES, competitor_order

LATENCY_PRIMITIVES = ("latency", "collective")


def _latencies(results: list) -> dict:
    """{collective: {p: seconds}}."""
    out = {}
    for r in results:
        if r.group == "mpi" and r.primitive in LATENCY_PRIMITIVES:
            out.setdefault(r.competitor, {})[r.ranks] = r.seconds
    return out


def latency_name(primitive: str, names: list):
    def pick(test):
        return next((c for c in sorted(names) if test(c)), None)

    paired = ("pair", "flag", "seg")
    if primitive == "reduce":
        return pick(lambda c: "allreduce" in c) or pick(lambda c: "reduce" in c)
    plain = pick(lambda c: "exscan" in c and not any(w in c for w in paired))
    if primitive == "segmented_scan":
        return pick(lambda c: "exscan" in c and any(w in c for w in paired)) or plain
    return plain


def _analyse(by_p: dict, n_local_of, latency: dict) -> dict:
    """Model and measured curves of one competitor in one scaling; by_p = {p: Result}."""
    ps = sorted(by_p)
    ts = [by_p[p].seconds for p in ps]
    work = {p: n_local_of(by_p[p]) for p in ps}        # elements per rank
    lam1 = latency.get(1, 0.0)
    if 1 in by_p:
        t_c = max(0.0, by_p[1].seconds - lam1) / work[1]
    else:
        t_c = model.fit_per_element([(work[p] * p, by_p[p].seconds * p) for p in ps])
    t_log = model.fit_log_term([(p, by_p[p].seconds, t_c * work[p]) for p in ps])
    measured_all = all(p in latency for p in ps)

    def combine(p):
        return latency[p] if p in latency else t_log * math.log2(p)

    model_t = [t_c * work[p] + combine(p) for p in ps]
    return dict(p=ps, ms=[t * 1e3 for t in ts], n=[by_p[p].n for p in ps],
                model_ms=[t * 1e3 for t in model_t], t_c=t_c,
                t_log=None if measured_all else t_log,
                combine_us=[combine(p) * 1e6 for p in ps])


def collect(results: list, type_: str = "int32") -> dict:
    latencies = _latencies(results)
    out = dict(latency=[dict(collective=c, p=sorted(v), us=[v[p] * 1e6 for p in sorted(v)])
                        for c, v in sorted(latencies.items())], strong={}, weak={})
    rows = [r for r in results if r.group == "mpi" and r.primitive in PRIMITIVES
            and r.type == type_ and r.scaling]
    for scaling in ("strong", "weak"):
        for primitive in PRIMITIVES:
            mine = [r for r in rows if r.scaling == scaling and r.primitive == primitive]
            if not mine:
                continue
            name = latency_name(primitive, list(latencies))
            latency = latencies.get(name, {})
            competitors = []
            for c in sorted({r.competitor for r in mine}, key=_mpi_order):
                by_p = {r.ranks: r for r in mine if r.competitor == c}
                a = _analyse(by_p, lambda r: r.n / r.ranks, latency)
                base, base_model = a["ms"][0] * a["p"][0], a["model_ms"][0] * a["p"][0]
                if scaling == "strong":
                    # S = T(1)/T(p) (base: T(p0) p0 when p = 1 was not run)
                    a["speedup"] = [base / t for t in a["ms"]]
                    a["model_speedup"] = [base_model / t for t in a["model_ms"]]
                    a["efficiency"] = [s / p for s, p in zip(a["speedup"], a["p"])]
                    a["model_efficiency"] = [s / p for s, p in
                                             zip(a["model_speedup"], a["p"])]
                else:
                    a["efficiency"] = [a["ms"][0] / t for t in a["ms"]]
                    a["model_efficiency"] = [a["model_ms"][0] / t for t in a["model_ms"]]
                a.update(competitor=c, label=fmt.label(c))
                competitors.append(a)
            out[scaling][primitive] = dict(latency=name, competitors=competitors,
                                           segments=mine[0].segments_label)
    return out


def _mpi_order(c: str):
    order = ["parprim", "parprim_user_op", "parprim_derived", "raw", "raw_bound", "raw_textbook",
             "raw_user_op", "raw_derived"]
    return (order.index(c) if c in order else len(order), competitor_order(c))


def markdown(data: dict) -> str:
    parts = []
    if data["latency"]:
        ps = sorted({p for s in data["latency"] for p in s["p"]})
        rows = [[f"`{s['collective']}`"] + [fmt.num(s["us"][s["p"].index(p)], 2)
                                            if p in s["p"] else fmt.DASH for p in ps]
                for s in data["latency"]]
        parts.append("Collective latency, one scalar, us (the model's lambda(p)):\n\n" +
                     fmt.markdown_table(["collective"] + [f"p = {p}" for p in ps], rows))
    else:
        parts.append("No collective-latency benchmark (`mpi/latency/...`) in the input: "
                     "lambda(p) = t_log log2 p is fitted to each competitor's times instead.")
    for scaling in ("strong", "weak"):
        for primitive, d in data[scaling].items():
            ps = sorted({p for a in d["competitors"] for p in a["p"]})
            rows = []
            base_work = d["competitors"][0]["n"][0] // d["competitors"][0]["p"][0]
            for a in d["competitors"]:
                cells = []
                for p in ps:
                    if p not in a["p"]:
                        cells.append(fmt.DASH)
                        continue
                    i = a["p"].index(p)
                    cells.append(f"{fmt.sig(a['ms'][i], 3)} · {100 * a['efficiency'][i]:.0f} % "
                                 f"({fmt.sig(a['model_ms'][i], 3)})")
                t_log = (f"; lambda fitted: {a['t_log'] * 1e6:.2f} us x log2 p"
                         if a["t_log"] is not None else "")
                other_n = ""
                if a["n"][0] // a["p"][0] != base_work:
                    other_n = f", n = {fmt.n_label(a['n'][0])} at p = {a['p'][0]}"
                rows.append([f"{a['label']} (t_c {a['t_c'] * 1e9:.3f} ns{t_log}{other_n})"] +
                            cells)
            first = d["competitors"][0]
            n_text = (f"n = {fmt.n_label(first['n'][0])}" if scaling == "strong"
                      else f"n/p = {fmt.n_label(first['n'][0] // first['p'][0])}")
            lat = f"`{d['latency']}`" if d["latency"] else "fitted t_log log2 p"
            segs = f", {d['segments']}" if d["segments"] else ""
            what = "E = S/p" if scaling == "strong" else "weak efficiency T(1)/T(p)"
            parts.append(f"**{primitive}{segs}, {scaling} scaling** ({n_text}; lambda: {lat}): "
                         f"time in ms · {what} (model time):\n\n" +
                         fmt.markdown_table(["competitor"] + [f"p = {p}" for p in ps], rows))
    return "\n\n".join(parts)


def summary_table(data: dict) -> str:
    """Terminal lines: each competitor at the most ranks measured, strong and weak."""
    rows = []
    for primitive in PRIMITIVES:
        strong = data["strong"].get(primitive, {}).get("competitors", [])
        weak = {a["competitor"]: a for a in data["weak"].get(primitive, {}).get("competitors", [])}
        for a in strong:
            w = weak.get(a["competitor"])
            rows.append([primitive, a["label"], str(a["p"][-1]), fmt.sig(a["ms"][-1], 4),
                         f"{100 * a['efficiency'][-1]:.0f} %",
                         fmt.sig(w["ms"][-1], 4) if w else fmt.DASH,
                         f"{100 * w['efficiency'][-1]:.0f} %" if w else fmt.DASH])
    if not rows:
        return ""
    return fmt.text_table(["primitive", "competitor", "ranks", "strong ms", "E", "weak ms",
                           "weak E"], rows, "llrrrrr")
