"""The order of one round: which bursts run, in which order, and which baseline burst each
case's ratio divides by.

Two pairings (Settings.pairing):

- "beside": each case's burst runs right next to a burst of its baseline, one baseline burst
  between two of its cases (case, baseline, case), the units shuffled through the round. A
  case's ratio in the round divides by the baseline burst beside it. Neighbouring processes
  differ far less than processes a round apart: in encoding's main table a case and its
  baseline a process each, one right after the other, spread 2.2-4.2% from pair to pair, and
  with eight other cases' processes between them 6.4-11.8% (bench/abab_kernels.py --gap 8).
- "round": every case and its baseline once, in a shuffled order, and each baseline serving
  at least REPEAT_FROM cases `baseline_bursts - 1` more times; a ratio divides by the
  baseline's round median.

A burst is (its case's run, its slot, the slot of the baseline burst beside it or None); the
slot is its place in the round, kept with its samples, so that the analysis finds the burst a
ratio pairs with (analyze.beside_values).
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

# A baseline runs its extra bursts ("round" pairing) only in a round where it serves at least
# this many cases: n cases and their baseline cost n + 1 bursts, and one more buys the
# baseline's half of each ratio's variance halved; with case and baseline equally noisy that is
# (n + 2) / (n + 1) x 3/4 of the variance per unit of time, a gain from 3 cases on (a `--case`
# run of one or two pays more than it gets).
REPEAT_FROM = 3


@dataclass(frozen=True)
class Burst:
    run: object                 # the scheduler's CaseRun
    slot: int                   # its place in the round, from 0
    beside: int | None = None   # the slot of the baseline burst its ratio divides by

    def place(self) -> dict[str, int]:
        """What each of its samples keeps of it: its slot, and the slot it divides by where it has one."""
        return {"slot": self.slot} if self.beside is None else {"slot": self.slot, "beside": self.beside}


def baseline_repeats(order: list, baselines: dict[str, str | None], bursts: int) -> list:
    """"round" pairing: the baselines' extra bursts of a round (bursts - 1 each, for the
    baselines that serve at least REPEAT_FROM of its cases)."""
    served = Counter(b for b in (baselines.get(r.case.name) for r in order) if b)
    return [r for r in order if served[r.case.name] >= REPEAT_FROM for _ in range(bursts - 1)]


def _beside_units(going: list, baselines: dict[str, str | None], rng: random.Random) -> list[list]:
    """The round's units for "beside" pairing: [case, baseline, case] (or a lone case with its
    baseline on a side drawn at random), and each case that has no baseline here alone; a
    baseline none of whose cases goes on runs alone."""
    by_name = {r.case.name: r for r in going}
    cases_of: dict[str, list] = {}
    units: list[list] = []
    for r in going:
        base = baselines.get(r.case.name)
        if base and base in by_name:
            cases_of.setdefault(base, []).append(r)
    for r in going:
        base = baselines.get(r.case.name)
        if not (base and base in by_name) and r.case.name not in cases_of:
            units.append([r])
    for base, cases in cases_of.items():
        rng.shuffle(cases)
        for i in range(0, len(cases), 2):
            pair = cases[i:i + 2]
            if len(pair) == 2:
                units.append([pair[0], by_name[base], pair[1]])
            else:
                units.append([pair[0], by_name[base]] if rng.random() < 0.5 else [by_name[base], pair[0]])
    return units


def round_order(going: list, baselines: dict[str, str | None], pairing: str, baseline_bursts: int,
                rng: random.Random) -> list[Burst]:
    """The bursts of one measured round, in the order they run. going: the runs of the cases
    that run this round; baselines: each case's baseline (None for a baseline, or when its
    baseline is not in the run)."""
    if pairing == "round":
        order = list(going) + baseline_repeats(going, baselines, baseline_bursts)
        rng.shuffle(order)
        return [Burst(r, slot) for slot, r in enumerate(order)]
    units = _beside_units(list(going), baselines, rng)
    rng.shuffle(units)
    bursts: list[Burst] = []
    for unit in units:
        start = len(bursts)
        base_at = next((start + i for i, r in enumerate(unit) if baselines.get(r.case.name) is None
                        and len(unit) > 1), None)
        for i, r in enumerate(unit):
            slot = start + i
            bursts.append(Burst(r, slot, base_at if slot != base_at else None))
    return bursts


def burst_counts(going: list, baselines: dict[str, str | None], pairing: str, baseline_bursts: int) -> Counter:
    """How many bursts each case runs in a round of these cases, by case name: a round laid out
    as round_order lays it (the order does not change the counts)."""
    if pairing == "round":
        order = list(going) + baseline_repeats(going, baselines, baseline_bursts)
    else:
        order = [r for unit in _beside_units(list(going), baselines, random.Random(0)) for r in unit]
    return Counter(r.case.name for r in order)


def bursts_per_round(going: list, baselines: dict[str, str | None], pairing: str, baseline_bursts: int) -> int:
    """How many bursts a round of these cases runs (for the progress line's total)."""
    return sum(burst_counts(going, baselines, pairing, baseline_bursts).values())
