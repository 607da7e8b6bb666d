"""How often does a labelled 95% interval hold the truth? Simulation and recorded rounds.

The interval is the one layertax prints for a case's ratio to its baseline: the median of the
per-round ratios, Hettmansperger-Sheather interpolated order statistics, widened for rounds
that move together by a factor estimated with the experiment's other cases
(engine/analysis/dependence.py factors, stats.ratio_summary). Beside it, the same interval
widened by the factor of the case's own rounds only ("own"), and the plain order-statistic
pair with no interpolation and no widening ("plain": "[X(j), X(n-j+1)] at >= 95%").

A simulated experiment has 10 cases, each drawn from one model, each with an exact truth:
  iid          lognormal, sigma 5%
  mixture      85% lognormal sigma 3%, 15% of rounds 20-60% slower (heavy right tail)
  drift        case and baseline share an AR(0.6) drift (70% of it cancels in the ratio)
  steps        the machine's speed steps by 10% and stays ten rounds on average; the
               baseline feels 90% of each step
and, with RUN.json files that keep their samples, recorded rounds: a simulated run of an
experiment draws n rounds of all its cases at once, either independently ("iid draws") or in
blocks of consecutive rounds ten long on average ("blocks", a stationary bootstrap: the
machine's own drift kept); the truth is the median of all of a case's recorded ratios.

The sequential column applies the scheduler's own decision at each checkpoint
(stopping.at_checkpoint: the experiment's factors from the rounds so far; a case stops when its
interval at the rule's confidence is within +-precision, and goes on again where it widens
past it) and checks the interval it stops with.

    .venv/bin/python bench/interval_coverage.py [--sims 2000] [--models M,...] [--sizes N,...]
        [--rule LEAST:MOST:LEVEL] [RUN.json ...]

Takes about three minutes at 2,000 simulated cases a cell and about an hour at the 16,000 of
the table in docs/method/statistics.md (one core; --models splits the models across runs).
"""
from __future__ import annotations

import argparse

import numpy as np

from layertax.engine.analysis import dependence, stats
from layertax.engine.measure.settings import Settings
from layertax.engine.measure.stopping import StoppingRule, at_checkpoint
from layertax.experiments.loadtime.measure import LAUNCH_CONFIDENCE, LAUNCH_ROUNDS

from _common import MODELS, block_rounds, finish, recorded_ratios   # this folder's

SIZES = (6, 8, 10, 12, 16, 24, 32, 40)


CASES = 10          # the cases of one simulated experiment
BLOCK = 10          # the mean length of a block of recorded rounds


def plain_interval(values) -> tuple[float, float]:
    """The order-statistic pair before interpolation and widening: the narrowest at or above 95%."""
    x = np.sort(values)
    n = x.size
    j = 1
    while j + 1 <= n // 2 and stats._rank_coverage(j + 1, n) >= stats.CONFIDENCE:
        j += 1
    return float(x[j - 1]), float(x[n - j])


def intervals(runs: list[np.ndarray]) -> dict[str, list[tuple[float, float, float]]]:
    """Each case's (low, high, labelled coverage) under each design, for one experiment's runs."""
    pooled = dependence.factors(runs)
    out = {"reported": [], "own": [], "plain": []}
    for values, factor in zip(runs, pooled):
        s = stats.ratio_summary(list(values), factor=factor)
        out["reported"].append((*s["ci95"], s["ci_coverage"]))
        own = stats.ratio_summary(list(values))
        out["own"].append((*own["ci95"], own["ci_coverage"]))
        out["plain"].append((*plain_interval(values), stats.CONFIDENCE))
    return out


