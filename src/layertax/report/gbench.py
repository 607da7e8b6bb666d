"""The Google Benchmark export: the JSON `--benchmark_format=json` writes, so that
Google Benchmark's tools/compare.py (and dashboards built on that format) read a layertax run.

The mapping keeps layertax's unit of replication: one benchmark per timed case (named
"experiment/case"), one repetition per round (one kernel process; its value the median of
the round's burst, in ns/op or ns per launch), then the aggregates Google Benchmark writes
after repetitions (mean, median, stddev, cv over the rounds). `iterations` is the
iterations each sample of the round timed.

What Google Benchmark has and layertax does not measure is said, not invented: layertax
times wall-clock only, so cpu_time is set equal to real_time and the context says so
("layertax_cpu_time"). Instruction counts (--metric instructions) are not times and are left
out (the BMF export carries them); failed cases appear with error_occurred, as Google
Benchmark writes a benchmark that called SkipWithError.
"""
from __future__ import annotations

import json
import statistics

from layertax.engine.analysis import analyze

JSON_SCHEMA_VERSION = 1


def _load_avg(machine: dict) -> list[float]:
    try:
        return [float(v) for v in (machine.get("loadavg") or "").split()[:3]]
    except ValueError:
        return []


def context(doc: dict) -> dict:
    """Google Benchmark's context block, filled from the machine fingerprint, plus layertax's own keys
    (Google Benchmark's AddCustomContext puts user keys beside its own in the same way)."""
    m = doc.get("machine") or {}
    governors = m.get("governors") or []
    return {
        "date": doc.get("created", ""),
        "host_name": m.get("hostname_hash") or "",
        "executable": " ".join(doc.get("command") or ["layertax"]),
        "num_cpus": m.get("cores") or 0,
        "mhz_per_cpu": 0,            # not read by layertax; 0 as Google Benchmark writes when unknown
        "cpu_scaling_enabled": bool(governors) and governors != ["performance"],
        "caches": [],
        "load_avg": _load_avg(m),
        "library_build_type": "release",
        "json_schema_version": JSON_SCHEMA_VERSION,
        "layertax_version": str(doc.get("layertax_version", "")),
        "layertax_machine_id": m.get("machine_id") or "",
        "layertax_cpu_model": m.get("cpu_model") or "",
        "layertax_kernel": m.get("kernel") or "",
        "layertax_libc": m.get("libc") or "",
        "layertax_cpu_time": "not measured: cpu_time repeats real_time (wall clock)",
    }


def _rounds(exp: dict, case: dict) -> list[tuple[float, int]]:
    """(median ns of the round, iterations per sample) for each round, in round order."""
    by_round = analyze.round_samples(case, analyze.sample_metric(exp))
    iters = {}
    for s in case["samples"]:
        iters.setdefault(s["round"], s.get("iters") or 1)
    return [(statistics.median(by_round[r]), int(iters.get(r, 1))) for r in sorted(by_round)]


def _entry(name: str, family: int, repetitions: int, run_name: str, **fields) -> dict:
    return {"name": name, "family_index": family, "per_family_instance_index": 0, "run_name": run_name,
            "repetitions": repetitions, "threads": 1, "time_unit": "ns", **fields}


def _benchmarks(name: str, family: int, rounds: list[tuple[float, int]]) -> list[dict]:
    n = len(rounds)
    out = [_entry(name, family, n, run_name=name, run_type="iteration", repetition_index=i, iterations=iters,
                  real_time=value, cpu_time=value) for i, (value, iters) in enumerate(rounds)]
    values = [v for v, _ in rounds]
    if n < 2:
        return out
    mean, median, sd = statistics.fmean(values), statistics.median(values), statistics.stdev(values)
    for agg, value, unit in (("mean", mean, "time"), ("median", median, "time"), ("stddev", sd, "time"),
                             ("cv", sd / mean if mean else 0.0, "percentage")):
        out.append(_entry(f"{name}_{agg}", family, n, run_name=name, run_type="aggregate", aggregate_name=agg,
                          aggregate_unit=unit, iterations=n, real_time=value, cpu_time=value))
    return out


def to_gbench(doc: dict) -> str:
    benchmarks = []
    family = 0
    for exp in doc["experiments"]:
        if exp.get("metric") == "instructions":
            continue
        for case in exp["cases"]:
            name = f"{exp['name']}/{case['name']}"
            if case["status"] == "failed":
                benchmarks.append(_entry(name, family, 1, run_name=name, run_type="iteration", repetition_index=0,
                                         iterations=0, real_time=0.0, cpu_time=0.0, error_occurred=True,
                                         error_message=case.get("reason") or "failed"))
            elif case["status"] == "ok" and case.get("samples"):
                rounds = _rounds(exp, case)
                if not rounds:
                    continue
                benchmarks += _benchmarks(name, family, rounds)
            else:
                continue
            family += 1
    return json.dumps({"context": context(doc), "benchmarks": benchmarks}, indent=2) + "\n"
