"""How often does the between-runs test mark a ratio that did not move? Simulation.

A window is six runs of one true ratio, each run n rounds drawn from one model and its interval
the one layertax prints (stats.ratio_summary: interpolated order statistics, widened by the
drift factor pooled over an experiment of ten such cases, dependence.factors); the test is
engine/analysis/between_runs.py's (Cochran's Q, p < ALPHA), with every run's standard error
floored at the window's median (`floored`, what layertax does) and with each run's own (`own`).
Models: iid lognormal rounds (sigma 3%); mixture, 15% of rounds 20-60% slower.

    .venv/bin/python bench/between_runs_marks.py [--windows 3000]

Takes about two minutes at 3,000 windows a cell (one core). Not a test: it measures a rate.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from layertax.engine.analysis import between_runs, dependence, stats

from _common import finish   # this folder's

SIZES = (8, 12, 20, 40)
CASES = 10      # the cases of one simulated experiment, whose rounds the drift factor pools


def draw(rng, model: str, n: int) -> np.ndarray:
    noise = rng.normal(0, 0.03, n)
    if model == "mixture":
        slow = rng.random(n) < 0.15
        noise = noise + np.where(slow, rng.uniform(math.log(1.2), math.log(1.6), n), 0.0)
    return np.exp(noise)


def reported(rng, model: str, n: int) -> dict:
    """One run's ratio summary of a case, as layertax reports it: its factor pooled with its
    experiment's other cases."""
    experiment = [draw(rng, model, n) for _ in range(CASES)]
    factor = dependence.factors(experiment)[0]
    return stats.ratio_summary(list(experiment[0]), factor=factor)


def p_values(points: list[tuple[float, float, float]]) -> tuple[float, float]:
    """The test's p-value with the floor (as layertax runs it) and with each run's own error."""
    floored = between_runs.heterogeneity([(x, se) for x, se, _ in points])
    own = between_runs.heterogeneity([(x, se) for x, se, _ in points], floor=False)
    return floored, own


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=3000, help="windows of six runs a cell")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"share of windows of {between_runs.WINDOW} runs of one true ratio marked at p < {between_runs.ALPHA}")
    print(f"{'model':8} {'rounds':>6} {'floored':>8} {'own':>8}")
    for model in ("iid", "mixture"):
        for n in SIZES:
            marked = np.zeros(2)
            for _ in range(args.windows):
                points = [between_runs.point(reported(rng, model, n)) for _ in range(between_runs.WINDOW)]
                marked += np.array(p_values(points)) < between_runs.ALPHA
            floored, own = 100 * marked / args.windows
            print(f"{model:8} {n:>6} {floored:>7.2f}% {own:>7.2f}%")
    return 0


if __name__ == "__main__":
    finish(main)
