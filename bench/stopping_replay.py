"""Does the round plan spend an experiment's deadline on the cases it can finish? Replayed on
recorded rounds.

An experiment measured at fixed rounds (`layertax run EXPERIMENT --runs 56 --export-json
RUN.json`) keeps every case's rounds and, in its stopping record, what one burst of each case
took (`burst_s`). A replay draws as many of those rounds as the experiment's maximum under a
bare run's rule (56; encoding's 80, tls's 40, scan's 20) in blocks of consecutive rounds (ten
long on average, the machine's own drift kept) and runs the scheduler's round plan
(engine/measure/rounds.py) over them on a clock of its own: before each round it asks which
cases go on, adds their recorded samples of the drawn round, and moves the clock on by what
their bursts took (layout.burst_counts at each case's recorded burst_s); under the deadline it
stops cases "out of reach" and, at the end, records each case's precision as a run would.

Two plans are set side by side on the same draws:
  by cost     the plan is told what each burst took (RoundPlan.spent): a case's rounds cost what
              its bursts do, and the case dearest to finish in seconds gives way first
  uniform     it is told nothing: every process costs the last round over the processes it ran,
              and the case needing the most rounds gives way first
or, with --forecasts, two plans told what bursts cost whose need of rounds is foretold from
  interval    the half-width of the case's interval now
  spread      the spread of its rounds (RoundPlan._foreseen_widths), where that is narrower

Per experiment and deadline: the ratios within the target (±2%) and the classic counterparts
within ±5%, their mean over the replays and how often each plan did better, and the seconds used.

    .venv/bin/python bench/stopping_replay.py RUN.json [...] [--seconds 40,60] [--replays 200]

With --forecasts at --replays 100 and three deadlines it takes about 8 minutes a recorded run
of callchain and tls on the 2-vCPU EPYC VM (4 for each experiment alone, one on each CPU).
"""
from __future__ import annotations

import argparse
import sys
from types import SimpleNamespace

import numpy as np

from layertax import experiments
from layertax.engine.measure import layout
from layertax.engine.measure.rounds import RoundPlan
from layertax.engine.measure.settings import Settings
from layertax.engine.measure.stopping import CLASSIC_PRECISION, StoppingRule

from _common import block_rounds, finish, read_run   # this folder's

BLOCK = 10          # the mean length of a block of recorded rounds


def rule_of(exp_def) -> StoppingRule:
    """The default run's rule for the experiment: its target from its minimum of rounds to its
    maximum, taken as a bare run takes them (Settings.for_experiment: 56 rounds, encoding's 80,
    tls's 40, scan's 20)."""
    own = Settings().for_experiment(exp_def.defaults)
    return StoppingRule(own.precision, min_rounds=own.min_rounds, max_rounds=own.runs)


def recorded(paths: list[str]):
    """Each experiment of the runs measured at fixed rounds whose stopping record kept burst_s:
    (its result, each case's samples by round, each case's burst seconds, the settings it was
    measured with)."""
    for path in paths:
        doc = read_run(path, "stopping_replay")
        for exp in doc["experiments"]:
            stops = ((exp.get("stopping") or {}).get("cases")) or {}
            cost = {name: c.get("burst_s") for name, c in stops.items()}
            if not cost or None in cost.values():
                print(f"{path}: {exp['name']}: no burst_s in its stopping record (measured before it was kept)",
                      file=sys.stderr)
                continue
            rounds = {c["name"]: {} for c in exp["cases"] if c["samples"]}
            for c in exp["cases"]:
                for s in c["samples"]:
                    rounds[c["name"]].setdefault(s["round"], []).append(s)
            yield exp, rounds, cost, {**(doc.get("settings") or {}), **(exp.get("settings") or {})}


