"""Which way of measuring a round gives the tighter ratios for what it costs, and does it move them?

Runs `layertax run EXPERIMENT --runs N` with design A's options and with design B's in
alternation (A B B A A B ...) and sets beside each other:

- the spread of each case's per-round log ratio to its baseline (1.4826 x its median absolute
  deviation over the rounds, the noise probe's robust spread: what the median's interval
  follows), as the median over the cases and per case (how many got tighter);
- what a round costs (measuring seconds over rounds), and the spread at equal time: a design
  whose rounds cost c times more gets 1/c as many rounds in a budget, so its spread counts
  sqrt(c) times more;
- how far B moves each ratio from A (their medians over the runs): a design that tightens a
  ratio by measuring something else is not a better design of the same figure.

Not a test: it measures. Two designs the docs set side by side:

    .venv/bin/python bench/run_designs.py --experiment callchain --a "--baseline-bursts 1" --b "--baseline-bursts 2"
    .venv/bin/python bench/run_designs.py --experiment callchain --a "--burst 3 --min-time 0.005" \\
        --b "--burst 15 --min-time 0.001"
    [--runs 12] [--turns 2] [--keep DIR]   (each run's JSON kept there, to replay: --replay DIR)
    [--baseline-subsets]   (a design with K baseline bursts a round: its ratios' spread again with
                            the baseline's round median over k = 1..K of them, on the same rounds)
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import tempfile
from pathlib import Path

import numpy as np

from layertax.engine.analysis import analyze
from layertax.engine.measure import noise_probe

from _common import finish, layertax_export, ratios_to_baseline   # this folder's

DESIGNS = ("A", "B")


def layertax_run(experiment: str, runs: int, options: list[str], out: Path) -> dict:
    return layertax_export([experiment, "--runs", str(runs), *options, "--no-syscalls"], out)["experiments"][0]


def log_ratios(exp: dict) -> dict[str, list[float]]:
    """Each compared case's log(case / baseline), one per round both ran."""
    ok = {c["name"] for c in exp["cases"] if c["status"] == "ok"}
    out = {}
    for case in exp["cases"]:
        if case["name"] not in ok or analyze.baseline_of(exp, case) not in ok:
            continue
        logs = [math.log(r) for r in ratios_to_baseline(exp, case) if r > 0]
        if len(logs) >= 3:
            out[case["name"]] = logs
    return out


def burst_slots(case: dict) -> dict[int, list[int]]:
    """Each round's bursts of the case, by their place in the round (a shuffled order)."""
    slots: dict[int, set[int]] = {}
    for sample in case["samples"]:
        slots.setdefault(sample["round"], set()).add(sample.get("slot", 0))
    return {r: sorted(v) for r, v in slots.items()}


def first_bursts(case: dict, slots: dict[int, list[int]], k: int) -> dict:
    """The case with only its first k bursts of each round (burst_slots: a random k of them)."""
    keep = {r: set(v[:k]) for r, v in slots.items()}
    return {**case, "samples": [s for s in case["samples"] if s.get("slot", 0) in keep[s["round"]]]}


def baseline_subsets(exp: dict) -> list[tuple[int, float, float]]:
    """For a run whose baseline ran K bursts a round (`--pairing round`, `--baseline-bursts K`): each
    ratio's spread again with the baseline's round median over k of its bursts, k = 1..K, on the
    very same rounds (no other moment of the machine in the comparison), and what a round would
    have cost with k (the K - k bursts left out at the baseline's median burst). [(k, the median
    spread over the ratios, round seconds)]; [] where the baseline ran one burst a round."""
    base = next(c for c in exp["cases"] if c["name"] == exp["baseline"])
    slots = burst_slots(base)
    most = min((len(v) for v in slots.values()), default=1)
    if most < 2:
        return []
    burst_s = ((exp.get("stopping") or {}).get("cases") or {}).get(base["name"], {}).get("burst_s") or 0.0
    rows = []
    for k in range(1, most + 1):
        cut = {**exp, "cases": [first_bursts(c, slots, k) if c is base else c for c in exp["cases"]]}
        spreads = [noise_probe.spread(v) for v in log_ratios(cut).values()]
        rows.append((k, float(np.median(spreads)), round_seconds(exp) - (most - k) * burst_s))
    return rows


def print_baseline_subsets(runs: list[dict]) -> None:
    """baseline_subsets over a design's runs: per k, the mean of the runs' median spreads, the
    round cost, and the spread at equal time with k = 1's round cost."""
    tables = [t for t in (baseline_subsets(exp) for exp in runs) if t]
    if not tables:
        return
    ks = min(len(t) for t in tables)
    spread = [float(np.mean([t[i][1] for t in tables])) for i in range(ks)]
    cost = [float(np.mean([t[i][2] for t in tables])) for i in range(ks)]
    print(f"  the baseline's round median over k of its bursts, the same rounds ({len(tables)} runs):")
    print(f"  {'k':>3} {'median spread':>14} {'round cost':>11} {'at equal time':>14}")
    for i in range(ks):
        print(f"  {i + 1:>3} {spread[i]:>14.2%} {cost[i]:>10.2f}s {spread[i] * math.sqrt(cost[i] / cost[0]):>14.2%}")


