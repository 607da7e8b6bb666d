"""`layertax run`: choose the experiments and cases, build the settings, run the session,
show and keep the result."""
from __future__ import annotations

from dataclasses import replace

from layertax import console as consoles
from layertax import experiments
from layertax.engine.measure.lock import Measuring
from layertax.engine.measure.settings import Settings
from layertax.errors import UsageError


def experiment_options(chosen, values: dict) -> dict:
    """{experiment: {option: value}} from run's experiment-owned options (named "<experiment>__<option>");
    an option given for an experiment that is not being run is a usage error, not silently ignored."""
    names = {e.name for e in chosen}
    by_experiment: dict[str, dict] = {}
    for key, value in values.items():
        owner, option = key.split("__", 1)
        given = value not in (None, False, ())
        if given and owner not in names:
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} belongs to the {owner} experiment, which is not being run (add it: "
                             f"`layertax run {owner} {flag} ...`)")
        by_experiment.setdefault(owner, {})[option] = value
    return by_experiment


def with_cases(chosen: list, case_globs: tuple[str, ...]) -> list:
    """The experiments that have a case matching one of the globs (all of them if none given)."""
    from layertax.engine.measure.scheduler import select_cases

    if not case_globs:
        return chosen
    matching = []
    for exp in chosen:
        try:
            select_cases(exp, case_globs)
            matching.append(exp)
        except UsageError:
            pass
    if not matching:
        raise UsageError(f"no case matches {', '.join(case_globs)} in {', '.join(e.name for e in chosen)}")
    return matching


def default_scope(chosen: list, named: bool, everything: bool, case_globs: tuple[str, ...]) -> tuple[list, dict]:
    """What a bare `layertax run` measures: each experiment without its extended families (a
    throughput matrix, per-runtime tables), so that the budget goes to the tables that answer
    the experiments' questions; and, by experiment, the line that says what was left out.
    Naming the experiment, --all or --case runs everything asked for."""
    if named or everything or case_globs:
        return chosen, {}
    scoped, left_out = [], {}
    for exp in chosen:
        extended = [g for g in exp.groups or () if g.extended]
        if not extended:
            scoped.append(exp)
            continue
        names = {g.name for g in extended}
        scoped.append(replace(exp, cases=tuple(c for c in exp.cases if c.group not in names)))
        sizes = ", ".join(f"{g.name} ({sum(c.group == g.name for c in exp.cases)} cases)" for g in extended)
        left_out[exp.name] = f"not run by default: {sizes}; `layertax run {exp.name}` or `--all` runs them"
    return scoped, left_out


def run(experiment_names: tuple[str, ...], case_globs: tuple[str, ...], settings_options: dict,
        own_options: dict, export_options: dict, save: bool, allow_concurrent: bool = False,
        verbose: bool = False, everything: bool = False) -> int:
    """The whole command; returns its exit code (130 interrupted, 1 a case failed). The engine, numpy
    and the history load after the arguments are judged: a typo is one line at once."""
    from layertax.engine.measure import instructions

    chosen = [experiments.get(n) for n in dict.fromkeys(experiment_names)] or list(experiments.registry().values())
    metric = settings_options.get("metric", "time")
    if metric == "instructions" and not instructions.available():
        raise UsageError("--metric instructions needs valgrind: install it (Debian: apt-get install valgrind)")
    settings = Settings.from_options(**settings_options, options=experiment_options(chosen, own_options))
    if metric == "instructions" and all(exp.measure is not None for exp in chosen):
        raise UsageError(f"--metric instructions does not apply to {', '.join(e.name for e in chosen)}: it counts "
                         "kernel loops, and these experiments measure their own way (whole process launches, a "
                         "correctness matrix)")
    chosen = with_cases(chosen, case_globs)
    chosen, left_out = default_scope(chosen, bool(experiment_names), everything, case_globs)
    from layertax.commands import keeping
    from layertax.engine.session import run_session
    from layertax.progress import for_console
    from layertax.report.breaking import print_hanging

    exports = keeping.targets(export_options, save)
    out, err = consoles.console(), consoles.console(stderr=True)
    with Measuring(allow_concurrent) as claim:
        session = run_session(chosen, settings, case_globs, save, progress=lambda: for_console(err),
                              note=lambda message: print_hanging(err, message, "dim", indent=0),
                              warn=lambda message: print_hanging(err, message, "yellow", indent=0),
                              busy=consoles.working,
                              claim=claim)
    measured = any(c.get("samples") for e in session.doc["experiments"] for c in e.get("cases", []))
    if session.interrupted and not measured:
        if session.path is not None and session.path.exists():
            session.path.unlink()   # nothing finished: no result to keep
        err.print("interrupted before any round finished: nothing to keep, nothing saved")
        return 130
    for exp in session.doc["experiments"]:
        if exp["name"] in left_out:
            exp["not_run"] = left_out[exp["name"]]
    keeping.keep(session.doc, out, save, exports, session.path, verbose=verbose)
    if session.interrupted:
        print_hanging(err, "interrupted: kept the rounds that finished (an unfinished round is left out)"
                      + ("; saved above" if save else ""), indent=0)
        return 130
    failed = session.failed_cases
    if failed:
        print_hanging(err, f"layertax: {len(failed)} case(s) failed: {', '.join(failed)}", indent=0)
        return 1
    return 0
