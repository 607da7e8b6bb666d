"""When to stop adding rounds: the precision-driven protocol.

A case stops when its figure is precise enough: the interval of its ratio to its baseline
(paired per round), or of its own median for a baseline, lies within +-precision of the
estimate (relative half-width). The interval is taken at the rule's confidence, not 95%:
stopping when an interval is narrow selects the lucky ones, and the stricter level is what
keeps the interval a stopped case reports at 95% coverage. Precision is looked at only at fixed checkpoints (after 8,
12, 16, 24, 32, 40 and 56 rounds by default), never after every round, and only the interval's
width decides, never where the estimate lies: a group-sequential design whose stopping does
not depend on the sign of a difference, so it does not push the figure one way (the coverage
this keeps is simulated in bench/interval_coverage.py and recorded in docs/method/statistics.md).
A stopped case is looked at again at each later checkpoint: the drift factor is pooled over the
experiment's rounds, and where the rounds since its stop widen its interval past the target it
goes on again; again only the width decides. at_checkpoint is that decision, whole: the
scheduler (rounds.RoundPlan) takes it, and bench/interval_coverage.py simulates with it.

Pairing is kept: a case that is still going runs with its baseline in every round, so a
baseline keeps running while any case compared with it does, whatever its own precision.
"""
from __future__ import annotations

from dataclasses import dataclass

from layertax.engine.analysis import stats

CHECKPOINTS = (6, 8, 12, 16, 24, 32, 40, 56, 80, 120, 160, 240, 320)
# A classic counterpart's ratio answers the experiment's question beside the classic's figure:
# under a deadline (rounds.RoundPlan) it is not given up for cases cheaper to finish while its
# interval is wider than this (relative half-width), the precision the comparison with the
# classic needs, and the dearest cases give way to it where it can get there. Past it, it is one
# case among the others.
CLASSIC_PRECISION = 0.05


@dataclass(frozen=True)
class StoppingRule:
    precision: float             # target relative half-width of the 95% interval (0.02: +-2%)
    min_rounds: int = 8          # no case stops before this many rounds
    max_rounds: int = 40         # no case runs more rounds than this
    # The level of the interval that decides a stop and that a case stopped by it reports
    # (labelled 95%). Which level keeps 95% depends on how much selection the checkpoints
    # leave: bench/interval_coverage.py --rule simulates each rule the scheduler uses.
    confidence: float = stats.SEQUENTIAL_CONFIDENCE

    def checkpoint(self, rounds_done: int) -> bool:
        """Whether precision is looked at after this many measured rounds."""
        return rounds_done >= self.min_rounds and (rounds_done in CHECKPOINTS or rounds_done == self.min_rounds)

    def to_dict(self) -> dict:
        return {"precision": self.precision, "min_rounds": self.min_rounds, "max_rounds": self.max_rounds,
                "confidence": self.confidence,
                "checkpoints": sorted({c for c in (self.min_rounds, *CHECKPOINTS) if self.min_rounds <= c <= self.max_rounds})}


def relative_half_width(summary: dict | None) -> float | None:
    """How precise a median (or a ratio) is: half its 95% interval over the estimate."""
    if not summary or not summary.get("median"):
        return None
    lo, hi = summary["ci95"]
    return float((hi - lo) / 2 / abs(summary["median"]))


def precision_reached(case_rounds: dict[int, float], base_rounds: dict[int, float] | None,
                      confidence: float = stats.SEQUENTIAL_CONFIDENCE, factor: float | None = None) -> float | None:
    """The relative half-width of a case's figure: its ratio to its baseline, paired per round,
    or its own median when it is a baseline (base_rounds None), at the level that decides a stop
    (or the one given). factor: the ratio's drift factor estimated with the experiment's other
    cases (stats.ratio_factors), as the analysis will take it. None: not enough rounds."""
    if base_rounds is None:
        values = [case_rounds[r] for r in sorted(case_rounds)]   # in the order they ran
        if len(values) < 2:
            return None
        return relative_half_width(stats.median_summary(values, confidence))
    ratios = stats.paired_ratios(case_rounds, base_rounds)
    if len(ratios) < 2:
        return None
    return relative_half_width(stats.ratio_summary(ratios, confidence, factor))


def half_widths(cases: dict[str, dict[int, float]], baselines: dict[str, str | None],
                base_rounds: dict[str, dict[int, float] | None] | None = None,
                confidence: float = stats.SEQUENTIAL_CONFIDENCE,
                factors: dict[str, float] | None = None) -> dict[str, float | None]:
    """precision_reached of every case at the level that decides a stop (the rule's confidence),
    the ratios' drift factors estimated once for the whole experiment (stats.ratio_factors; given
    where the caller has them already). base_rounds: the baseline's values each case pairs with
    (analyze.paired_bases); None: its baseline's round medians."""
    if factors is None:
        factors = stats.ratio_factors(cases, baselines, base_rounds)
    bases = stats.bases_for(cases, baselines, base_rounds)
    return {name: precision_reached(rounds, bases[name], confidence, factors.get(name))
            for name, rounds in cases.items()}


def still_going(cases: dict[str, dict[int, float]], baselines: dict[str, str | None], rule: StoppingRule,
                stopped: set[str], widths: dict[str, float | None] | None = None) -> set[str]:
    """The cases to run in the next round, decided at a checkpoint.

    cases: each case's round medians so far; baselines: each case's baseline (None for a
    baseline itself); stopped: cases already stopped (they stay stopped); widths: half_widths of
    the cases, where the caller has them already. A case goes on while it is not precise; a
    baseline goes on while it, or any case compared with it, does."""
    going = set()
    widths = half_widths(cases, baselines, confidence=rule.confidence) if widths is None else widths
    for name in cases:
        if name in stopped:
            continue
        reached = widths[name]
        if reached is None or reached > rule.precision:
            going.add(name)
    for name in list(going):
        base = baselines.get(name)
        if base and base in cases:
            going.add(base)
    return going


def at_checkpoint(values: dict[str, dict[int, float]], baselines: dict[str, str | None], rule: StoppingRule,
                  stopped: dict[str, str], widths: dict[str, float | None] | None = None
                  ) -> tuple[dict[str, str], set[str]]:
    """The decision at a checkpoint, from each case's round values so far (values), given the cases
    stopped before it (case -> why). A case that stopped "precise" and whose interval is now wider
    than the target (the drift factor is pooled over the experiment's rounds, and the rounds since
    its stop can raise it) goes on again; then every case goes on while it is not precise, and a
    baseline while it or a case compared with it does (still_going). A baseline's own median does
    not resume it; its cases do. Only widths decide, never where a ratio lies. widths: half_widths
    of the cases, where the caller has them. Returns (the cases stopped after it, case -> why;
    the cases that go on)."""
    widths = half_widths(values, baselines, confidence=rule.confidence) if widths is None else widths
    after = dict(stopped)
    for name, why in stopped.items():
        width = widths.get(name)
        if why == "precise" and baselines.get(name) and width is not None and width > rule.precision:
            del after[name]
    going = still_going(values, baselines, rule, set(after), widths)
    for name in values:
        if name in going and after.get(name) == "precise":
            del after[name]              # a baseline a resumed case runs with again
        elif name not in going and name not in after:
            after[name] = "precise"
    return after, going
