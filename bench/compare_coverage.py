"""How often does `layertax compare`'s "B/A [95% CI]" hold the true B/A? Simulation and
recorded rounds.

compare sets two runs' per-round ratios of a case side by side: B/A is the Hodges-Lehmann shift
of their logarithms, its interval Moses' 95% interval for it (the one the Mann-Whitney test
inverts), widened by the larger of the two runs' drift factors, each estimated over its run's
experiment (compare.judge_rows, which this bench calls as compare does). Here A and B are two
runs of one experiment of 10 cases drawn from one model of per-round ratios (_common.py: iid,
mixture, drift, steps; each with an exact truth), so B/A's truth is known; and, with RUN.json
files that keep their samples, two runs of each recorded experiment drawn from its recorded
rounds (blocks of consecutive rounds ten long on average, the same rounds for all its cases, the
machine's own drift kept), whose truth is 1.

    .venv/bin/python bench/compare_coverage.py [--sims 1000] [--sizes N,...] [--factors] [--mover]
                                               [--mean-factor 1.5,1.75] [--experiments 1000] [RUN.json ...]

--mover adds, for the same pairs, a design compare does not use: B/A's interval put together from
each run's own interval of its median (the one a run prints, widened by that run's factor) by MOVER
(Zou and Donner: the two half-widths added in quadrature on the log scale), to set beside
compare's. --mean-factor adds, for the same pairs, compare's interval widened another way: by the
mean of the two runs' factors (what the variance of a difference of two equally long runs'
estimates takes) instead of the larger, its excess for ranks scaled by each value given (compare:
the larger, scaled by dependence.RANKS_OVER_SIGNS). --factors adds the drift factor compare widened
by under each model (its mean and spread: what a run's rounds tell of their own drift);
--experiments adds the geometric-mean row compare prints for each experiment, its truth the
geometric mean of its cases' truths (simulated experiments, and pairs of runs of each recorded
experiment of two cases or more, its cases drawn at the same round blocks). Takes about three
minutes at 1,000 cases a cell (one core), as much again for each of --mover and each --mean-factor
value, and eighteen more at 1,000 experiments. 93-97% is the goal, as for the runs' own intervals
(bench/interval_coverage.py).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from layertax.engine.analysis import compare, dependence, stats

from _common import MODELS, block_rounds, finish, recorded_ratios   # this folder's

SIZES = (6, 8, 12, 16, 24, 40)
CASES = 10          # the cases of one simulated experiment
BLOCK = 10          # the mean length of a block of recorded rounds


def rows(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> list[compare.Row]:
    """An experiment's cases as compare sets them side by side, A's and B's rounds of each (their
    ratios to a baseline; round ids shared by the cases, as in a run), not yet judged."""
    return [compare.Row("bench", str(i), float(np.median(a)), float(np.median(b)), float("nan"),
                        (float("nan"), float("nan")), "time", a_rounds=dict(enumerate(a)),
                        b_rounds=dict(enumerate(b)), to_baseline="base")
            for i, (a, b) in enumerate(zip(runs_a, runs_b))]


def judged(runs_a: list[np.ndarray], runs_b: list[np.ndarray]) -> list[compare.Row]:
    """An experiment's cases judged as compare judges them."""
    out = rows(runs_a, runs_b)
    compare.judge_rows(out)
    return out


def held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> int:
    """How many of an experiment's cases have B/A's interval holding their truth."""
    return sum(row.ci95[0] <= truth <= row.ci95[1] for row, truth in zip(judged(runs_a, runs_b), truths))


def mover_held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> int:
    """How many cases the MOVER interval holds: each run's interval of its median on the log scale,
    widened by that run's factor for the case (dependence.factors over its experiment, as a run
    prints it), the two half-widths on each side added in quadrature."""
    hits = 0
    factors_a = dependence.factors([list(a) for a in runs_a])
    factors_b = dependence.factors([list(b) for b in runs_b])
    for a, b, fa, fb, truth in zip(runs_a, runs_b, factors_a, factors_b, truths):
        la, lb = np.log(a), np.log(b)
        a_low, a_high, _ = stats.median_ci(la, factor=fa)
        b_low, b_high, _ = stats.median_ci(lb, factor=fb)
        ma, mb = float(np.median(la)), float(np.median(lb))
        low = mb - ma - math.hypot(mb - b_low, a_high - ma)
        high = mb - ma + math.hypot(b_high - mb, ma - a_low)
        hits += low <= math.log(truth) <= high
    return hits


