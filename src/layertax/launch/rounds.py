"""How many rounds a launch run takes: a fixed number in one timer run, or run after run up to
each checkpoint of the stopping rule, with only the targets whose figure is not yet precise
(and their baselines), as the kernels' rounds go (engine/measure/rounds.py decides both).

A launch costs about a millisecond, so a start-up experiment can afford the rounds a drifting
machine needs (up to 320 where a kernel stops at 40); the timer is started again for each
stretch, with its warm-up, since it runs a number of rounds it is given.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from layertax.engine.measure.rounds import RoundPlan
from layertax.engine.measure.stopping import StoppingRule


class FixedRounds:
    """Every target, `runs` rounds, in one timer run."""

    def __init__(self, runs: int):
        self.runs = runs

    def next_stop(self, done: int) -> int | None:
        return self.runs if done < self.runs else None

    def most(self) -> int:
        """The rounds a target may run at most."""
        return self.runs

    def going(self, name: str) -> bool:
        return True

    def seen(self, samples: Mapping[str, list], failed: Collection[str] = ()) -> None:
        pass

    def finished(self, done: int, seconds: float) -> None:
        pass

    def record(self, interrupted: bool) -> dict | None:
        return None


@dataclass
class _TargetRun:
    """What the round plan reads of a target: its case (name, group), its samples, whether it launched."""
    case: object
    samples: list = field(default_factory=list)
    active: bool = True


class PreciseRounds:
    """Round after round until each target's figure is within the rule's precision, checked at
    its checkpoints only, or the rule's maximum of rounds is reached. exp: the experiment whose
    cases the targets are (their baselines); names: the targets launched; metric: the launch's
    field the figures are read from (main_ns)."""

    def __init__(self, exp, names: list[str], rule: StoppingRule, metric: str):
        cases = {c.name: c for c in exp.cases}
        self.runs = {name: _TargetRun(cases[name]) for name in names}
        self.plan = RoundPlan(exp, list(self.runs.values()), rule, None, metric=metric)

    @property
    def rule(self) -> StoppingRule:
        return self.plan.rule

    def most(self) -> int:
        """The rounds a target may run at most: the rule's maximum (checkpoints may stop it sooner)."""
        return self.rule.max_rounds

    def next_stop(self, done: int) -> int | None:
        """The round count of the next checkpoint after `done` (None: no more rounds)."""
        if done >= self.rule.max_rounds or (done and not any(r.active and self.going(n) for n, r in self.runs.items())):
            return None
        return next(n for n in range(done + 1, self.rule.max_rounds + 1)
                    if self.rule.checkpoint(n) or n == self.rule.max_rounds)

    def going(self, name: str) -> bool:
        return name not in self.plan.stopped

    def seen(self, samples: Mapping[str, list], failed: Collection[str] = ()) -> None:
        """Every target's samples so far (after each timer run, an interrupted one too), and the
        targets that failed: they are not launched again, so they stop, and no baseline runs on
        for them."""
        for name, run in self.runs.items():
            run.samples = list(samples.get(name, ()))
            run.active = bool(run.samples)
            if name in failed:
                self.plan.stopped.setdefault(name, "failed")

    def finished(self, done: int, seconds: float) -> None:
        """A stretch of rounds ended at `done` rounds, taking `seconds`: the plan looks at the
        checkpoint it reached."""
        ran = done - self.plan.rounds_done
        for n in range(self.plan.rounds_done + 1, done + 1):
            self.plan.finished(n, seconds / ran)

    def record(self, interrupted: bool) -> dict:
        """Per target: the rounds it used, the precision it reached and why it stopped (RoundPlan.record)."""
        return self.plan.record(interrupted)
