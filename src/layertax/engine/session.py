"""One `layertax run`: build every kernel, describe the machine, measure each experiment the
way it asks (its kernels interleaved by the scheduler, counted under callgrind, or its own
way), and save after every experiment so that an interruption or a crash keeps what finished.

The session prints nothing: it tells the caller what happens through note(message) and a
progress sink per experiment, and hands back the document."""
from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from layertax import paths
from layertax.engine import machine, measuring_code
from layertax.engine.builder import kernels
from layertax.engine.measure import instructions
from layertax.engine.measure.lock import Measuring
from layertax.engine.measure import noise_probe
from layertax.engine.measure import budget as budgets
from layertax.engine.measure.scheduler import Scheduler
from layertax.engine.measure.settings import Settings, design
from layertax.engine.analysis import between_runs
from layertax.engine.store import results, runs
from layertax.engine.store.recent import Recent
from layertax.errors import LayertaxError
from layertax.experiment import Experiment, ProgressSink


@dataclass
class Session:
    doc: dict                  # the run's result document
    interrupted: bool
    path: Path | None          # where it was saved (None: not saved)

    @property
    def failed_cases(self) -> list[str]:
        return [c["name"] for e in self.doc["experiments"] for c in e["cases"] if c["status"] == "failed"]


def run_session(chosen: list[Experiment], settings: Settings, case_globs: tuple[str, ...], save: bool,
                progress: Callable[[], ProgressSink], note: Callable[[str], None],
                warn: Callable[[str], None] | None = None,
                busy: Callable[[str], contextlib.AbstractContextManager] = lambda message: contextlib.nullcontext(),
                claim: Measuring | None = None) -> Session:
    """Measures the chosen experiments; the document is saved after each one when save is set
    (the caller records it in the history and exports it once the run ends)."""
    # busy(message) is shown only when something is not cached yet (kernels.prepare says what).
    prepared = kernels.prepare(chosen, paths.cache_dir(), case_globs, busy)
    fingerprint = machine.fingerprint()
    doc = results.new_document(None, fingerprint)
    keeper = _ProgressSaver(save, warn or note, [e.name for e in chosen])
    session = _measure(chosen, settings, case_globs, prepared, doc, keeper, progress, note, warn, claim, busy)
    if session.interrupted:          # the user wants out: the comparison is no reason to wait
        return session
    if not any(_has_ratios(exp) for exp in session.doc["experiments"]):
        return session               # instruction counts, launches alone: nothing to set beside
    # After the clock has stopped: reading the history takes a few seconds, and is said. Ctrl-C
    # (or SIGTERM, raised the same way) there leaves the run as measured, kept like an interrupted one.
    try:
        with busy("setting each ratio beside this machine's recent runs"):
            beside_recent_runs(session.doc)
    except KeyboardInterrupt:
        session.interrupted = True
    return session


class _ProgressSaver:
    """Saves the run after every experiment, so that a crash or a SIGKILL keeps what finished.
    A save that fails (the disk filled, the directory went read-only) is said once and not
    tried again: the run goes on, and its end (commands/keeping.py) keeps it or says where."""

    def __init__(self, wanted: bool, warn: Callable[[str], None], experiments: list[str]):
        # The first save names the file, after the first experiment: for every experiment the run
        # measures, not that one alone (a bare run's file had been named "…-callchain.json").
        self.wanted, self.warn, self.path, self.experiments = wanted, warn, None, experiments

    def save(self, doc: dict) -> None:
        if not self.wanted:
            return
        try:
            self.path = runs.save_file(doc, self.path, self.experiments)
        except (OSError, LayertaxError) as e:
            self.wanted = False
            self.warn(f"layertax: cannot save the run as it goes ({getattr(e, 'strerror', None) or e}); it is "
                      "measured on and kept at the end")


# Over the budget by more than this, a run's least is said before it starts.
OVER_BUDGET = 1.1


def _over_budget(budget: budgets.Budget, min_rounds: int) -> str | None:
    """Where the least this run can measure (the rule's minimum of rounds of every case, and the
    experiments measured their own way, as they took here last time) is past the budget: said
    before measuring, not only in the method line after, since the user asked for that length."""
    if not budget.seconds or not budget.floor_s or budget.floor_s <= budget.seconds * OVER_BUDGET:
        return None
    return (f"the budget: {min_rounds} rounds of every case, the fewest a run gives, took about "
            f"{budget.floor_s / 60:.1f} min here in the last runs, more than the {budget.seconds / 60:.1f} min "
            f"budget; this run measures at least that long")


