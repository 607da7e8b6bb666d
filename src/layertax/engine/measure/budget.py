"""The run's time budget, shared among the experiments the scheduler measures.

Each experiment is given a share of what is left in proportion to what one of its rounds
costs, so that every experiment gets about as many rounds as the others: a round of scan
(every case reads a whole file) costs a minute where a round of callchain costs two
seconds, and a share by number of cases would starve scan. The cost of a round is taken
from the newest saved run of that experiment on this machine; without one, from its number
of cases at a typical tenth of a second each. Time an experiment does not use (its cases
reached their precision early) is left for the ones after it.
"""
from __future__ import annotations

import time

from layertax.engine.measure.scheduler import select_cases

SECONDS_PER_CASE_ROUND = 0.1   # the guess before any run was saved: one process and a burst of samples


class Budget:
    def __init__(self, seconds: float | None, scheduled: list, case_globs: tuple[str, ...] = (),
                 round_costs: dict[str, float] | None = None, clock=time.monotonic):
        """round_costs: seconds per round (of all its cases) each experiment took last time, where known."""
        self.seconds, self.clock = seconds, clock
        self.started = clock()
        self.allotted_at = self.started
        costs = round_costs or {}
        self.weights = {}
        for e in scheduled:
            cases = len(select_cases(e, case_globs)) if case_globs else len(e.cases)
            known = costs.get(e.name)
            # A saved round cost is for all the experiment's cases; --case runs fewer.
            self.weights[e.name] = (known * cases / len(e.cases) if known else cases * SECONDS_PER_CASE_ROUND)

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


def saved_round_costs(machine_id: str | None, names: list[str]) -> dict[str, float]:
    """Seconds per round of all its cases of each named experiment in its newest saved run on this
    machine."""
    from layertax.engine.store import history

    found: dict[str, float] = {}
    try:
        rows = history.runs(machine_id=machine_id)
    except Exception:   # noqa: BLE001 - no usable history: every experiment gets the guess
        return found
    for row in rows:
        wanted = [n for n in row["experiments"].split(",") if n in names and n not in found]
        if not wanted or (machine_id and row["machine_id"] != machine_id):
            continue
        try:
            doc = history.load(row)
        except Exception:   # noqa: BLE001 - a moved or damaged file: the next one may do
            continue
        for exp in doc["experiments"]:
            stop = exp.get("stopping") or {}
            # A round of all its cases (round_s_full); an older result has only the median round.
            cost = stop.get("round_s_full") or stop.get("round_s_median")
            if exp["name"] in wanted and cost:
                found[exp["name"]] = float(cost)
        if len(found) == len(names):
            break
    return found
