"""The lecture's cost model of a cost-optimal reduce or scan on p workers,

    T_P(n, p) = T_1(n) / p + lambda(p),   T_1(n) = t_c n,

n/p elements processed locally at t_c seconds each, then a combine over the p workers. The
lecture's combine is a tree: lambda(p) = t_log * log2 p. For MPI, lambda(p) is the measured
latency of one collective of a scalar at p ranks when the input has it.

t_c depends on n on a real machine (an array in L2 is read several times faster than one in
DRAM), so the local part uses the measured one-worker time T_1(n) at each size (t_c(n) =
T_1(n) / n) instead of one constant; what is fitted is the combine:

  t_log, by relative least squares (each point weighs the same, whatever its size) on what
  the local part leaves: T - T_1(n)/p = t_log log2 p over the points with p > 1, so
  t_log = sum(a r / T^2) / sum(a^2 / T^2) with a = log2 p, r = T - T_1(n)/p; clamped at 0.

Derived: S = T_1 / T_P, E = S/p, cost C = p T_P; the model's efficiency is
E = 1 / (1 + p lambda(p) / T_1(n)), so holding E needs T_1(n) = E/(1-E) p lambda(p): the
isoefficiency function, n read off the measured T_1(n) curve (with a constant t_c it is
n = E/(1-E) p lambda(p) / t_c, growing as p log p).
"""

from __future__ import annotations

import math


def fit_per_element(points: list) -> float:
    """t_c from [(n, T_1(n))], through the origin (relative least squares)."""
    num = sum(n / t for n, t in points if t > 0)
    den = sum((n / t) ** 2 for n, t in points if t > 0)
    return num / den if den > 0 else 0.0


def fit_log_term(points: list) -> float:
    """t_log from [(p, T, local)] with local = the model's local part T_1(n)/p."""
    num = den = 0.0
    for p, t, local in points:
        if p <= 1 or t <= 0:
            continue
        a = math.log2(p)
        num += a * (t - local) / t ** 2
        den += (a / t) ** 2
    return max(0.0, num / den) if den > 0 else 0.0


def relative_rms(pairs: list) -> float:
    """sqrt(mean(((model - T) / T)^2)) over [(model, T)]."""
    errs = [((m - t) / t) ** 2 for m, t in pairs if t > 0]
    return math.sqrt(sum(errs) / len(errs)) if errs else 0.0


def size_for_time(one_worker: list, target: float) -> float:
    """The n with T_1(n) = target on the measured curve [(n, T_1(n))] (by n), interpolated
    in log n - log T; beyond its ends at the end's per-element time."""
    if target <= 0 or not one_worker:
        return 0.0
    (n0, t0), (n1, t1) = one_worker[0], one_worker[-1]
    if target <= t0:
        return n0 * target / t0
    if target >= t1:
        return n1 * target / t1
    for (na, ta), (nb, tb) in zip(one_worker, one_worker[1:]):
        if ta <= target <= tb and tb > ta:
            f = (math.log(target) - math.log(ta)) / (math.log(tb) - math.log(ta))
            return math.exp(math.log(na) + f * (math.log(nb) - math.log(na)))
    return 0.0   # T_1 not increasing with n: no single answer


def isoefficiency_model(e: float, p: int, combine: float, one_worker: list) -> float:
    """The n at which the model's efficiency is e on p workers (combine = lambda(p))."""
    if p <= 1:
        return 0.0
    return size_for_time(one_worker, e / (1.0 - e) * p * combine)


def isoefficiency_measured(curve: list, e: float) -> tuple:
    """The smallest n at which the measured efficiency reaches e: curve = [(n, E)] by n.
    Returns (n, how): how is "" (interpolated in log2 n between two sizes), "<=" (reached at
    the smallest size already) or (None, ">") when never reached."""
    previous = None
    for n, eff in curve:
        if eff >= e:
            if previous is None:
                return n, "<="
            n0, e0 = previous
            f = (e - e0) / (eff - e0) if eff != e0 else 1.0
            return 2 ** (math.log2(n0) + f * (math.log2(n) - math.log2(n0))), ""
        previous = (n, eff)
    return None, ">"