def round_seconds(exp: dict) -> float:
    stopping = exp.get("stopping") or {}
    rounds = max((c["rounds"] for c in (stopping.get("cases") or {}).values()), default=0)
    return stopping.get("rounds_s", 0.0) / rounds if rounds else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", default="callchain")
    parser.add_argument("--a", default="--baseline-bursts 1", help="design A's run options")
    parser.add_argument("--b", default="--baseline-bursts 2", help="design B's run options")
    parser.add_argument("--runs", type=int, default=12, help="rounds of each run")
    parser.add_argument("--turns", type=int, default=2, help="runs of each design, in alternation")
    parser.add_argument("--keep", help="a directory to keep each run's JSON in (TURN-DESIGN.json)")
    parser.add_argument("--replay", help="a directory --keep filled: its runs read again, nothing measured")
    parser.add_argument("--baseline-subsets", action="store_true",
                        help="also, for a design whose baseline ran K bursts a round: the spreads again with its "
                             "round median over k = 1..K of them, on the same rounds")
    args = parser.parse_args()
    options = {"A": shlex.split(args.a), "B": shlex.split(args.b)}
    logs: dict[str, list[dict[str, list[float]]]] = {k: [] for k in DESIGNS}
    costs: dict[str, list[float]] = {k: [] for k in DESIGNS}
    kept: dict[str, list[dict]] = {k: [] for k in DESIGNS}     # each run, for --baseline-subsets
    if args.replay:
        for path in sorted(Path(args.replay).glob("*.json")):     # named TURN-DESIGN.json by --keep
            exp, design = json.loads(path.read_text())["experiments"][0], path.stem.split("-")[1]
            logs[design].append(log_ratios(exp))
            costs[design].append(round_seconds(exp))
            kept[design].append(exp)
    else:
        with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
            keep = Path(args.keep) if args.keep else Path(tmp)
            keep.mkdir(parents=True, exist_ok=True)
            for turn in range(args.turns):
                for k in DESIGNS if turn % 2 == 0 else DESIGNS[::-1]:
                    print(f"turn {turn + 1}/{args.turns}: {args.experiment}, design {k} ({shlex.join(options[k])}) ...",
                          file=sys.stderr, flush=True)
                    exp = layertax_run(args.experiment, args.runs, options[k], keep / f"{turn}-{k}.json")
                    logs[k].append(log_ratios(exp))
                    costs[k].append(round_seconds(exp))
                    kept[k].append(exp)
    # Per case, each design's spread pooled over its turns (root mean square), and its ratio
    # (the median of its per-round ratios over all its turns).
    spread = {k: {name: math.sqrt(np.mean([noise_probe.spread(run[name]) ** 2 for run in logs[k] if name in run]))
                  for name in set().union(*logs[k])} for k in DESIGNS}
    ratio = {k: {name: math.exp(float(np.median([v for run in logs[k] for v in run.get(name, [])])))
                 for name in spread[k]} for k in DESIGNS}
    names = sorted(set(spread["A"]) & set(spread["B"]))
    cost = {k: float(np.median(costs[k])) for k in DESIGNS}
    scale = math.sqrt(cost["B"] / cost["A"])
    med = {k: float(np.median([spread[k][n] for n in names])) for k in DESIGNS}
    print(f"{args.experiment}: {len(logs['A'])} and {len(logs['B'])} runs per design, {len(names)} ratios")
    print(f"A: {shlex.join(options['A'])}    B: {shlex.join(options['B'])}")
    print(f"{'case':30} {'spread A':>9} {'spread B':>9} {'ratio A':>8} {'ratio B':>8} {'B moves':>8}")
    for n in names:
        print(f"{n[:30]:30} {spread['A'][n]:>9.2%} {spread['B'][n]:>9.2%} {ratio['A'][n]:>8.3f} {ratio['B'][n]:>8.3f} "
              f"{ratio['B'][n] / ratio['A'][n] - 1:>+8.1%}")
    print(f"{'design':>8} {'round cost':>11} {'median spread':>14} {'at equal time':>14}")
    for k in DESIGNS:
        print(f"{k:>8} {cost[k]:>10.2f}s {med[k]:>14.2%} {med[k] * (scale if k == 'B' else 1.0):>14.2%}")
    tighter = sum(spread["B"][n] < spread["A"][n] for n in names)
    tighter_equal_time = sum(spread["B"][n] * scale < spread["A"][n] for n in names)
    moved = [abs(ratio["B"][n] / ratio["A"][n] - 1) for n in names]
    print(f"B: {tighter} of {len(names)} ratios tighter per round, {tighter_equal_time} of {len(names)} at equal time "
          f"(round cost x{cost['B'] / cost['A']:.3f}); median spread x{med['B'] / med['A']:.3f} per round, "
          f"x{med['B'] * scale / med['A']:.3f} at equal time; ratios moved by {np.median(moved):.1%} in the median, "
          f"{max(moved):.1%} at most")
    if args.baseline_subsets:
        for k in DESIGNS:
            print(f"design {k}:")
            print_baseline_subsets(kept[k])
    return 0


if __name__ == "__main__":
    finish(main)
