"""The pyperf export: pyperf's JSON (format 1.0), so `pyperf compare_to`, `pyperf stats`
and `pyperf hist` can read a layertax run.

The mapping keeps layertax's structure: one pyperf benchmark per timed case (named
"experiment/case"), one pyperf run per layertax round (one kernel process), its
values the round's samples in seconds per operation, and "loops" the iterations
each sample timed. Untimed cases (a correctness matrix) and instruction counts
are not time samples and are left out.
"""
from __future__ import annotations

import json

from layertax.engine.analysis import analyze

FORMAT_VERSION = "1.0"


def _run(samples: list[dict], metric: str | None) -> dict | None:
    values = [v / 1e9 for v in (analyze.value(s, metric) for s in samples) if v]
    if not values:
        return None
    run = {"values": values}
    loops = {s.get("iters") for s in samples}
    if len(loops) == 1 and isinstance(next(iter(loops)), int) and next(iter(loops)) >= 1:
        run["metadata"] = {"loops": next(iter(loops))}
    return run


def _benchmark(exp: dict, case: dict) -> dict | None:
    metric = exp.get("metric")
    if metric == "instructions":
        return None
    by_round: dict[int, list[dict]] = {}
    for s in case["samples"]:
        by_round.setdefault(s["round"], []).append(s)
    runs = [r for r in (_run(by_round[k], metric) for k in sorted(by_round)) if r]
    if not runs:
        return None
    return {"metadata": {"name": f"{exp['name']}/{case['name']}", "unit": "second",
                         "description": f"{exp['title']}: {case['layer']}"}, "runs": runs}


def to_pyperf(doc: dict) -> str:
    benchmarks = [b for exp in doc["experiments"] for case in exp["cases"] if case["status"] == "ok"
                  for b in [_benchmark(exp, case)] if b]
    machine = doc.get("machine") or {}
    metadata = {"layertax_version": str(doc.get("layertax_version", "")),
                "layertax_command": " ".join(doc.get("command", [])),
                "cpu_model_name": str(machine.get("cpu_model") or ""), "platform": f"Linux-{machine.get('kernel')}"}
    return json.dumps({"version": FORMAT_VERSION, "metadata": metadata, "benchmarks": benchmarks}) + "\n"
