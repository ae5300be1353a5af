"""Number formats, competitor labels and Markdown / terminal tables."""

from __future__ import annotations

import math
import re

DASH = "—"

# Readable names of the competitors parprim-bench knows; others keep their benchmark name.
LABELS = {
    "seq": "parprim seq",
    "omp": "parprim omp",
    "omp_grain1": "parprim omp, grain 1",
    "omp_clause": "OpenMP reduction clause",
    "omp_clause_simd": "OpenMP reduction clause (simd)",
    "std_seq": "std:: (seq)",
    "std_par": "std:: (par, TBB)",
    "two_pass": "two-pass scan (OpenMP)",
    "cub_device_reduce_sum": "CUB DeviceReduce::Sum",
    "cub_device_reduce": "CUB DeviceReduce::Reduce",
    "thrust_reduce": "Thrust reduce",
    "cub_inclusive_sum": "CUB DeviceScan::InclusiveSum",
    "cub_exclusive_sum": "CUB DeviceScan::ExclusiveSum",
    "cub_inclusive_scan": "CUB DeviceScan::InclusiveScan",
    "thrust_inclusive_scan": "Thrust inclusive_scan",
    "cub_inclusive_sum_by_key": "CUB DeviceScan::InclusiveSumByKey",
    "thrust_inclusive_scan_by_key": "Thrust inclusive_scan_by_key",
    "cub_segmented_reduce_sum": "CUB DeviceSegmentedReduce::Sum",
    "cub_reduce_by_key": "CUB DeviceReduce::ReduceByKey",
    "cuda_head_flags": "parprim cuda, head flags, out of k",
    "cuda_head_flags_room_n": "parprim cuda, head flags, out of n (one pass)",
    "cuda_room_n": "parprim cuda, out of n (one pass)",
    "cuda_inclusive_scan_by_key": "parprim cuda inclusive_scan_by_key",
    "copy": "CPU copy roof (parallel copy)",
    "read": "CPU read roof (parallel sum loop)",
    "cuda_copy_d2d": "GPU copy roof (D2D cudaMemcpy)",
    "cuda_nondeterministic": "parprim cuda k6 (default), deterministic(false)",
    "parprim": "parprim mpi",
    "parprim_user_op": "parprim mpi, user op",
    "parprim_derived": "parprim mpi, derived type",
    "raw": "raw MPI: local + MPI_Allreduce",
    "raw_user_op": "raw MPI, user op",
    "raw_derived": "raw MPI, derived type",
    "raw_bound": "raw MPI: local scan + MPI_Exscan (bound)",
    "raw_textbook": "raw MPI: textbook scan",
    "raw_reduce_then_scan": "raw MPI: local fold + MPI_Exscan + scan from the carry",
    "local_cuda": "parprim mpi, local cuda",
    "raw_cuda": "raw MPI + parprim cuda",
    "raw_cuda_bound": "raw MPI + parprim cuda scan (bound)",
}

RUNG = re.compile(r"^cuda_k(\d+)_(.+)$")


def rung_of(competitor: str):
    """(number, name) of a CUDA ladder rung `cuda_k<N>_<name>`, else None."""
    m = RUNG.match(competitor)
    return (int(m.group(1)), m.group(2)) if m else None


def label(competitor: str) -> str:
    """A legend / table label naming backend and rung."""
    rung = rung_of(competitor)
    if rung:
        return f"parprim cuda k{rung[0]} {rung[1].replace('_', ' ')}"
    if competitor in LABELS:
        return LABELS[competitor]
    if competitor.startswith("cuda"):
        return "parprim " + competitor.replace("_", " ")
    return competitor


def n_label(n: float) -> str:
    """2^k for powers of two, otherwise the number with thousands separators."""
    n = int(round(n))
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def n_approx(n: float) -> str:
    """A size that need not be a power of two: 320,000 (2^18.3)."""
    if n is None or n <= 0 or math.isinf(n):
        return DASH
    return f"{n:,.0f} (2^{math.log2(n):.1f})"


def num(x, digits=1, suffix="") -> str:
    if x is None or (isinstance(x, float) and (math.isnan(x) or math.isinf(x))):
        return DASH
    return f"{x:,.{digits}f}{suffix}"


def sig(x, digits=3) -> str:
    """x with `digits` significant digits (no exponent for ordinary magnitudes)."""
    if x is None or x == 0:
        return DASH if x is None else "0"
    places = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    return f"{x:,.{places}f}"


def markdown_table(headers: list, rows: list, align: str | None = None) -> str:
    """A Markdown table; align: one letter per column, l or r (default: first l, rest r)."""
    align = align or "l" + "r" * (len(headers) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(headers: list, rows: list, align: str | None = None) -> str:
    """The same as a fixed-width text table for the terminal."""
    align = align or "l" + "r" * (len(headers) - 1)
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        out.append("  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                             for c, w, a in zip(r, widths, align)).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
