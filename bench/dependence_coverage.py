"""How often a median's 95% interval holds the true median when the values drift, with and
without the widening for serial dependence (layertax.engine.analysis.dependence).

Synthetic series, each with a true median of 0:
- iid: independent normal values (the widening's cost: it should change nothing);
- ar0.3, ar0.6: an AR(1) series with that lag-1 correlation (a slow wander);
- step: a level that jumps to a new random one (sd `--step` times the noise's) with
  probability 0.05 before each value (a machine that changes state every ~20 rounds).
For each, TRIALS series of each length: the share whose interval held 0, with the plain
(independent) ranks and with the widened ones, and the widened interval's mean width over the
plain one's. Not a test: it measures; docs/inprocess.md records a run.

    .venv/bin/python bench/dependence_coverage.py [--trials 2000] [--seed 1]
"""
from __future__ import annotations

import argparse

import numpy as np

from layertax.engine.analysis import dependence, stats

LENGTHS = (10, 30, 40, 120)
BURN_IN = 50


def ar1(rng, n: int, rho: float) -> np.ndarray:
    noise = rng.standard_normal(n + BURN_IN)
    y = np.zeros_like(noise)
    for i in range(1, y.size):
        y[i] = rho * y[i - 1] + noise[i]
    return y[BURN_IN:]


def steps(rng, n: int, size: float) -> np.ndarray:
    level, out = size * rng.standard_normal(), []
    for _ in range(n):
        if rng.random() < 0.05:
            level = size * rng.standard_normal()
        out.append(level + rng.standard_normal())
    return np.asarray(out)


def series(kind: str, rng, n: int, step: float) -> np.ndarray:
    if kind == "iid":
        return rng.standard_normal(n)
    if kind.startswith("ar"):
        return ar1(rng, n, float(kind[2:]))
    return steps(rng, n, step)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000, help="series per kind and length (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generator (default 1)")
    parser.add_argument("--step", type=float, default=1.0,
                        help="sd of the step series' levels, in units of its noise's sd (default 1)")
    args = parser.parse_args()
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    rng = np.random.default_rng(args.seed)
    print(f"{args.trials} series per row; the share whose 95% interval held the true median")
    print(f"{'kind':6} {'n':>4} {'plain':>7} {'widened':>8} {'width':>6}")
    for kind in ("iid", "ar0.3", "ar0.6", "step"):
        for n in LENGTHS:
            held_plain = held_wide = 0
            widths = []
            for _ in range(args.trials):
                y = series(kind, rng, n, args.step)
                lo, hi, _ = stats.median_ci(y)
                wlo, whi, _ = stats.median_ci(y, factor=dependence.variance_factor(y))
                held_plain += lo <= 0 <= hi
                held_wide += wlo <= 0 <= whi
                widths.append((whi - wlo) / (hi - lo) if hi > lo else 1.0)
            print(f"{kind:6} {n:>4} {held_plain / args.trials:>7.3f} {held_wide / args.trials:>8.3f} "
                  f"{np.mean(widths):>5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