def sequential(runs: list[np.ndarray], precision: float, first: int = 8,
               level: float = stats.SEQUENTIAL_CONFIDENCE) -> list[tuple[float, float, bool]]:
    """The interval each case of one experiment reports under the stopping rule, as layertax
    decides and analyses it: the scheduler's own decision at each checkpoint from `first` rounds
    (stopping.at_checkpoint, as engine/measure/rounds.py takes it; each case's ratios as its round
    values over a baseline of 1.0 in every round, so its paired ratios are exactly the drawn ones);
    a case stopped goes on again where the factors then leave its interval wider (its rounds then
    have a gap); then, with every case's rounds as they ended, the experiment's factors again, and
    each case's interval at the level of its stop (analyze.analyzed; level: the rule's
    confidence). Each as (low, high, whether it ended stopped precise)."""
    last = min(r.size for r in runs)
    rule = StoppingRule(precision, min_rounds=first, max_rounds=last, confidence=level)
    names = [f"case {i}" for i in range(len(runs))]
    baselines = {"baseline": None, **dict.fromkeys(names, "baseline")}
    ran: dict[str, list[int]] = {name: [] for name in names}      # the rounds each case ran, in order
    stopped: dict[str, str] = {}
    done = 0
    for n in [c for c in range(1, last + 1) if rule.checkpoint(c)]:
        for name in names:
            if name not in stopped:
                ran[name] += range(done, n)
        done = n
        values = {"baseline": dict.fromkeys(range(n), 1.0),
                  **{name: {r: float(runs[i][r]) for r in ran[name]} for i, name in enumerate(names)}}
        stopped, _ = at_checkpoint(values, baselines, rule, stopped)
    for name in names:
        if name not in stopped:
            ran[name] += range(done, last)
    ended = [r[ran[name]] for r, name in zip(runs, names)]
    factors = dependence.factors(ended)
    return [(*stats.ratio_summary(list(values), level if name in stopped else stats.CONFIDENCE,
                                  factors[i])["ci95"], name in stopped)
            for i, (values, name) in enumerate(zip(ended, names))]


class Tally:
    """How often each design's interval held the truth, and the coverage it was labelled with."""

    def __init__(self):
        self.held: dict[str, list[bool]] = {}
        self.labels: dict[str, list[float]] = {}

    def add(self, got: dict[str, list], truths: list[float]) -> None:
        for kind, cases in got.items():
            for (lo, hi, label), truth in zip(cases, truths):
                self.held.setdefault(kind, []).append(lo <= truth <= hi)
                self.labels.setdefault(kind, []).append(label)

    def _short(self, kind: str) -> np.ndarray:
        """Which intervals were labelled short of 95% (the range, where the factor asked more)."""
        return np.array(self.labels.get(kind, [])) < stats.CONFIDENCE - 0.0005

    def cell(self, kind: str) -> str:
        """The coverage of the intervals labelled 95%, "*" where others were labelled short of it."""
        if not self.held.get(kind):
            return "     -"
        short, held = self._short(kind), np.array(self.held[kind])
        got = f"{100 * np.mean(held[~short]):.1f}" if (~short).any() else "-"
        return got + ("*" if short.any() else "")

    def short_text(self, kind: str) -> str | None:
        """For the intervals labelled short of 95%: their share, their mean label and how often
        they held; None where there were none."""
        short = self._short(kind)
        if not short.any():
            return None
        labels, held = np.array(self.labels[kind])[short], np.array(self.held[kind])[short]
        return (f"{100 * short.mean():.0f}% labelled short of 95% (the range), at {100 * labels.mean():.1f}% "
                f"on average; they held {100 * held.mean():.1f}%")


