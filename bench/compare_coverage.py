"""How often does `layertax compare`'s "B/A [95% CI]" hold the true B/A? Simulation and
recorded rounds.

compare sets two runs' per-round ratios of a case side by side: B/A is the ratio of their
medians, its interval the bootstrap 95% interval of that ratio widened by the larger of the two
series' drift factors (stats.series_ratio_test, engine/analysis/compare.py). Here A and B are
two runs of one experiment of 10 cases drawn from one model of per-round ratios (_common.py:
iid, mixture, drift, steps; each with an exact truth), so B/A's truth is known; and, with RUN.json
files that keep their samples, two runs drawn from the same recorded rounds (blocks of
consecutive rounds ten long on average, the machine's own drift kept), whose truth is 1.

    .venv/bin/python bench/compare_coverage.py [--sims 1000] [--sizes N,...] [--factors]
                                               [--experiments 1000] [RUN.json ...]

--factors adds the drift factor compare widened by under each model (its mean and spread: what
a run's rounds tell of their own drift); --experiments adds the geometric-mean row compare prints
for each experiment, its truth the geometric mean of its cases' truths (simulated experiments,
and pairs of runs of each recorded experiment of two cases or more, its cases drawn at the same
round blocks). Takes about three minutes at 1,000 cases a cell (one core), and eighteen more at
1,000 experiments. 93-97% is the goal, as for the runs' own intervals (bench/interval_coverage.py).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from layertax.engine.analysis import compare, stats

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


def factors(draw, n: int, sims: int, seed: int) -> np.ndarray:
    """The drift factors compare widened the intervals of simulated pairs of runs by."""
    rng = np.random.default_rng(seed)
    return np.array([stats.series_ratio_test(draw(rng, n)[0], draw(rng, n)[0])[3] for _ in range(sims)])


def mean_held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> bool:
    """Whether the geometric-mean row compare prints for an experiment of these cases (each run's
    rounds sharing their ids, as a run's cases do) holds the geometric mean of their truths."""
    rows = [compare.Row("bench", str(i), float(np.median(a)), float(np.median(b)), float(np.median(b) / np.median(a)),
                        (0.0, 0.0), "time", to_baseline="base", a_rounds=dict(enumerate(a)), b_rounds=dict(enumerate(b)))
            for i, (a, b) in enumerate(zip(runs_a, runs_b))]
    row, _ = compare.geomean_row(compare.ExperimentComparison("bench", "", "time", rows, None, []), 0.02)
    return row.ci95[0] <= float(np.exp(np.mean(np.log(truths)))) <= row.ci95[1]


def simulated_means(draw, n: int, experiments: int, seed: int) -> float:
    """The share of simulated experiments of CASES cases whose geometric-mean row held its truth."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(experiments):
        drawn = [(draw(rng, n), draw(rng, n)) for _ in range(CASES)]
        hits += mean_held([a for (a, _), _ in drawn], [b for _, (b, _) in drawn], [tb / ta for (_, ta), (_, tb) in drawn])
    return hits / experiments


def resampled_means(experiments: list[list[np.ndarray]], n: int, draws: int, seed: int) -> float:
    """The share of pairs of runs of recorded experiments (their cases at one draw of round blocks
    a run, from the rounds all of them ran) whose geometric-mean row held 1."""
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(1, draws // len(experiments))):
        for ratios in experiments:
            shortest = min(r.size for r in ratios)
            pick_a, pick_b = (block_rounds(rng, shortest, n, BLOCK) for _ in range(2))
            hits += mean_held([r[pick_a] for r in ratios], [r[pick_b] for r in ratios], [1.0] * len(ratios))
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
    parser.add_argument("--factors", action="store_true",
                        help="also the drift factor compare widens by under each model: its mean and spread")
    parser.add_argument("--experiments", type=int, default=0,
                        help="also the geometric-mean row: simulated experiments (and recorded pairs) a cell")
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
    if args.factors:
        _factors(sizes, args.sims)
    if args.experiments:
        _means(args.runs, sizes, args.experiments)
    return 0


def _factors(sizes: tuple[int, ...], sims: int) -> None:
    print(f"\nthe drift factor compare widened by (mean, and the middle 80%); {sims} pairs of runs a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>16}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [factors(draw, n, sims, seed=1100 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(
            f"{c.mean():5.2f} {np.quantile(c, 0.1):4.2f}-{np.quantile(c, 0.9):4.2f}".rjust(16) for c in cells), flush=True)


def _means(runs: list[str], sizes: tuple[int, ...], experiments: int) -> None:
    print(f"\ncoverage of compare's geometric-mean row [95% CI] ({CASES} cases an experiment); "
          f"{experiments} experiments a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated_means(draw, n, experiments, seed=700 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    recorded_experiments = [[r for _, r in cases] for _, cases in recorded_ratios(runs) if len(cases) >= 2]
    if recorded_experiments:
        cells = [resampled_means(recorded_experiments, n, experiments, seed=900 + n) for n in sizes]
        print(f"{'recorded (blocks)':18} " + " ".join(f"{100 * c:6.1f}" for c in cells)
              + f"   ({len(recorded_experiments)} experiments)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