def _probe(budget: budgets.Budget, settings, note, busy, usual: dict[str, float] | None = None) -> dict | None:
    """The machine's noise now (noise_probe.py) and what the budget's rounds reach on it, said
    before the first round; None where the probe could not run (said, and the run goes on). It
    takes seconds with nothing to count, so busy() shows it (a spinner, or a line off a terminal)."""
    try:
        with busy("measuring this machine's noise (a few seconds)"):
            probe = noise_probe.measure(settings.cpu)
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
        note(f"noise probe not run: {e}")
        return None
    rule = settings.stopping_rule()          # a precision is set: rounds are driven by it
    per_round = sum(budget.weights.values())
    rounds = int(budget.shareable() // per_round) if per_round else rule.max_rounds
    rounds = max(rule.min_rounds, min(rule.max_rounds, rounds))
    probe["rounds"] = rounds
    if usual:
        probe["expected"] = usual            # each experiment's spread in its newest run here
    probe["forecast"] = noise_probe.reachable(noise_probe.starting_spread(probe["spread"], usual), rounds)
    note(noise_probe.forecast(probe, rounds, settings.precision, usual, budget.seconds))
    return probe


def _beside_the_probe(probe: dict | None, result: dict, target: float | None, note) -> None:
    """An experiment's rounds set beside the noise probe when it ends (noise_probe.surprise): the
    spread its median case showed is kept with the probe, and said where the probe fell far short."""
    found = noise_probe.surprise(probe, result, target) if probe and target else None
    if found is None:
        return
    seen, said = found
    probe.setdefault("seen", {})[result["name"]] = round(seen, 5)
    if said:
        note(said)


def _measure(chosen, settings, case_globs, prepared, doc, keeper, progress, note, warn, claim, busy) -> Session:
    fingerprint = doc["machine"]
    scheduler = Scheduler(settings, progress(), note=note)
    doc["settings"] = settings.to_dict()
    counting_instructions = settings.metric == "instructions"
    if counting_instructions:
        doc["settings"]["method"] = instructions.METHOD
    interrupted = False
    scheduled = [e for e in chosen if e.measure is None]
    seconds = settings.budget_s if settings.metric == "time" else None
    run_settings = settings.to_dict()
    # The experiments measured their own way are looked up too: what they took is kept for them.
    own_way_names = {e.name for e in chosen if e.measure is not None}
    own_settings = {e.name: settings.for_experiment(e.defaults) for e in chosen}   # each with its own defaults
    designs = {name: design(run_settings, name, asdict(own)) for name, own in own_settings.items()}
    stops = budgets.newest_stopping(fingerprint.get("machine_id"), designs) if seconds else {}
    reserved = {} if case_globs else budgets.own_way_seconds(stops, own_way_names)   # --case runs fewer
    stops = {name: stop for name, stop in stops.items() if name not in own_way_names}
    costs = budgets.round_costs(stops)
    rule = settings.stopping_rule()
    budget = budgets.Budget(seconds, scheduled, case_globs, costs, needs=budgets.needs(stops),
                            min_rounds=rule.min_rounds if rule else 0,
                            max_rounds={e.name: own_settings[e.name].runs for e in scheduled} if rule else None,
                            round_cases=budgets.round_cases(stops), reserved=reserved)
    doc["settings"]["round_costs_from_history"] = costs
    doc["settings"]["needs_from_history"] = budget.needs
    doc["settings"]["reserved_from_history"] = reserved
    doc["settings"]["budget_s"] = budget.seconds
    said = _over_budget(budget, rule.min_rounds) if rule else None
    if said:
        note(said)
    if seconds and scheduled and settings.precision:      # a precision to forecast, rounds driven by it
        doc["settings"]["noise_probe"] = _probe(budget, settings, note, busy, budgets.seen_spreads(stops))
    for exp in chosen:
        kmap = {k.name: prepared[(exp.name, k.name)] for k in exp.kernels}
        own_way = exp.hook("measure")
        if own_way is not None:  # measured its own way (e.g. process launches), not by kernels
            if counting_instructions:
                (warn or note)(f"{exp.name}: measured its own way, not by kernel loops; --metric instructions does not "
                     f"apply (see `layertax {exp.name} --help`)")
                continue
            cpu_before = machine.cpu_times()
            result, interrupted = own_way(exp, settings, progress(), paths.cache_dir(), case_globs)
            # What the CPUs did while it ran, and for how long: the next budgeted run keeps that time
            # for it (budget.own_way_seconds). loadtime's result brings its launches' own; unicode-io's
            # matrix, which is not timed, brings none.
            result.setdefault("cpu_activity", machine.cpu_activity(cpu_before, machine.cpu_times()))
            budget.ran(exp.name)
        elif counting_instructions:
            result, interrupted = instructions.measure_experiment(exp, kmap, case_globs, settings, progress(),
                                                                  note=note)
        else:
            deadline = budget.deadline_for(exp)
            result, interrupted = scheduler.run_experiment(exp, kmap, case_globs, deadline)
            if deadline is not None:
                result["stopping"]["allotted_s"] = round(deadline - budget.allotted_at, 3)
            _beside_the_probe(doc["settings"].get("noise_probe"), result, settings.precision, note)
        result["code"] = measuring_code.digest(exp.package_dir)   # which runs it may be set beside
        doc["experiments"].append(result)
        if claim is not None:   # another layertax that started meanwhile is seen here
            doc["concurrent"] = claim.record()
        keeper.save(doc)      # after every experiment, so an interruption or crash keeps what finished
        if interrupted:
            break
    doc["complete"] = not interrupted
    doc["settings"]["measured_s"] = round(time.monotonic() - budget.started, 1)
    return Session(doc, interrupted, keeper.path)


def beside_recent_runs(doc: dict) -> None:
    """Each ratio set beside the same case's in this machine's recent runs (between_runs.py)."""
    recent = Recent(doc["machine"].get("machine_id"), doc.get("layertax_version"), between_runs.WINDOW - 1)
    doc["experiments"] = [between_runs.marked(exp, recent.experiments(doc, exp)) if _has_ratios(exp) else exp
                          for exp in doc["experiments"]]


def _has_ratios(exp: dict) -> bool:
    return any((c.get("stats") or {}).get("ratio") for c in exp["cases"])