def mean_factor_judge(scale: float):
    """A judge whose interval is compare's widened by the mean of the two runs' factors, its excess
    over 1 scaled by `scale` for ranks (compare: the larger factor, RANKS_OVER_SIGNS)."""
    def judge(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> int:
        factors_a = dependence.factors([list(a) for a in runs_a])
        factors_b = dependence.factors([list(b) for b in runs_b])
        hits = 0
        for a, b, fa, fb, truth in zip(runs_a, runs_b, factors_a, factors_b, truths):
            # series_ratio_test converts a factor of signs for ranks (for_ranks); this one gives it
            # the factor of signs whose conversion is 1 + scale * (mean - 1).
            signs = 1.0 + scale / dependence.RANKS_OVER_SIGNS * ((fa + fb) / 2 - 1.0)
            _, (low, high), _, _ = stats.series_ratio_test(a, b, (signs, signs))
            hits += low <= truth <= high
        return hits
    return judge


def mean_held(runs_a: list[np.ndarray], runs_b: list[np.ndarray], truths: list[float]) -> bool:
    """Whether the geometric-mean row compare prints for an experiment of these cases holds the
    geometric mean of their truths."""
    row, _ = compare.geomean_row(compare.ExperimentComparison("bench", "", "time", rows(runs_a, runs_b), None, []),
                                 0.02)
    return row.ci95[0] <= float(np.exp(np.mean(np.log(truths)))) <= row.ci95[1]


def simulated_pair(draw, rng, n: int) -> tuple[list[np.ndarray], list[np.ndarray], list[float]]:
    """Two runs of a simulated experiment of CASES cases, n rounds each, and each case's true B/A."""
    drawn = [(draw(rng, n), draw(rng, n)) for _ in range(CASES)]
    return [a for (a, _), _ in drawn], [b for _, (b, _) in drawn], [tb / ta for (_, ta), (_, tb) in drawn]


def recorded_pair(rng, ratios: list[np.ndarray], n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two runs of a recorded experiment: its cases' ratios at one draw of round blocks a run, from
    the rounds all its cases ran (the shortest case's)."""
    shortest = min(r.size for r in ratios)
    pick_a, pick_b = (block_rounds(rng, shortest, n, BLOCK) for _ in range(2))
    return [r[pick_a] for r in ratios], [r[pick_b] for r in ratios]


def simulated(draw, n: int, sims: int, seed: int, judge=held) -> float:
    rng = np.random.default_rng(seed)
    experiments = max(1, sims // CASES)
    return sum(judge(*simulated_pair(draw, rng, n)) for _ in range(experiments)) / (experiments * CASES)


def resampled(experiments: list[list[np.ndarray]], n: int, sims: int, seed: int, judge=held) -> float:
    """The share of recorded cases whose B/A interval held 1, over pairs of runs of each experiment."""
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(20, sims // sum(len(e) for e in experiments))):
        for ratios in experiments:
            hits += judge(*recorded_pair(rng, ratios, n), [1.0] * len(ratios))
            total += len(ratios)
    return hits / total


def factors(draw, n: int, sims: int, seed: int) -> np.ndarray:
    """The drift factors compare widened the intervals of simulated pairs of runs by."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(max(1, sims // CASES)):
        out += [row.dependence for row in judged([draw(rng, n)[0] for _ in range(CASES)],
                                                 [draw(rng, n)[0] for _ in range(CASES)])]
    return np.array(out)


def simulated_means(draw, n: int, experiments: int, seed: int) -> float:
    """The share of simulated experiments of CASES cases whose geometric-mean row held its truth."""
    rng = np.random.default_rng(seed)
    return sum(mean_held(*simulated_pair(draw, rng, n)) for _ in range(experiments)) / experiments


def resampled_means(experiments: list[list[np.ndarray]], n: int, draws: int, seed: int) -> float:
    """The share of pairs of runs of recorded experiments whose geometric-mean row held 1."""
    rng = np.random.default_rng(seed)
    hits = total = 0
    for _ in range(max(1, draws // len(experiments))):
        for ratios in experiments:
            hits += mean_held(*recorded_pair(rng, ratios, n), [1.0] * len(ratios))
            total += 1
    return hits / total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="saved results with their samples (recorded rounds)")
    parser.add_argument("--sims", type=int, default=1000, help="simulated cases a cell")
    parser.add_argument("--sizes", help="the rounds of each run (comma-separated)")
    parser.add_argument("--factors", action="store_true",
                        help="also the drift factor compare widens by under each model: its mean and spread")
    parser.add_argument("--mover", action="store_true",
                        help="also B/A's interval put together from each run's own median interval (MOVER)")
    parser.add_argument("--mean-factor", help="also the interval widened by the mean of the runs' factors, "
                        "its excess for ranks scaled by each value (comma-separated)")
    parser.add_argument("--experiments", type=int, default=0,
                        help="also the geometric-mean row: simulated experiments (and recorded pairs) a cell")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.sizes.split(",")) if args.sizes else SIZES
    print(f"coverage of compare's B/A [95% CI]; {args.sims} cases a cell; rounds of each run:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated(draw, n, args.sims, seed=300 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    experiments = [[ratios for _, ratios in cases] for _, cases in recorded_ratios(args.runs)]
    if experiments:
        cells = [resampled(experiments, n, args.sims, seed=500 + n) for n in sizes]
        print(f"{'recorded (blocks)':18} " + " ".join(f"{100 * c:6.1f}" for c in cells)
              + f"   ({sum(map(len, experiments))} cases)", flush=True)
    if args.mover:
        _judged_table("coverage of B/A's interval by MOVER from each run's own 95% interval (not compare's)",
                      mover_held, experiments, sizes, args.sims)
    for scale in (float(v) for v in (args.mean_factor.split(",") if args.mean_factor else [])):
        _judged_table(f"coverage of compare's interval widened by the mean of the two runs' factors, its "
                      f"excess x{scale:g} for ranks (not compare's)", mean_factor_judge(scale),
                      experiments, sizes, args.sims)
    if args.factors:
        _factors(sizes, args.sims)
    if args.experiments:
        _means([e for e in experiments if len(e) >= 2], sizes, args.experiments)
    return 0


def _judged_table(title: str, judge, experiments: list[list[np.ndarray]], sizes: tuple[int, ...], sims: int) -> None:
    """A coverage table of another interval than compare's, on the same simulated and recorded pairs."""
    print(f"\n{title}; {sims} cases a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated(draw, n, sims, seed=300 + 10 * i + n, judge=judge) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    if experiments:
        cells = [resampled(experiments, n, sims, seed=500 + n, judge=judge) for n in sizes]
        print(f"{'recorded (blocks)':18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)


def _factors(sizes: tuple[int, ...], sims: int) -> None:
    print(f"\nthe drift factor compare widened by (mean, and the middle 80%); {sims} pairs of runs a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>16}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [factors(draw, n, sims, seed=1100 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(
            f"{c.mean():5.2f} {np.quantile(c, 0.1):4.2f}-{np.quantile(c, 0.9):4.2f}".rjust(16) for c in cells), flush=True)


def _means(recorded_experiments: list[list[np.ndarray]], sizes: tuple[int, ...], experiments: int) -> None:
    print(f"\ncoverage of compare's geometric-mean row [95% CI] ({CASES} cases an experiment); "
          f"{experiments} experiments a cell:")
    print(f"{'model':18} " + " ".join(f"{n:>6}" for n in sizes))
    for i, (name, draw) in enumerate(MODELS.items()):
        cells = [simulated_means(draw, n, experiments, seed=700 + 10 * i + n) for n in sizes]
        print(f"{name:18} " + " ".join(f"{100 * c:6.1f}" for c in cells), flush=True)
    if recorded_experiments:
        cells = [resampled_means(recorded_experiments, n, experiments, seed=900 + n) for n in sizes]
        print(f"{'recorded (blocks)':18} " + " ".join(f"{100 * c:6.1f}" for c in cells)
              + f"   ({len(recorded_experiments)} experiments)", flush=True)


if __name__ == "__main__":
    finish(main)
