"""The run's time budget, shared among the experiments the scheduler measures.

Each experiment is given a share of what is left in proportion to what one of its rounds
costs, so that every experiment gets about as many rounds as the others: a round of scan
(every case reads a whole file) costs a minute where a round of callchain costs two
seconds, and a share by number of cases would starve scan. The cost of a round is taken
from the newest saved run of that experiment on this machine; without one, from its number
of cases at a typical tenth of a second each. An experiment that last time finished before its
share ran out (every case precise, or at the rule's maximum) is given what it needed then, with a
margin, and the rest of its share goes to the others from the start: left to the experiments
after it, that time would go unused (they finish early too), while the ones before it ran out.
The same holds for an experiment whose maximum of rounds uses less than its share; and none is
given less than its minimum of rounds costs, which the budget never cuts. Where every experiment
is given what it needed and time is still left, the surplus goes to the experiment about to
start: the others keep what they needed last time with a margin, and what it leaves unused is
theirs, so the first has room on a noisier moment than last time and no time is kept idle.
An experiment measured its own way (loadtime's launches, unicode-io's matrix) is not shared out:
what it took last time is kept out of the others' shares until it has run, so that the
experiments before it do not spend it and leave the ones after it short.
"""
from __future__ import annotations

import time

from layertax.engine.measure import settings
from layertax.engine.measure.scheduler import select_cases

SECONDS_PER_CASE_ROUND = 0.1   # the guess before any run was saved: one process and a burst of samples
NEED_MARGIN = 1.5              # over what an experiment needed last time: the machine is noisier on some runs
NEED_FLOOR = 0.05              # and at least this share of the budget more (a need of seconds has no room else)
# An experiment stops at the rule's maximum of rounds (scan's 20) whatever its share: a share
# above what its warm-up and that maximum cost, with this margin, would be left unused by it and
# given only to the experiments after it.
MOST_MARGIN = 1.15
# An experiment whose share by rounds' cost is less than its limit (its need with its margin, or
# what its maximum of rounds can use) is given its limit, up to this part of the budget and half
# of what is left: its cases are the cheapest to finish. encoding's rounds cost a tenth of the
# others', so by rounds' cost it got 5-7 s where it had finished in 11 (bare runs of the 2-vCPU
# VM), and the cases it stopped "out of reach" then left it no need to be given; what the others
# give up for it is a round or two each. A limit past this part is given this part, not nothing:
# a need of 16.5 s (24.7 s with its margin) had left encoding its 8 s share by rounds' cost.
RAISE_AT_MOST = 0.1
# The newest runs of this machine searched for each experiment's last record (newest_stopping): each is a
# whole result to load and check before the first round, so the search is bounded.
LOOK_BACK = 12


