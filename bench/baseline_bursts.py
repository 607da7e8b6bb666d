"""Does running each baseline several times a round tighten the ratios, for what it costs?

Every ratio divides a case's round median by its baseline's, so the baseline's process-to-
process noise goes into every ratio of its group. `--baseline-bursts K` runs each baseline K
times a round, each burst in a process of its own at its own place in the shuffled order, and
takes the round's median over all of them. This bench runs `layertax run EXPERIMENT --runs N`
with 1 and with K baseline bursts in alternation (1 K K 1 1 K ...) and sets beside each other:

- the spread of each case's per-round log ratio (1.4826 x its median absolute deviation over the
  rounds, the noise probe's robust spread: what the median's interval follows), as the median
  over the cases and per case (how many got tighter);
- what a round costs (measuring seconds over rounds), and the spread at equal time: a design
  whose rounds cost c times more gets 1/c as many rounds in a budget, so its spread counts
  sqrt(c) times more.

Not a test: it measures.

    .venv/bin/python bench/baseline_bursts.py [--experiment callchain] [--bursts 2] [--runs 12] [--turns 2]
        [--keep DIR]       (the runs' JSON kept there, to replay: --replay DIR)
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from layertax.engine.analysis import analyze
from layertax.engine.measure import noise_probe


def layertax_run(experiment: str, runs: int, bursts: int, out: Path) -> dict:
    subprocess.run([sys.executable, "-m", "layertax", "run", experiment, "--runs", str(runs), "--baseline-bursts",
                    str(bursts), "--no-syscalls", "--no-save", "--export-json", str(out)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())["experiments"][0]


def log_ratio_spreads(exp: dict) -> dict[str, float]:
    """Each compared case's robust spread of log(case / baseline) over the rounds both ran."""
    medians = {c["name"]: analyze.round_values(c) for c in exp["cases"] if c["status"] == "ok" and c["samples"]}
    out = {}
    for case in exp["cases"]:
        base = analyze.baseline_of(exp, case)
        if case["name"] == base or case["name"] not in medians or base not in medians:
            continue
        a, b = medians[case["name"]], medians[base]
        logs = [math.log(a[r] / b[r]) for r in sorted(a) if r in b and a[r] > 0 and b[r] > 0]
        if len(logs) >= 3:
            out[case["name"]] = noise_probe.spread(logs)
    return out


def round_seconds(exp: dict) -> float:
    stopping = exp.get("stopping") or {}
    rounds = max((c["rounds"] for c in (stopping.get("cases") or {}).values()), default=0)
    return stopping.get("rounds_s", 0.0) / rounds if rounds else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", default="callchain")
    parser.add_argument("--bursts", type=int, default=2, help="the baseline bursts a round set against 1")
    parser.add_argument("--runs", type=int, default=12, help="rounds of each run")
    parser.add_argument("--turns", type=int, default=2, help="runs of each design, in alternation")
    parser.add_argument("--keep", help="a directory to keep each run's JSON in (TURN-K.json)")
    parser.add_argument("--replay", help="a directory --keep filled: its runs read again, nothing measured")
    args = parser.parse_args()
    designs = (1, args.bursts)
    one, many = designs
    spreads: dict[int, list[dict[str, float]]] = {k: [] for k in designs}
    costs: dict[int, list[float]] = {k: [] for k in designs}
    if args.replay:
        for path in sorted(Path(args.replay).glob("*.json")):     # named TURN-K.json by --keep
            k = int(path.stem.split("-")[1])
            exp = json.loads(path.read_text())["experiments"][0]
            spreads[k].append(log_ratio_spreads(exp))
            costs[k].append(round_seconds(exp))
    else:
        with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
            keep = Path(args.keep) if args.keep else Path(tmp)
            keep.mkdir(parents=True, exist_ok=True)
            for turn in range(args.turns):
                for k in designs if turn % 2 == 0 else designs[::-1]:
                    print(f"turn {turn + 1}/{args.turns}: {args.experiment}, {k} baseline burst(s) a round ...",
                          file=sys.stderr, flush=True)
                    exp = layertax_run(args.experiment, args.runs, k, keep / f"{turn}-{k}.json")
                    spreads[k].append(log_ratio_spreads(exp))
                    costs[k].append(round_seconds(exp))
    # Per case, each design's spread pooled over its turns (root mean square).
    pooled = {k: {name: math.sqrt(np.mean([s[name] ** 2 for s in spreads[k] if name in s]))
                  for name in set().union(*spreads[k])} for k in designs}
    names = sorted(set(pooled[designs[0]]) & set(pooled[designs[1]]))
    cost = {k: float(np.median(costs[k])) for k in designs}
    scale = math.sqrt(cost[many] / cost[one])
    med = {k: float(np.median([pooled[k][n] for n in names])) for k in designs}
    tighter = sum(pooled[many][n] < pooled[one][n] for n in names)
    tighter_equal_time = sum(pooled[many][n] * scale < pooled[one][n] for n in names)
    print(f"{args.experiment}: {len(spreads[one])} and {len(spreads[many])} runs per design, {len(names)} ratios")
    print(f"{'baseline bursts':>16} {'round cost':>11} {'median spread':>14} {'at equal time':>14}")
    for k in designs:
        at_equal = med[k] * (scale if k == many else 1.0)
        print(f"{k:>16} {cost[k]:>10.2f}s {med[k]:>14.2%} {at_equal:>14.2%}")
    print(f"with {many} baseline bursts: {tighter} of {len(names)} ratios tighter per round, "
          f"{tighter_equal_time} of {len(names)} at equal time (round cost x{cost[many] / cost[one]:.3f}); "
          f"median spread x{med[many] / med[one]:.3f} per round, x{med[many] * scale / med[one]:.3f} at equal time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