def replay(exp_def, rounds: dict[str, dict[int, list]], cost: dict[str, float], order: np.ndarray,
           seconds: float, told: bool, pairing: str, baseline_bursts: int,
           forecast: str = "interval") -> tuple[dict, float]:
    """One replay of the plan over the recorded rounds in `order`: its stopping record and the
    seconds it used. told: whether the plan is told what each burst cost; forecast: what it
    foretells a case's need of rounds from (RoundPlan.forecast)."""
    now = [0.0]
    runs = [SimpleNamespace(case=case, active=True, samples=[]) for case in exp_def.cases if case.name in rounds]
    plan = RoundPlan(exp_def, runs, rule_of(exp_def), seconds, clock=lambda: now[0], pairing=pairing,
                     baseline_bursts=baseline_bursts, forecast=forecast)
    for r, drawn in enumerate(order):
        going = [run for run in runs if plan.going(run)]
        if not going or (r >= 1 and plan.out_of_time()):
            break
        counts = layout.burst_counts(going, plan.baselines, pairing, baseline_bursts)
        took = 0.0
        for run in going:
            run.samples += [{**s, "round": r} for s in rounds[run.case.name].get(int(drawn), [])]
            took += counts[run.case.name] * cost[run.case.name]
            if told:
                for _ in range(counts[run.case.name]):
                    plan.spent(run.case.name, cost[run.case.name])
        now[0] += took
        plan.finished(r + 1, took)
    return plan.record(interrupted=False), now[0]


def tally(record: dict, baselines: dict[str, str | None], counterparts: set[str], target: float) -> tuple[int, int]:
    """The ratios within the target and the classic counterparts within CLASSIC_PRECISION."""
    cases = record["cases"]
    within = sum(1 for name, c in cases.items() if baselines.get(name) and c["precision"] is not None
                 and c["precision"] <= target)
    answers = sum(1 for name in counterparts if cases.get(name, {}).get("precision") is not None
                  and cases[name]["precision"] <= CLASSIC_PRECISION)
    return within, answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="results of `layertax run EXPERIMENT --runs N` with burst_s kept "
                        "(N at least the experiment's maximum, or the replays draw the same rounds twice)")
    parser.add_argument("--seconds", default="40,60", help="the experiment's deadlines to replay (comma-separated)")
    parser.add_argument("--replays", type=int, default=200, help="block-resampled replays per deadline")
    parser.add_argument("--forecasts", action="store_true",
                        help="set side by side, both told what bursts cost, a need of rounds foretold from the "
                             "interval's half-width and from the rounds' spread (RoundPlan.forecast)")
    args = parser.parse_args()
    plans = ({"interval": (True, "interval"), "spread": (True, "spread")} if args.forecasts
             else {"by cost": (True, "interval"), "uniform": (False, "interval")})
    rng = np.random.default_rng(11)
    for exp, rounds, cost, settings in recorded(args.runs):
        exp_def = experiments.get(exp["name"])
        length = min(len(r) for r in rounds.values())
        probe = RoundPlan(exp_def, [SimpleNamespace(case=c, active=True, samples=[]) for c in exp_def.cases
                                    if c.name in rounds], rule_of(exp_def), None)
        counts = layout.burst_counts(list(probe.runs.values()), probe.baselines, settings["pairing"],
                                     settings["baseline_bursts"])
        print(f"{exp['name']}: {len(rounds)} cases, {length} recorded rounds, a full round "
              f"{sum(counts[n] * cost[n] for n in rounds):.1f} s (from burst_s); "
              f"{len(probe.counterparts)} classic counterparts")
        print(f"  {'deadline':>8}  {'plan':9} {'within ±2%':>11} {'better':>7} {'classics ±5%':>13} {'s used':>7}")
        for seconds in (float(s) for s in args.seconds.split(",")):
            got = {label: [] for label in plans}
            for _ in range(args.replays):
                order = block_rounds(rng, length, probe.rule.max_rounds, BLOCK)
                for label, (told, forecast) in plans.items():
                    record, used = replay(exp_def, rounds, cost, order, seconds, told, settings["pairing"],
                                          settings["baseline_bursts"], forecast)
                    got[label].append((*tally(record, probe.baselines, probe.counterparts, probe.rule.precision), used))
            first, second = plans
            for label, other in ((first, second), (second, first)):
                mine, theirs = np.array(got[label]), np.array(got[other])
                better = float(np.mean(mine[:, 0] > theirs[:, 0]))
                print(f"  {seconds:>7.0f}s  {label:9} {mine[:, 0].mean():>11.1f} {better:>6.0%} "
                      f"{mine[:, 1].mean():>13.2f} {np.median(mine[:, 2]):>7.1f}")
    return 0


if __name__ == "__main__":
    finish(main)