class Budget:
    def __init__(self, seconds: float | None, scheduled: list, case_globs: tuple[str, ...] = (),
                 round_costs: dict[str, float] | None = None, clock=time.monotonic,
                 needs: dict[str, float] | None = None, min_rounds: int = 0,
                 max_rounds: dict[str, int] | None = None, round_cases: dict[str, int] | None = None,
                 reserved: dict[str, float] | None = None):
        """round_costs: seconds per round (of all its cases) each experiment took last time, where known;
        round_cases: how many cases that round had (default: all the experiment's); needs: the
        seconds it measured last time when it finished before its share ran out (used only for the
        same cases: not with --case, nor when a bare run leaves some out); min_rounds: the rounds
        no experiment is cut below (its warm-up counted as one more); max_rounds: the most rounds
        each experiment runs. Both are turned into seconds only where the round cost is known (a
        guess could starve one). reserved: the seconds each experiment measured its own way (not
        shared out here: loadtime's launches) took last time, kept out of the shares until it
        has run (ran)."""
        self.seconds, self.clock = seconds, clock
        self.reserved = dict(reserved or {})
        sizes = {e.name: len(e.cases) for e in scheduled}
        measured_with = {**sizes, **(round_cases or {})}
        self.needs = {} if case_globs else {name: need for name, need in (needs or {}).items()
                                            if name in sizes and measured_with[name] == sizes[name]}
        self.started = clock()
        self.allotted_at = self.started
        costs = round_costs or {}
        self.weights = {}
        self.least = {}          # the share below which the rule's minimum of rounds overruns it
        self.most = {}           # the share above which its maximum of rounds leaves time unused
        for e in scheduled:
            cases = len(select_cases(e, case_globs)) if case_globs else len(e.cases)
            known = costs.get(e.name)
            # A saved round cost is for the cases that round ran; --case, or a bare run that leaves
            # an extended family out, runs fewer (or the saved run did).
            self.weights[e.name] = (known * cases / measured_with[e.name] if known
                                    else cases * SECONDS_PER_CASE_ROUND)
            # The budget never cuts an experiment below the rule's minimum of rounds (rounds.py): a
            # share smaller than its warm-up and that minimum would be overrun, at the expense of
            # the experiments after it.
            if known and min_rounds:
                self.least[e.name] = self.weights[e.name] * (min_rounds + 1)
            if known and (max_rounds or {}).get(e.name):
                self.most[e.name] = self.weights[e.name] * (max_rounds[e.name] + 1) * MOST_MARGIN
        # What the rule's minimum of rounds of every experiment and the ones measured their own way
        # took here last time: the least this run can measure, known only where every cost is.
        self.floor_s = (sum(self.least.values()) + sum(self.reserved.values())
                        if min_rounds and len(self.least) == len(scheduled) else None)

    def deadline_for(self, exp) -> float | None:
        """The clock time by which exp should end; None when there is no budget."""
        if self.seconds is None or exp.name not in self.weights:
            return None
        now = self.clock()
        left = max(self.shareable() - (now - self.started), 0.0)
        share = self.shares(left, first=exp.name)[exp.name]
        del self.weights[exp.name]
        self.allotted_at = now
        return now + share

    def shareable(self) -> float:
        """The budget less the time still kept for the experiments measured their own way."""
        return (self.seconds or 0.0) - sum(self.reserved.values())

    def ran(self, name: str) -> None:
        """An experiment measured its own way has run: the time kept for it is spent, and what it
        did not use is the others' again."""
        self.reserved.pop(name, None)

    def _limit(self, name: str) -> float | None:
        """The most an experiment is given while others could use the time: its need (with
        NEED_MARGIN, and at least NEED_FLOOR of the budget more) or what its maximum of rounds can
        use, whichever is less, never below its minimum; None where neither is known."""
        limits = [self.most[name]] if name in self.most else []
        if name in self.needs:
            limits.append(max(self.needs[name] * NEED_MARGIN, self.needs[name] + NEED_FLOOR * (self.seconds or 0.0)))
        return max(min(limits), self.least.get(name, 0.0)) if limits else None

    def shares(self, left: float, first: str | None = None) -> dict[str, float]:
        """The seconds left shared by the experiments still to run: in proportion to their rounds'
        cost, except that one known to need less than that is given its limit (_limit), and one
        whose limit is more is given it up to RAISE_AT_MOST of the budget and half of what is left
        (the cheapest to finish); what they leave is shared by the others the same way. Where
        every one is given its limit and time is still left, that surplus goes to `first`, the experiment about to start, up to what its
        maximum of rounds can use, and what it cannot use is shared by the others in proportion to
        their rounds' cost: it may meet a noisier moment than last time, the others keep their
        limits (what they needed last time, with a margin), and whatever it leaves unused is theirs
        when they start (deadline_for shares what is left again)."""
        limits = {n: self._limit(n) for n in self.weights}
        out: dict[str, float] = {}
        open_ = dict(self.weights)
        rest = left
        while open_:
            total = sum(open_.values())
            capped = {n: limits[n] for n in open_ if limits[n] is not None and limits[n] < rest * open_[n] / total}
            raise_to = min(RAISE_AT_MOST * (self.seconds or left), rest / 2)
            capped |= {n: min(limits[n], raise_to) for n in open_ if limits[n] is not None and n not in capped
                       and rest * open_[n] / total < raise_to and len(open_) > 1}
            if not capped:
                out.update({n: rest * w / total for n, w in open_.items()})
                return out
            if len(capped) == len(open_):
                out.update(capped)
                break
            for n, limit in capped.items():
                out[n] = limit
                rest -= limit
                del open_[n]
        return self._with_surplus(out, left - sum(out.values()), first)

    def _with_surplus(self, given: dict[str, float], surplus: float, first: str | None) -> dict[str, float]:
        """given, with surplus added: to first up to what its maximum of rounds can use, then to
        all by their rounds' cost, each up to that ceiling; what none can use is shared past the
        ceilings (the rounds may run slower than last time, and no one else is left to take it)."""
        given = dict(given)
        if first in given:
            add = max(0.0, min(surplus, self.most.get(first, float("inf")) - given[first]))
            given[first] += add
            surplus -= add
        growing = {n for n in given if given[n] < self.most.get(n, float("inf"))}
        while surplus > 1e-9 and growing:
            total = sum(self.weights[n] for n in growing)
            spent = 0.0
            for n in sorted(growing):
                add = min(surplus * self.weights[n] / total, self.most.get(n, float("inf")) - given[n])
                given[n] += add
                spent += add
                if given[n] >= self.most.get(n, float("inf")) - 1e-9:
                    growing.discard(n)
            surplus -= spent
        if surplus > 1e-9:
            total = sum(self.weights[n] for n in given)
            for n in given:
                given[n] += surplus * self.weights[n] / total
        return given


