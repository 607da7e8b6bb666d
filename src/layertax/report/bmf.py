"""The Bencher Metric Format export (https://bencher.dev/docs/reference/bencher-metric-format):
{benchmark: {measure: {value, lower_value, upper_value}}}, for `bencher run --adapter json`.

One benchmark per measured case, named "experiment/case". Its measures:
- "latency" (Bencher's built-in measure, nanoseconds): the median ns/op, or ns per launch,
  with the 95% interval of the median as lower_value and upper_value;
- "instructions" for a case counted under callgrind: the exact count per operation, no interval;
- "ratio-to-baseline": the case over its baseline (paired per round) with its 95% interval,
  kept as its own measure because it is the figure layertax answers with, and one that a
  machine's drift moves less than the absolute time.
Cases that failed, were skipped, or were not timed (a correctness matrix) carry no number
and are left out rather than given a made-up one.
"""
from __future__ import annotations

import json
import math

LATENCY = "latency"
INSTRUCTIONS = "instructions"
RATIO = "ratio-to-baseline"


def _metric(value, interval=None) -> dict | None:
    if value is None or not math.isfinite(value):
        return None
    metric = {"value": float(value)}
    if interval and all(v is not None and math.isfinite(v) for v in interval):
        metric["lower_value"], metric["upper_value"] = float(interval[0]), float(interval[1])
    return metric


def _timed(case: dict) -> dict:
    st = case.get("stats") or {}
    ratio = st.get("ratio") or {}
    return {LATENCY: _metric(st.get("median"), st.get("ci95")),
            RATIO: _metric(ratio.get("median"), ratio.get("ci95"))}


def _counted(case: dict) -> dict:
    # A callgrind count is exact: its interval is the point itself, so none is written.
    return {INSTRUCTIONS: _metric((case.get("instructions") or {}).get("per_op")),
            RATIO: _metric(case.get("ratio"))}


def measures(exp: dict, case: dict) -> dict:
    """The BMF measures of one case ({} when it has no figure)."""
    found = _counted(case) if exp.get("metric") == "instructions" else _timed(case)
    return {name: metric for name, metric in found.items() if metric is not None}


def to_bmf(doc: dict) -> str:
    out = {}
    for exp in doc["experiments"]:
        for case in exp["cases"]:
            if case["status"] != "ok":
                continue
            found = measures(exp, case)
            if found:
                out[f"{exp['name']}/{case['name']}"] = found
    return json.dumps(out, indent=2) + "\n"
