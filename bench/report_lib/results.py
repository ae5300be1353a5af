"""Google Benchmark JSON from parprim-bench and parprim-bench-mpi, one record per benchmark.

Name schemes (bench/common.hpp, bench/cuda/cuda_bench.hpp, bench/mpi/bench_mpi.cpp):

  <primitive>/<competitor>/<type>[/heads:1inK]/threads:<T>/n:<N>[/real_time]       CPU
  reduce/<competitor>[_device]/<type>/n:<N>/.../manual_time                         CUDA reduce
  scan/<inclusive|exclusive>/<competitor>/<type>/n:<N>/.../manual_time              CUDA scan
  segmented_scan/inclusive/<competitor>/<type>/seg:<L>/n:<N>/.../manual_time        CUDA seg.
  segmented_reduce/<competitor>/<type>/seg:<L|n|mixed>/n:<N>/.../manual_time       CUDA per
  reduce_by_key/<competitor>/<type>/seg:<L>/n:<N>/.../manual_time                   segment
  roof/<copy|read|cuda_copy_d2d[_device]>/<type>/[threads:<T>/]n:<N>/...            roofs
  mpi/<primitive>/<competitor>/<type>[/heads:1inK]/<strong|weak>/ranks:<p>/n:<N>/...  MPI
  mpi/latency/<collective>/<type>/ranks:<p>/n:1/...                                 MPI latency

Parsing is by shape, not by a list of known names: `key:value` parts are parameters, the
first part that is an element type splits competitor from the rest, and a trailing `_device`
marks the device-time variant of a CUDA competitor. Of repeated runs the `median` aggregate is
used (or the median of the repetitions when the file has no aggregates); errored and skipped
benchmarks are kept apart, with their messages.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
         "bfloat16", "float32", "float64")
TYPE_BYTES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
              "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
SECONDS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
TIMING_WORDS = {"manual_time", "real_time", "process_time"}
SCAN_VARIANTS = {"inclusive", "exclusive"}
GPU_PREFIXES = ("cuda", "cub_", "thrust_")


@dataclass
class Result:
    """One benchmark: what was measured and how long it took."""
    name: str                      # run_name as in the JSON
    group: str                     # "mpi" for parprim-bench-mpi, "" otherwise
    primitive: str                 # reduce, scan, segmented_scan, roof, false_sharing, latency
    variant: str                   # "inclusive" / "exclusive" for scans, "" otherwise
    competitor: str                # omp, cuda_k3_sequential_addressing, cub_..., raw, ...
    device_time: bool              # the `_device` variant (suffix stripped from competitor)
    type: str                      # int32, float64, ...
    scaling: str                   # MPI: strong / weak; "" otherwise
    params: dict = field(default_factory=dict)   # n, threads, ranks, heads, seg, ...
    seconds: float = 0.0           # time of one call (median)
    bytes_per_second: float = 0.0  # input bytes read per second (parprim-bench's GB/s)
    traffic: float = 0.0           # read + written bytes per second, 0 when not reported
    source: str = ""               # the file it came from
    error: str = ""                # non-empty: errored or skipped

    @property
    def n(self) -> int:
        return int(self.params.get("n", 0))

    @property
    def threads(self) -> int:
        return int(self.params.get("threads", 1))

    @property
    def ranks(self) -> int:
        return int(self.params.get("ranks", 1))

    @property
    def is_gpu(self) -> bool:
        c = self.competitor
        return c.startswith(GPU_PREFIXES) or (self.primitive == "roof" and c.startswith("cuda"))

    @property
    def segment_length(self) -> int:
        """Segment length of a segmented scan (heads:1inK -> K, seg:L -> L); 0 when not a
        number (seg:random) or not segmented."""
        seg = self.params.get("seg")
        if seg is not None:
            return seg if isinstance(seg, int) else 0
        heads = str(self.params.get("heads", ""))
        return int(heads[3:]) if heads.startswith("1in") and heads[3:].isdigit() else 0

    @property
    def segment_rank(self) -> tuple:
        """Orders segment lengths by preference for the plots: closest to 1024 first (the
        length the CPU, GPU and MPI benches share, about), non-numeric ones last."""
        length = self.segment_length
        return (0, abs(math.log2(length) - 10)) if length > 0 else (1, 0.0)

    @property
    def segments_label(self) -> str:
        if "seg" in self.params:
            seg = self.params["seg"]
            if seg == "n":
                return "one segment of n"
            return f"segments of {seg}" if isinstance(seg, int) else f"{seg} segments"
        if "heads" in self.params:
            return f"heads 1/{self.segment_length}"
        return ""

    @property
    def panel(self) -> str:
        """The primitive as a report section: scans other than inclusive are named."""
        if self.variant and self.variant != "inclusive":
            return f"{self.primitive} ({self.variant})"
        return self.primitive

    @property
    def rate(self) -> float:
        """Input bytes per second, computed from n and the time where the JSON lacks it."""
        if self.bytes_per_second > 0:
            return self.bytes_per_second
        if self.seconds > 0 and self.n > 0:
            return self.n * TYPE_BYTES.get(self.type, 4) / self.seconds
        return 0.0


def parse_name(name: str) -> dict | None:
    """The fields of a benchmark name (see the module comment), or None if it has no type."""
    params, words = {}, []
    for part in name.split("/"):
        if ":" in part:
            key, value = part.split(":", 1)
            params[key] = int(value) if value.isdigit() else value
        elif part not in TIMING_WORDS:
            words.append(part)
    group = ""
    if words and words[0] == "mpi":
        group, words = "mpi", words[1:]
    if len(words) < 2:
        return None
    primitive, rest = words[0], words[1:]
    variant = ""
    if primitive.endswith("scan"):
        variant = rest.pop(0) if rest and rest[0] in SCAN_VARIANTS else "inclusive"
    typed = [i for i, w in enumerate(rest) if w in TYPES]
    if not typed or typed[0] == 0:
        return None
    t = typed[0]
    competitor = "/".join(rest[:t])
    device_time = competitor.endswith("_device")
    if device_time:
        competitor = competitor[: -len("_device")]
    after = rest[t + 1:]
    scaling = next((w for w in after if w in ("strong", "weak")), "")
    return dict(group=group, primitive=primitive, variant=variant, competitor=competitor,
                device_time=device_time, type=rest[t], scaling=scaling, params=params)


def read_json(path: str, notes: list) -> dict:
    """The JSON of `path`; a file cut short by a killed run (Google Benchmark writes it as it
    goes) is closed after its last complete benchmark, with a note."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    end = text.rfind("\n    }")
    if end < 0:
        raise SystemExit(f"bench/report: {path} is not Google Benchmark JSON")
    data = json.loads(text[: end + 6] + "\n  ]\n}\n")
    notes.append(f"{path} was cut short (a run stopped early?): read its first "
                 f"{len(data.get('benchmarks', []))} entries")
    return data


