"""How often does `layertax compare`'s "B/A [95% CI]" hold the true B/A? Simulation and
recorded rounds.

compare sets two runs' per-round ratios of a case side by side: B/A is the ratio of their
medians, its interval the bootstrap 95% interval of that ratio widened by the larger of the two
series' drift factors (stats.series_ratio_test, engine/analysis/compare.py). Here A and B are
two runs of one experiment of 10 cases drawn from one model of per-round ratios (_common.py:
iid, mixture, drift, steps; each with an exact truth), so B/A's truth is known; and, with RUN.json
files that keep their samples, two runs drawn from the same recorded rounds (blocks of
consecutive rounds ten long on average, the machine's own drift kept), whose truth is 1.

    .venv/bin/python bench/compare_coverage.py [--sims 1000] [--sizes N,...] [RUN.json ...]

Takes about three minutes at 1,000 cases a cell (one core). 93-97% is the goal, as for the
runs' own intervals (bench/interval_coverage.py).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from layertax.engine.analysis import stats

from _common import MODELS, block_rounds, recorded_ratios   # this folder's

SIZES = (6, 8, 12, 16, 24, 40)
CASES = 10          # the cases of one simulated experiment
BLOCK = 10          # the mean length of a block of recorded rounds


def held(a: np.ndarray, b: np.ndarray, truth: float) -> bool:
    _, (low, high), _, _ = stats.series_ratio_test(a, b)
    return low <= truth <= high


def simulated(draw, n: int, sims: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(1, sims // CASES)):
        for _ in range(CASES):
            (a, truth_a), (b, truth_b) = draw(rng, n), draw(rng, n)
            hits += held(a, b, truth_b / truth_a)
            total += 1
    return hits / total


def recorded(paths: list[str]) -> list[tuple[str, np.ndarray]]:
    """Every case's recorded paired ratios (in round order) with at least 30 rounds."""
    return [(f"{exp}/{case}", ratios) for exp, cases in recorded_ratios(paths) for case, ratios in cases]


def resampled(cases: list[tuple[str, np.ndarray]], n: int, sims: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(20, sims // len(cases))):
        for _, ratios in cases:
            a = ratios[block_rounds(rng, ratios.size, n, BLOCK)]
            b = ratios[block_rounds(rng, ratios.size, n, BLOCK)]
            hits += held(a, b, 1.0)
            total += 1
    return hits / total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="saved results with their samples (recorded rounds)")
    parser.add_argument("--sims", type=int, default=1000, help="simulated cases a cell")
    parser.add_argument("--sizes", help="the rounds of each run (comma-separated)")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.sizes.split(",")) if args.sizes else SIZES
    print(f"coverage of compare's B/A [95% CI]; {args.sims} cases a cell; rounds of each run:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated(draw, n, args.sims, seed=300 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    cases = recorded(args.runs)
    if cases:
        cells = [resampled(cases, n, args.sims, seed=500 + n) for n in sizes]
        print(f"{'recorded (blocks)':18} " + " ".join(f"{100 * c:6.1f}" for c in cells)
              + f"   ({len(cases)} cases)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
