"""Which way of reducing a round's samples gives the tightest ratios, on recorded rounds?

A round starts each case's process once and takes a burst of samples from it (3 by default); the
round's figure is their median, and a ratio pairs it with the baseline's of the same round. From
the samples a saved run keeps, this replays other designs on the very same rounds:
  median     the median of the burst (what layertax does)
  drop-first the median of the burst without its first sample (a JIT's cold first call)
  first      the first sample alone (a proxy for one sample a process, more processes)
  min        the fastest sample of the burst
and prints, per experiment and language, the median over cases of the spread of the per-round
paired log ratios (1.4826 x MAD; lower is tighter), and how far the design moves the ratio itself
(a design that tightens by changing what is measured is no better). Designs that need new
measurements (a case and its baseline back to back in one process, the baseline several times a
round) cannot be replayed here.

    .venv/bin/python bench/ratio_designs.py RUN.json [RUN.json ...]
"""
from __future__ import annotations

import argparse
import collections
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from layertax.engine.measure.noise_probe import spread  # noqa: E402
from _common import finish, read_run  # noqa: E402  (this folder's)

DESIGNS = {
    "median": lambda burst: statistics.median(burst),
    "drop-first": lambda burst: statistics.median(burst[1:]) if len(burst) > 1 else burst[0],
    "first": lambda burst: burst[0],
    "min": lambda burst: min(burst),
}


def bursts(case: dict) -> dict[int, list[float]]:
    """Each round's samples of a case, per operation, in the order they were taken."""
    by_round: dict[int, list[float]] = collections.defaultdict(list)
    for s in case["samples"]:
        by_round[s["round"]].append(s["ns"] / max(s["ops"], 1))
    return by_round


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="saved run results (layertax run --export-json)")
    args = parser.parse_args()
    table: dict[tuple[str, str], dict[str, list[tuple[float, float]]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    for path in args.runs:
        for exp in read_run(path, "ratio_designs")["experiments"]:
            cases = {c["name"]: c for c in exp.get("cases", []) if c.get("samples") and "ns" in c["samples"][0]}
            baselines = {g["name"]: g.get("baseline") for g in exp.get("groups", [])}
            for name, case in cases.items():
                base = cases.get(baselines.get(case.get("group")) or exp.get("baseline"))
                if base is None or base is case:
                    continue
                mine, theirs = bursts(case), bursts(base)
                rounds = [r for r in mine if r in theirs and len(mine[r]) > 1]
                if len(rounds) < 6:
                    continue
                reference = [math.log(DESIGNS["median"](mine[r]) / DESIGNS["median"](theirs[r])) for r in rounds]
                for design, reduce in DESIGNS.items():
                    logs = [math.log(reduce(mine[r]) / DESIGNS["median"](theirs[r])) for r in rounds]
                    moved = statistics.median(logs) - statistics.median(reference)
                    table[(exp["name"], name.split("-")[0])][design].append((spread(logs), moved))
    print(f"{'experiment':11} {'lang':5} {'cases':>5}  " + "  ".join(f"{d:>17}" for d in DESIGNS)
          + "   (spread of paired log ratios; the ratio's move)")
    for (exp, lang), by_design in sorted(table.items()):
        n = len(by_design["median"])
        cells = []
        for design in DESIGNS:
            spreads = [s for s, _ in by_design[design]]
            moves = [m for _, m in by_design[design]]
            cells.append(f"{statistics.median(spreads):7.1%} {math.exp(statistics.median(moves)) - 1:+7.1%}  ")
        print(f"{exp:11} {lang:5} {n:5}  " + " ".join(f"{c:>17}" for c in cells))
    return 0


if __name__ == "__main__":
    finish(main)