def _from_entry(entry: dict, fields: dict, source: str) -> Result:
    unit = SECONDS_PER.get(entry.get("time_unit", "ns"), 1e-9)
    return Result(name=entry.get("run_name", entry["name"]), source=source,
                  seconds=float(entry.get("real_time", 0.0)) * unit,
                  bytes_per_second=float(entry.get("bytes_per_second", 0.0)),
                  traffic=float(entry.get("traffic", 0.0)), **fields)


def _median_of(runs: list) -> Result:
    """The repetition with the median time (the lower middle one for an even count)."""
    runs = sorted(runs, key=lambda r: r.seconds)
    return runs[(len(runs) - 1) // 2]


def load(paths: list) -> tuple:
    """(results, errors, contexts, notes) from the JSON files: results and errors are lists of
    Result; contexts maps each path to its "context"; notes are warnings for the report."""
    notes, contexts = [], {}
    chosen = {}   # run_name -> Result (a later file replaces an earlier one)
    errors = {}
    replaced = {}  # (earlier file, later file) -> number of benchmarks measured in both
    for path in paths:
        data = read_json(path, notes)
        contexts[path] = data.get("context", {})
        medians, repeats = {}, {}
        for entry in data.get("benchmarks", []):
            run_name = entry.get("run_name", entry["name"])
            fields = parse_name(run_name)
            if fields is None:
                continue
            if entry.get("error_occurred") or entry.get("skipped"):
                r = _from_entry(entry, fields, path)
                r.error = entry.get("error_message") or entry.get("skip_message") or "skipped"
                errors[run_name] = r
                continue
            if entry.get("run_type") == "aggregate":
                if entry.get("aggregate_name") == "median":
                    medians[run_name] = _from_entry(entry, fields, path)
                continue
            repeats.setdefault(run_name, []).append(_from_entry(entry, fields, path))
        for run_name, runs in repeats.items():
            medians.setdefault(run_name, _median_of(runs))
        for run_name, r in medians.items():
            if run_name in chosen and chosen[run_name].source != path:
                key = (chosen[run_name].source, path)
                replaced[key] = replaced.get(key, 0) + 1
            chosen[run_name] = r
    for (earlier, later), count in replaced.items():
        notes.append(f"{count} benchmark(s) measured in both {earlier} and {later}; "
                     f"the latter is used")
    errors = [e for name, e in errors.items() if name not in chosen]
    return list(chosen.values()), errors, contexts, notes


def describe_errors(errors: list) -> list:
    """One line per distinct error message, with how many benchmarks reported it."""
    counts = {}
    for e in errors:
        counts.setdefault(e.error, []).append(e.name)
    lines = []
    for message, names in sorted(counts.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(names)} benchmark(s) reported `{message}` (e.g. `{names[0]}`)")
    return lines