def coverage(draw, sizes, sims: int, seed: int) -> dict[int, Tally]:
    rng = np.random.default_rng(seed)
    out = {}
    for n in sizes:
        tally = Tally()
        for _ in range(max(1, sims // CASES)):
            drawn = [draw(rng, n) for _ in range(CASES)]
            tally.add(intervals([values for values, _ in drawn]), [truth for _, truth in drawn])
        out[n] = tally
    return out


def sequential_coverage(draw, sims: int, seed: int, precision: float = 0.02,
                        rounds: tuple[int, int] = (8, 56), level: float = stats.SEQUENTIAL_CONFIDENCE
                        ) -> tuple[float, float]:
    """How often the intervals reported under the stopping rule held the truth (all labelled 95%:
    a stopped case's is computed at the rule's level so that it still covers 95%), and the share
    of cases that stopped precise before the last checkpoint. rounds: the rule's least and most
    rounds (the kernels' 8 to 56; loadtime's launches go from 40 to 320); level: its confidence."""
    rng = np.random.default_rng(seed)
    held, stopped = [], []
    for _ in range(max(1, sims // CASES)):
        drawn = [draw(rng, rounds[1]) for _ in range(CASES)]
        for (lo, hi, stop), (_, truth) in zip(sequential([values for values, _ in drawn], precision, rounds[0],
                                                         level), drawn):
            held.append(lo <= truth <= hi)
            stopped.append(stop)
    return float(np.mean(held)), float(np.mean(stopped))


def recorded(paths: list[str]):
    """Each experiment's cases' recorded paired ratios (in round order), all of one length of at
    least 30 rounds: (experiment, [(case, ratios)])."""
    for name, cases in recorded_ratios(paths):
        length = min(r.size for _, r in cases)
        yield name, [(case, r[:length]) for case, r in cases]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="saved results with their samples (recorded rounds)")
    parser.add_argument("--sims", type=int, default=2000, help="simulated cases a cell")
    parser.add_argument("--models", default=",".join(MODELS), help="the simulated models to run (comma-separated)")
    parser.add_argument("--sizes", help="the round counts to simulate (comma-separated; given, the sequential "
                        "column and the recorded rounds are left out): to pin one cell with more cases")
    kernels = f"{Settings.min_rounds}:{Settings.runs}:{stats.SEQUENTIAL_CONFIDENCE}"
    parser.add_argument("--rule", default=kernels,
                        help="the sequential column's least and most rounds and the rule's confidence, LEAST:MOST:LEVEL "
                        f"(the kernels' {kernels}; loadtime's launches "
                        f"{LAUNCH_ROUNDS[0]}:{LAUNCH_ROUNDS[1]}:{LAUNCH_CONFIDENCE})")
    args = parser.parse_args()
    least, most, level = args.rule.split(":")
    rule = (int(least), int(most))
    sizes = tuple(int(n) for n in args.sizes.split(",")) if args.sizes else SIZES
    print(f"coverage of the labelled 95% interval of a median ratio; {args.sims} simulated cases per cell,"
          f" experiments of {CASES} cases; each cell over the intervals labelled 95%; *: some were labelled"
          f" short of it (the range), said under the row")
    print(f"{'model':10} {'interval':9} " + " ".join(f"{n:>8}" for n in sizes)
          + ("" if args.sizes else "  sequential(±2%)"))
    for i, (name, draw) in enumerate(MODELS.items()):
        if name not in args.models.split(","):
            continue
        table = coverage(draw, sizes, args.sims, seed=100 + i)
        seq = None if args.sizes else sequential_coverage(draw, args.sims, seed=200 + i, rounds=rule,
                                                               level=float(level))
        for kind in ("reported", "own", "plain"):
            cells = " ".join(f"{table[n].cell(kind):>8}" for n in sizes)
            print(f"{name:10} {kind:9} {cells}" + (f"  {100 * seq[0]:5.1f} ({100 * seq[1]:.0f}% stopped precise)"
                                                   if kind == "reported" and seq else ""), flush=True)
            for n in sizes if kind == "reported" else ():
                if table[n].short_text(kind):
                    print(f"{'':20} * at {n} rounds: {table[n].short_text(kind)}")
    experiments = [] if args.sizes else list(recorded(args.runs))
    if experiments:
        rng = np.random.default_rng(7)
        count = sum(len(cases) for _, cases in experiments)
        for mode, block in (("iid draws", 1.0), ("blocks", float(BLOCK))):
            tallies = {}
            for n in SIZES:
                tally = tallies[n] = Tally()
                for _, cases in experiments:
                    truths = [float(np.median(r)) for _, r in cases]
                    for _ in range(max(20, args.sims // 10)):
                        rounds = block_rounds(rng, cases[0][1].size, n, block)
                        tally.add(intervals([r[rounds] for _, r in cases]), truths)
            cells = " ".join(f"{tallies[n].cell('reported'):>8}" for n in SIZES)
            print(f"{'recorded':10} {mode:9} {cells}   ({count} cases)", flush=True)
            for n in SIZES:
                if tallies[n].short_text("reported"):
                    print(f"{'':20} * at {n} rounds: {tallies[n].short_text('reported')}")
    return 0


if __name__ == "__main__":
    finish(main)
