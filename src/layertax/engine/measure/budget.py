"""The run's time budget, shared among the experiments the scheduler measures.

When an experiment starts, it is given the budget that is left, in proportion to its share
of the cases still to measure (every case costs about one process and its samples per
round). Time an experiment does not use, because its cases reached their precision early
(or one measured its own way took less), is left for the ones after it.
"""
from __future__ import annotations

import time

from layertax.engine.measure.scheduler import select_cases


class Budget:
    def __init__(self, seconds: float | None, scheduled: list, case_globs: tuple[str, ...] = (),
                 clock=time.monotonic):
        self.seconds, self.clock = seconds, clock
        self.started = clock()
        self.allotted_at = self.started
        self.weights = {e.name: len(select_cases(e, case_globs)) if case_globs else len(e.cases) for e in scheduled}

    def deadline_for(self, exp) -> float | None:
        """The clock time by which exp should end; None when there is no budget."""
        if self.seconds is None or exp.name not in self.weights:
            return None
        now = self.clock()
        left = max(self.seconds - (now - self.started), 0.0)
        share = self.weights[exp.name] / sum(self.weights.values())
        del self.weights[exp.name]
        self.allotted_at = now
        return now + left * share