def round_costs(stops: dict[str, dict]) -> dict[str, float]:
    """Seconds per round of all its cases of each experiment, from its newest stopping record
    (newest_stopping)."""
    found = {}
    for name, stop in stops.items():
        # A round of all its cases (round_s_full); an older result has only the median round.
        cost = stop.get("round_s_full") or stop.get("round_s_median")
        if cost:
            found[name] = float(cost)
    return found


def newest_seen(machine_id: str | None, design: dict, names: set[str], tries: int = 3) -> dict[str, float]:
    """How far each experiment's median case spread in the newest saved run on this machine that
    kept it (settings.noise_probe.seen: a budgeted run) and was measured by `design` (settings.design
    of a run's settings), looking at its newest `tries` runs of any of the experiments `names` at
    most (each is a whole result to read; a run of none of them, a launch, is passed on the index)."""
    from layertax.engine.store import history

    try:
        rows = [r for r in history.runs(machine_id=machine_id) if names & set(r["experiments"].split(","))]
    except Exception:   # noqa: BLE001 - no usable history: nothing kept
        return {}
    for row in rows[:tries]:
        try:
            doc = history.load(row)
        except Exception:   # noqa: BLE001 - a moved or damaged file: the next one may do
            continue
        seen = _seen(doc)
        if seen and settings.design(doc.get("settings") or {}) == design:
            return {name: float(value) for name, value in seen.items() if value}
    return {}


def _seen(doc: dict) -> dict:
    """What each experiment's median case spread in a saved run, as its noise probe kept it."""
    return ((doc.get("settings") or {}).get("noise_probe") or {}).get("seen") or {}


def seen_spreads(stops: dict[str, dict]) -> dict[str, float]:
    """How far each experiment's median case spread from round to round in its newest saved run
    (newest_stopping), where that run kept it."""
    return {name: float(stop["seen_spread"]) for name, stop in stops.items() if stop.get("seen_spread")}


def own_way_seconds(stops: dict[str, dict], names: set[str]) -> dict[str, float]:
    """The seconds each of the experiments measured their own way (names) took in its newest
    saved run (newest_stopping), where that run kept its window (cpu_activity.window_s)."""
    return {name: float(stop["window_s"]) for name, stop in stops.items() if name in names and stop.get("window_s")}


def round_cases(stops: dict[str, dict]) -> dict[str, int]:
    """How many cases each experiment's newest saved round cost (and need) was measured with."""
    return {name: len(stop["cases"]) for name, stop in stops.items() if stop.get("cases")}


def needs(stops: dict[str, dict]) -> dict[str, float]:
    """The seconds each experiment measured in its newest saved run, where it finished by itself
    before its share of the budget ran out: every case stopped precise or at the rule's maximum
    (not by the budget, a forecast past it, or an interruption: a run stopped by Ctrl-C in the
    middle of an experiment says nothing of what it needs)."""
    found = {}
    for name, stop in stops.items():
        cases = stop.get("cases") or {}
        if stop.get("allotted_s") and stop.get("rounds_s") and cases and \
                all(c.get("stopped") in ("precise", "max rounds") for c in cases.values()):
            found[name] = float(stop["rounds_s"])
    return found


def newest_stopping(machine_id: str | None, designs: dict[str, dict]) -> dict[str, dict]:
    """The stopping record of each experiment named in `designs` in its newest saved run on this
    machine measured by its design there (settings.design: what sets a round's cost and spread),
    with "seen_spread": how far its median case's per-round ratios spread in that run, where the
    run's noise probe kept it (settings.noise_probe.seen): what the next run's forecast starts from;
    and "window_s": how long it measured (its cpu_activity window). An experiment with no stopping
    record (unicode-io's matrix, which is not timed) gives its window alone. Only the newest
    LOOK_BACK runs are read: each is a whole result to load and check, and a design never run here
    (a first --quick run on a machine of many default runs) would otherwise read them all."""
    names = list(designs)
    from layertax.engine.store import history

    found: dict[str, dict] = {}
    try:
        rows = history.runs(machine_id=machine_id, limit=LOOK_BACK)
    except Exception:   # noqa: BLE001 - no usable history: every experiment gets the guess
        return found
    for row in rows:
        wanted = [n for n in row["experiments"].split(",") if n in names and n not in found]
        if not wanted:            # history.runs gave this machine's rows only
            continue
        try:
            doc = history.load(row)
        except Exception:   # noqa: BLE001 - a moved or damaged file: the next one may do
            continue
        seen, run_settings = _seen(doc), doc.get("settings") or {}
        for exp in doc["experiments"]:
            window = (exp.get("cpu_activity") or {}).get("window_s")
            if exp["name"] in wanted and (exp.get("stopping") or window) and \
                    settings.design(run_settings, exp["name"], exp.get("settings")) == designs[exp["name"]]:
                found[exp["name"]] = {**(exp.get("stopping") or {}), "seen_spread": seen.get(exp["name"]),
                                      "window_s": window}
        if len(found) == len(names):
            break
    return found
