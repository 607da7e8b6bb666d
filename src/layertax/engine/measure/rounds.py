"""The round plan of one experiment: which cases the next round runs, when to stop.

The scheduler asks it before each round (which cases are still going, is there time for
another round) and tells it when a round is done; at the stopping rule's checkpoints it
stops the cases whose figure is precise enough (stopping.py), and, under a deadline, the
ones whose forecast says they cannot get there before it, so that the rounds left go to the
cases cheapest to finish (and sets those going again once they are all that is left). At the
end it records, per case, the rounds it used, the precision it reached and why it stopped.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from layertax.engine.analysis import analyze, stats
from layertax.engine.measure import layout, noise_probe
from layertax.engine.measure.stopping import (CLASSIC_PRECISION, StoppingRule, at_checkpoint, half_widths,
                                              precision_reached)

# A case that can finish is taken to fit with the others still running while its forecast is
# within this many times the rounds the deadline leaves: a forecast from the half-width at 8 or
# 12 rounds is rough (that half-width is itself an estimate from a few rounds), and a case
# stopped for it keeps a wider interval than it might have had. Replayed on two recorded runs
# of callchain and tls (bench/stopping_replay.py at deadlines of 60 and 75 s, the eight means
# summed), 1.0, 1.5 and 2.5 finished 67, 71 and 59 ratios, and no giving way at all 40; 1.0
# suited callchain best and tls worst.
REACH_SLACK = 1.5


class RoundPlan:
    def __init__(self, exp, runs: list, rule: StoppingRule | None, deadline: float | None,
                 clock=time.monotonic, metric: str | None = None, pairing: str = "beside", baseline_bursts: int = 2,
                 forecast: str = "spread"):
        """runs: each case's run (its case, its samples so far, whether it is active); metric: the
        sample field the figures are read from (None: a kernel's ns per operation); pairing,
        baseline_bursts: how a round is laid out (layout.round_order), which sets what a round of
        some of the cases costs; forecast: what a case's need of rounds is foretold from, "spread"
        (_foreseen_widths) or "interval" (its interval's half-width alone; bench/stopping_replay.py
        --forecasts sets them side by side)."""
        self.rule, self.deadline, self.clock, self.metric = rule, deadline, clock, metric
        self.pairing, self.baseline_bursts = pairing, baseline_bursts
        # The seconds each case's measured bursts took, its process from start to end: a Java
        # case's costs ten times a C one's, and scan's passes run from 6 ms to 840 ms, so what a
        # round of some of the cases costs is theirs, not a share of the last round.
        self.burst_seconds: dict[str, list[float]] = {}
        self.burst_cost: dict[str, float] = {}     # the median of each case's burst_seconds
        self.runs = {r.case.name: r for r in runs}
        names = set(self.runs)
        # Each case's baseline (None for a baseline, or when its baseline is not in the run).
        self.baselines = {}
        for r in runs:
            base = exp.group_baseline(r.case.group)
            self.baselines[r.case.name] = base if base != r.case.name and base in names else None
        # The cases set beside the classic's figures: the experiment's answer. Not the one beside
        # the classic's own baseline figure (its row is 1.00x by construction: tls's rand), nor a
        # baseline (it runs while any case compared with it does).
        self.counterparts = {f.counterpart for f in exp.classic.figures
                             if f.label != exp.classic.baseline and f.counterpart in names
                             and self.baselines.get(f.counterpart)}
        self.stopped: dict[str, str] = {}    # case -> why: "precise" | "budget"
        self.rounds_done = 0
        self.round_seconds: list[float] = []
        # The rounds every case ran (before any stopped): what a round of the experiment costs,
        # which the budget shares by (budget.round_costs). Later rounds are shorter the
        # more cases stop, and a share taken from them would starve the next run.
        self.full_round_seconds: list[float] = []
        self.warmup_estimate: float | None = None   # a measured round's length guessed from the warm-up
        self.checked = False                 # whether the last finished round was a checkpoint
        self.forecast = forecast

    def going(self, run) -> bool:
        return run.case.name not in self.stopped

    def spent(self, name: str, seconds: float) -> None:
        """One measured burst of the case ran, taking `seconds` (its process, start to end)."""
        spent = self.burst_seconds.setdefault(name, [])
        spent.append(seconds)
        self.burst_cost[name] = float(np.median(spent))   # kept: a checkpoint reads it for every set of cases

    def _round_seconds(self, running: set[str], per_case: float) -> float:
        """What a round of these cases and the baselines they run with costs: each of its bursts
        (layout.burst_counts) at the median of the case's bursts so far, `per_case` where none of
        its bursts was timed."""
        names = running | {b for n in running if (b := self.baselines.get(n))}
        counts = layout.burst_counts([self.runs[n] for n in sorted(names) if n in self.runs], self.baselines,
                                     self.pairing, self.baseline_bursts)
        return sum(count * self._burst_seconds(n, per_case) for n, count in counts.items())

    def _burst_seconds(self, name: str, per_case: float) -> float:
        """What one burst of the case costs: the median of its bursts so far, else `per_case`."""
        return self.burst_cost.get(name, per_case)

    def _round_values(self) -> dict[str, dict[int, float]]:
        return {name: analyze.round_values({"samples": r.samples}, self.metric)
                for name, r in self.runs.items() if r.active}

    def _paired_bases(self, values: dict[str, dict[int, float]]) -> dict[str, dict[int, float] | None]:
        """The baseline values each active case's ratio pairs with (analyze.paired_bases), from
        every case's round values (_round_values)."""
        return analyze.paired_bases({name: {"samples": r.samples} for name, r in self.runs.items() if r.active},
                                    self.baselines, self.metric, values)

    def finished(self, rounds_done: int, seconds: float) -> None:
        """A measured round ended (rounds_done of them so far), taking `seconds`."""
        self.rounds_done = rounds_done
        self.round_seconds.append(seconds)
        if not self.stopped:
            self.full_round_seconds.append(seconds)
        self.checked = bool(self.rule and self.rule.checkpoint(rounds_done))
        if self.checked:
            values = self._round_values()
            ran = [name for name in values if name not in self.stopped]
            bases = self._paired_bases(values)
            factors = stats.ratio_factors(values, self.baselines, bases)
            widths = half_widths(values, self.baselines, bases, self.rule.confidence, factors=factors)
            self.stopped, going = at_checkpoint(values, self.baselines, self.rule, self.stopped, widths)
            per_case = seconds / max(len(ran), 1)
            # Only a deadline asks what a case needs (_out_of_reach); without one, nothing to foretell.
            spread = self.forecast == "spread" and self.deadline is not None
            foreseen = self._foreseen_widths(values, bases, factors, widths) if spread else widths
            for name in self._out_of_reach(values, going, widths, per_case, foreseen):
                self.stopped[name] = "out of reach"
            self._resume_if_idle(values, per_case)

    def _foreseen_widths(self, values: dict[str, dict[int, float]], bases: dict[str, dict[int, float] | None],
                         factors: dict[str, float], widths: dict[str, float | None]) -> dict[str, float | None]:
        """Each case's half-width as its rounds' spread foretells it, for the forecast of how many
        rounds it needs: z * sqrt(pi/2) * sigma * sqrt(factor) / sqrt(n) (noise_probe.median_half_width),
        sigma the robust spread of its per-round log ratios (noise_probe.spread: 1.4826 MAD), the
        factor its drift factor on the variance, as its interval is widened. bases, factors: the
        checkpoint's (_paired_bases, stats.ratio_factors). At 8
        rounds the interval itself stands on the extreme rounds (its ranks are the 1st and 8th,
        nearly), so a wild round or two made callchain's c-uring look ±12% and out of reach for
        good in a bare run of the 2-vCPU VM, where its rounds' spread (3.9%) foretells 30 to 40
        rounds. The smaller of the two is taken: the interval where it is already narrower. A
        baseline keeps its own width. Replayed on recorded runs (bench/stopping_replay.py
        --forecasts) tls finished more ratios at every deadline, callchain as many."""
        z = statistics.NormalDist().inv_cdf(0.5 + self.rule.confidence / 2)
        base_values = stats.bases_for(values, self.baselines, bases)
        foreseen = dict(widths)
        for name, width in widths.items():
            base = base_values.get(name) if self.baselines.get(name) else None
            if width is None or base is None:
                continue
            logs = np.log(stats.paired_ratios(values[name], base))
            if logs.size < 2:
                continue
            half = noise_probe.median_half_width(noise_probe.spread(logs), logs.size, z, factors.get(name) or 1.0)
            foreseen[name] = min(width, float(np.expm1(half)))
        return foreseen

    def _out_of_reach(self, values: dict[str, dict[int, float]], going: set[str],
                      widths: dict[str, float | None], per_case: float,
                      foreseen: dict[str, float | None] | None = None) -> set[str]:
        """The cases still going that give way, under a deadline, to cases cheaper to finish.

        A case at half-width h after n rounds needs about n (h / target)^2 rounds in all (the
        half-width narrows as the square root of the rounds). A case can finish when its need is
        within the rounds the time left gives with only it and its baseline running, each round
        at what their bursts have cost (_round_seconds; `per_case`, the last round over the
        processes it ran, for a case none of whose bursts was timed). While one that can finish
        does not fit (within REACH_SLACK) with every case still running, the case dearest to
        finish (its rounds needed times what a burst of it costs) stops, "out of reach". Where no
        case can finish, none stops: the rounds left then narrow every interval, which is the
        most they can do. A baseline a running case still needs never stops. A classic
        counterpart wider than CLASSIC_PRECISION is the experiment's answer: its target here is
        CLASSIC_PRECISION (it can finish when it can get there), and it gives way for no other
        case. widths: each case's half-width now (stopping.half_widths); foreseen: the half-width
        its need is foretold from (_foreseen_widths; widths where not given)."""
        if self.deadline is None or self.rule is None or per_case <= 0:
            return set()
        left = self.deadline - self.clock()
        if left < self._round_seconds(going, per_case):
            return set()                 # not another round of them: the budget stops them all (out_of_time)
        answers = {name for name in self.counterparts & going if widths.get(name) is not None
                   and widths[name] > CLASSIC_PRECISION}
        foreseen = widths if foreseen is None else foreseen
        need = {name: len(values[name]) * ((foreseen[name] / (CLASSIC_PRECISION if name in answers
                                                               else self.rule.precision)) ** 2 - 1)
                for name in going if foreseen.get(name) is not None}

        def rounds_for(name: str, round_seconds: float) -> float:
            """The rounds the time left gives the case at round_seconds a round, within its maximum."""
            return max(min(left / round_seconds, self.rule.max_rounds - len(values[name])), 0.0)

        # Strict on who can finish, lenient on whether it fits: a case stops for another only where
        # the other's forecast says plainly that it gains by it.
        finishable = {name for name in need if need[name] <= rounds_for(name, self._round_seconds({name}, per_case))}

        def all_fit(running: set[str]) -> bool:
            round_seconds = self._round_seconds(running, per_case)
            return all(need[f] <= REACH_SLACK * rounds_for(f, round_seconds) for f in finishable & running)

        def dearest(name: str) -> float:   # what its rounds to go cost of its own (its baseline's are shared)
            return need[name] * self._burst_seconds(name, per_case)

        running = set(need)
        out = set()
        for name in sorted((n for n in need if n not in answers), key=dearest, reverse=True):
            if not finishable or all_fit(running):
                break
            running.discard(name)
            out.add(name)
        return out - {b for n in running if (b := self.baselines.get(n))}

    def _resume_if_idle(self, values: dict[str, dict[int, float]], per_case: float) -> None:
        """Where every case that gave way to cheaper ones is all that is left, and the deadline
        leaves time for another round of them, they go on again with their baselines: the cases
        they gave way to are done, and the rounds left narrow their intervals, which is the most
        those rounds can do (a forecast from a few rounds is rough: of the cases that ran twice
        as long as a forecast at 8 rounds, one in ten ended at half the half-width it foresaw).
        At the next checkpoint _out_of_reach decides again. Kept stopped, they had ended the
        experiment with its share unspent (a clean clone's `make run` on the 2-vCPU VM: tls, the
        last, 13 s before its 66 s did). Not at the experiment's last round: none would follow."""
        if self.deadline is None or self.rule is None or self.rounds_done >= self.rule.max_rounds:
            return
        if any(self.baselines.get(name) for name in values if name not in self.stopped):
            return                       # a case still goes on
        resume = {name for name, why in self.stopped.items() if why == "out of reach"
                  and len(values.get(name, ())) < self.rule.max_rounds}
        resume |= {b for name in resume if (b := self.baselines.get(name))}
        if not resume or self.deadline - self.clock() < self._round_seconds(resume, per_case):
            return
        for name in resume:
            self.stopped.pop(name, None)

    def warmed_up(self, seconds: float, burst: int) -> None:
        """The warm-up round took `seconds` at one sample per case; a measured round takes `burst`.
        Only the progress total uses this guess (an upper bound: a case's start-up is not
        repeated per sample), never the decision to stop."""
        self.warmup_estimate = seconds * burst

    def rounds_that_fit(self) -> int:
        """How many more rounds the deadline leaves time for, at the last round's length (or the
        warm-up's guess before the first), and never fewer than the rule's minimum still owed."""
        length = self.round_seconds[-1] if self.round_seconds else self.warmup_estimate
        if self.deadline is None or not length or length <= 0:
            return 1 << 30
        fit = max(int((self.deadline - self.clock()) // length), 0)
        owed = self.rule.min_rounds - self.rounds_done if self.rule is not None else 0
        return max(fit, owed)

    def out_of_time(self) -> bool:
        """Whether the next round would end past the deadline (judged by the last round's length);
        every case still going is then stopped for the budget. The budget never cuts a case
        below the rule's minimum of rounds."""
        if self.deadline is None or not self.round_seconds:
            return False
        # Never below the rule's minimum: fewer rounds give no interval worth printing.
        if self.rule is not None and self.rounds_done < self.rule.min_rounds:
            return False
        if self.clock() + self.round_seconds[-1] <= self.deadline:
            return False
        for name, r in self.runs.items():
            if r.active and name not in self.stopped:
                self.stopped[name] = "budget"
        return True

    def record(self, interrupted: bool) -> dict:
        """Per case: rounds used, precision reached, why it stopped and what one of its bursts
        took (the median, its process from start to end); and the rule itself."""
        values = self._round_values()
        bases = self._paired_bases(values)
        factors = stats.ratio_factors(values, self.baselines, bases)
        cases = {}
        for name, rounds in values.items():
            base = self.baselines.get(name)
            why = self.stopped.get(name) or ("interrupted" if interrupted else
                                             "rounds fixed" if self.rule is None else "max rounds")
            # The half-width of the interval the case reports: the stricter one where it stopped
            # because of it (the rule's confidence), else the plain 95% one.
            level = self.rule.confidence if why == "precise" else stats.CONFIDENCE
            reached = precision_reached(rounds, bases.get(name) if base else None, level, factors.get(name))
            cases[name] = {"rounds": len(rounds), "precision": None if reached is None else round(reached, 5),
                           "met": None if self.rule is None or reached is None else reached <= self.rule.precision,
                           "stopped": why, "burst_s": round(self.burst_cost[name], 4) if name in self.burst_cost else None}
        return {"rule": self.rule.to_dict() if self.rule else None,
                "rounds_s": round(sum(self.round_seconds), 3),
                "round_s_median": float(np.median(self.round_seconds)) if self.round_seconds else None,
                "round_s_full": float(np.median(self.full_round_seconds)) if self.full_round_seconds else None,
                "cases": cases}
