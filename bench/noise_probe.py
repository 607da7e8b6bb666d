"""Does the noise probe forecast what a run reaches? The probe (engine/measure/noise_probe.py)
beside the spread of the per-round paired log ratios each case of a saved run showed, by
experiment: the median case, the quartiles, and the probe's spread measured now.

    .venv/bin/python bench/noise_probe.py RUN.json [RUN.json ...]
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from layertax.engine.measure import noise_probe  # noqa: E402


def _round_medians(case: dict) -> dict[int, float]:
    by_round = collections.defaultdict(list)
    for s in case["samples"]:
        by_round[s["round"]].append(s["ns"] / max(s["ops"], 1))
    return {r: statistics.median(v) for r, v in by_round.items()}


def case_spreads(exp: dict) -> list[float]:
    """Each case's spread of log(case / its baseline) over the rounds both ran (6 rounds or more)."""
    cases = {c["name"]: c for c in exp["cases"] if c.get("samples") and "ns" in c["samples"][0]}
    baselines = {g["name"]: g.get("baseline") for g in exp.get("groups", [])}
    out = []
    for name, case in cases.items():
        base = cases.get(baselines.get(case.get("group")) or exp.get("baseline"))
        if base is None or base is case:
            continue
        a, b = _round_medians(case), _round_medians(base)
        logs = [math.log(a[r] / b[r]) for r in a if r in b]
        if len(logs) >= 6:
            out.append(noise_probe.spread(logs))
    return sorted(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="saved run results (layertax run --export-json)")
    parser.add_argument("--pairs", type=int, default=noise_probe.PAIRS * 4, help="probe pairs (more: steadier)")
    args = parser.parse_args()
    probe = noise_probe.measure(pairs=args.pairs)
    print(f"probe now: pairs of processes differ by {probe['spread']:.1%} ({args.pairs} pairs, {probe['seconds']} s)")
    print(f"{'run':24} {'experiment':12} {'cases':>5} {'q25':>7} {'median':>7} {'q75':>7}   (spread of per-round paired log ratios)")
    for path in args.runs:
        doc = json.loads(path.read_text())
        for exp in doc["experiments"]:
            spreads = case_spreads(exp)
            if len(spreads) < 4:
                continue
            q = statistics.quantiles(spreads, n=4)
            print(f"{path.name[:24]:24} {exp['name']:12} {len(spreads):5} {q[0]:7.1%} {q[1]:7.1%} {q[2]:7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
