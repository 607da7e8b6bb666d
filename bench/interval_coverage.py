"""How often does a labelled 95% interval hold the truth? Simulation and recorded rounds.

The interval is the one layertax prints for a case's ratio to its baseline: the median of the
per-round ratios, Hettmansperger-Sheather interpolated order statistics, widened for rounds
that move together (engine/analysis/stats.py ratio_summary). Beside it, the plain
order-statistic pair the interval replaced ("[X(j), X(n-j+1)] at >= 95%").

Models of a run's per-round ratios, each with an exact truth:
  iid          lognormal, sigma 5%
  mixture      85% lognormal sigma 3%, 15% of rounds 20-60% slower (heavy right tail)
  drift        case and baseline share an AR(0.6) drift (70% of it cancels in the ratio)
  steps        the machine's speed steps by 10% and stays ten rounds on average; the
               baseline feels 90% of each step
and, with RUN.json files that keep their samples, recorded rounds: a simulated run draws n of
a case's recorded paired ratios (iid), or takes n consecutive ones at a random start (the
machine's own drift kept); the truth is the median of all of them.

The sequential column applies the stopping rule the scheduler uses (stop at the first
checkpoint whose interval is within +-precision) and checks the interval it stops with.

    .venv/bin/python bench/interval_coverage.py [--sims 2000] [RUN.json ...]

Takes about a minute at 2,000 simulations; the table goes in docs/method/statistics.md.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from layertax.engine.analysis import analyze, stats
from layertax.engine.measure.stopping import CHECKPOINTS

SIZES = (6, 8, 10, 12, 16, 24, 32, 40)


def iid(rng, n):
    return np.exp(rng.normal(0, 0.05, n)), 1.0


def _mixture_values(rng, n):
    slow = rng.random(n) < 0.15
    return np.exp(rng.normal(0, 0.03, n) + np.where(slow, rng.uniform(math.log(1.2), math.log(1.6), n), 0.0))


def mixture(rng, n):
    return _mixture_values(rng, n), MIXTURE_TRUTH


def drift(rng, n, phi=0.6, shared=0.7):
    d = np.empty(n)
    d[0] = rng.normal(0, 0.05)
    for i in range(1, n):
        d[i] = phi * d[i - 1] + rng.normal(0, 0.05 * math.sqrt(1 - phi * phi))
    case = d + rng.normal(0, 0.02, n)
    base = shared * d + rng.normal(0, 0.02, n)
    return np.exp(case - base), 1.0       # symmetric about 0 on the log scale: the median ratio is 1


def steps(rng, n, stay=0.9, gap=0.10, shared=0.9):
    """The machine's speed steps by 10% and stays for ten rounds on average; the baseline feels
    90% of a step, so the ratio steps by 1% (a shared VM's slow stretches)."""
    state = rng.random() < 0.5
    levels = np.empty(n)
    for i in range(n):
        levels[i] = gap if state else 0.0
        if rng.random() > stay:
            state = not state
    case = levels + rng.normal(0, 0.015, n)
    base = shared * levels + rng.normal(0, 0.015, n)
    return np.exp(case - base), math.exp((1 - shared) * gap / 2)   # a symmetric mixture: its median


# The mixture's median, from four million draws (its error is far below a simulation's).
MIXTURE_TRUTH = float(np.median(_mixture_values(np.random.default_rng(12345), 4_000_000)))
MODELS = {"iid": iid, "mixture": mixture, "drift": drift, "steps": steps}


def plain_interval(values) -> tuple[float, float]:
    """The order-statistic pair before interpolation: the narrowest at or above 95%, widened by
    whole ranks for dependence (the interval layertax printed before)."""
    x = np.sort(values)
    n = x.size
    j = 1
    while j + 1 <= n // 2 and stats._rank_coverage(j + 1, n) >= stats.CONFIDENCE:
        j += 1
    dependence = stats.dependence
    factor = dependence.variance_factor(values) / dependence.BIAS_CORRECTION if n >= 9 else 1.0   # as it was
    if factor > 1:
        j = max(1, min(j, math.floor(n / 2 + 0.5 - (n / 2 - j + 0.5) * math.sqrt(factor))))
    return float(x[j - 1]), float(x[n - j])


def reported(values) -> tuple[float, float]:
    lo, hi = stats.ratio_summary(list(values))["ci95"]
    return lo, hi


def sequential(values, precision: float) -> tuple[float, float]:
    """The interval a case stops with under the stopping rule: at each checkpoint from 8 rounds
    (stopping.CHECKPOINTS), stop when the interval at stats.SEQUENTIAL_CONFIDENCE is within
    +-precision, and report that interval; at the last round, report the 95% one."""
    for n in CHECKPOINTS:
        if n < 8 or n > values.size:
            continue
        summary = stats.ratio_summary(list(values[:n]), stats.SEQUENTIAL_CONFIDENCE)
        lo, hi = summary["ci95"]
        if (hi - lo) / 2 / summary["median"] <= precision:
            return lo, hi
    return reported(values)


def coverage(draw, sizes, sims: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for n in sizes:
        held = {"reported": 0, "plain": 0}
        for _ in range(sims):
            values, truth = draw(rng, n)
            lo, hi = reported(values)
            held["reported"] += lo <= truth <= hi
            plo, phi = plain_interval(values)
            held["plain"] += plo <= truth <= phi
        out[n] = {k: v / sims for k, v in held.items()}
    return out


def sequential_coverage(draw, sims: int, seed: int, precision: float = 0.02) -> float:
    rng = np.random.default_rng(seed)
    held = 0
    for _ in range(sims):
        values, truth = draw(rng, 40)
        lo, hi = sequential(values, precision)
        held += lo <= truth <= hi
    return held / sims


def recorded(paths: list[str]):
    """Each case's recorded paired ratios (in round order), with at least 30 rounds."""
    for path in paths:
        doc = json.load(open(path))
        for exp in doc["experiments"]:
            by_name = {c["name"]: c for c in exp.get("cases", [])}
            for case in exp.get("cases", []):
                base = by_name.get(analyze.baseline_of(exp, case))
                if base is None or base is case or not case.get("samples") or not base.get("samples"):
                    continue
                ratios = np.array(stats.paired_ratios(analyze.round_values(case, analyze.sample_metric(exp)),
                                                      analyze.round_values(base, analyze.sample_metric(exp))))
                if ratios.size >= 30:
                    yield f"{exp['name']}/{case['name']}", ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="saved results with their samples (recorded rounds)")
    parser.add_argument("--sims", type=int, default=2000)
    args = parser.parse_args()
    print(f"coverage of the labelled 95% interval of a median ratio; {args.sims} simulated runs per cell")
    print(f"{'model':10} {'interval':9} " + " ".join(f"{n:>6}" for n in SIZES) + "  sequential(±2%)")
    for i, (name, draw) in enumerate(MODELS.items()):
        table = coverage(draw, SIZES, args.sims, seed=100 + i)
        seq = sequential_coverage(draw, max(200, args.sims // 4), seed=200 + i)
        for kind in ("reported", "plain"):
            cells = " ".join(f"{100 * table[n][kind]:5.1f}%" for n in SIZES)
            print(f"{name:10} {kind:9} {cells}" + (f"  {100 * seq:5.1f}%" if kind == "reported" else ""))
    cases = list(recorded(args.runs))
    if cases:
        rng = np.random.default_rng(7)
        for mode in ("iid", "windows"):
            held = {n: [] for n in SIZES}
            for _, ratios in cases:
                truth = float(np.median(ratios))
                for n in SIZES:
                    # A window must be a small part of the recording, or it holds the truth by being most of it.
                    if n > ratios.size or mode == "windows" and n > ratios.size // 2:
                        continue
                    for _ in range(max(50, args.sims // 10)):
                        if mode == "iid":
                            values = rng.choice(ratios, n, replace=True)
                        else:
                            start = rng.integers(0, ratios.size - n + 1)
                            values = ratios[start:start + n]
                        lo, hi = reported(values)
                        held[n].append(lo <= truth <= hi)
            cells = " ".join(f"{100 * np.mean(held[n]):5.1f}%" if held[n] else "     -" for n in SIZES)
            print(f"{'recorded':10} {mode:9} {cells}   ({len(cases)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
