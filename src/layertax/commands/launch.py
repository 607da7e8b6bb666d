"""`layertax launch`: the launch timer turned on any command, alone or against another.

A command that does not stamp itself gets the stamp library preloaded (launch/stamp.py),
with the empty-program controls that price the preload. A static binary ignores
LD_PRELOAD: then only spawn->exit is known and the comparison uses it. One typed object
runs from the timer's line to the table: Launch -> Sample -> Case -> ExperimentResult.
What the command line gives it is judged first, without this module (launch_args).
"""
from __future__ import annotations

import statistics
from pathlib import Path

from layertax import console as consoles
from layertax import paths
from layertax.commands import keeping
from layertax.engine.analysis import analyze, stats
from layertax.engine.measure.lock import Measuring
from layertax.launch import contention, descendants, ticks
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.launch.stamp import EMPTY, EMPTY_STAMPED, preload_cost, preload_env
from layertax.launch.timer import launch_cases
from layertax.progress import for_console
from layertax.result.model import Case, ExperimentResult
from layertax.units import part, ratio_interval


def run(commands: list[list[str]], timer_options: dict, ignore_failure: bool, stamp: bool, save: bool,
        allow_concurrent: bool, export_options: dict, verbose: bool = False) -> int:
    """commands: the command and the one to compare it with, as launch_args.judged gives them."""
    settings = launch_settings.LaunchSettings.from_options(**timer_options)
    exports = keeping.targets(export_options, save)
    tools = launch_tools.tools(paths.cache_dir())
    with Measuring(allow_concurrent) as claim:
        result = measure(commands, settings, tools, ignore_failure, stamp, for_console(consoles.console(stderr=True)))
        return keeping.finish_launch_command(result, settings.method("command"), save, exports, verbose, claim)


def _label(argv: list[str]) -> str:
    text = " ".join([Path(argv[0]).name, *argv[1:]])
    return text if len(text) <= 60 else text[:57] + "..."


# A command is called slower or faster than the first only when the interval of its paired
# ratio excludes 1 and the ratio lies outside 1 +- this band (docs/method/launch-timer.md says
# how often it cries wolf on two copies of one program).
NOISE_BAND = 0.01


def verdicts(cases: list[Case], baseline: str) -> dict[str, tuple[str, str]]:
    """Each compared command's verdict against the first (slower, faster or no different) and
    the line that says it, by case name."""
    out = {}
    for case in cases[1:]:
        ratio = (case.stats or {}).get("ratio")
        if not ratio:
            continue
        word = stats.verdict(ratio["median"], tuple(ratio["ci95"]), True, NOISE_BAND)
        how = f"{ratio_interval(ratio['median'], *ratio['ci95'])} of {baseline}, paired per round"
        out[case.name] = (word, f"{case.name}: {word} ({how}; 'no difference' unless the interval excludes 1 "
                                f"and the ratio is outside 1 ± {NOISE_BAND:.0%})")
    return out


def _describe_failure(status: str) -> str:
    if status.startswith("exit status"):
        return status + " (-i ignores a non-zero exit status)"
    return status


def _names(commands: list[list[str]]) -> list[str]:
    names: list[str] = []
    for argv in commands:
        name = _label(argv)
        while name in names:
            name += "'"
        names.append(name)
    return names


def measure(commands: list[list[str]], settings: launch_settings.LaunchSettings, tools: launch_tools.LaunchTools,
            ignore_failure: bool, stamp: bool, progress=None) -> ExperimentResult:
    """Launches the commands (the first is the baseline) and the preload controls; returns the
    analysed result: one typed object from the timer's lines to the table."""
    names = _names(commands)
    env = preload_env(tools) if stamp else ()
    targets = [launch_settings.Target(n, tuple(a), env, ignore_failure) for n, a in zip(names, commands)]
    if stamp:
        targets += [launch_settings.Target(EMPTY, (str(tools.empty),)),
                    launch_settings.Target(EMPTY_STAMPED, (str(tools.empty),), env)]
    launched = launch_cases(targets, settings, tools, progress, "launch", describe_failure=_describe_failure)
    cases, controls = [], []
    for t in targets:
        case = launched.cases[t.name]
        is_control = t.name in (EMPTY, EMPTY_STAMPED)
        case.layer = "control" if is_control else (
            "compared" if cases else ("baseline" if len(commands) > 1 else "the command"))
        (controls if is_control else cases).append(case)
    measured = [c for c in cases if c.measured]
    stamped = bool(measured) and all(s["main_ns"] is not None for c in measured for s in c.samples)
    metric = "main_ns" if stamped else "exit_ns"
    for case, summary in zip(cases, analyze.summaries(cases, names[0], metric).values()):
        case.stats = summary
    for case in cases:
        exits = case.values("exit_ns")
        if exits:
            case.extra["spawn_to_exit"] = hyperfine_summary(exits)
    if metric == "main_ns" and len(cases) > 1:
        # The answer compares the commands' start (spawn->main); what hyperfine times, to exit, can
        # differ far more (echo writes and flushes before it exits): each ratio on that too, paired.
        for case, summary in zip(cases, analyze.summaries(cases, names[0], "exit_ns").values()):
            if summary and summary.get("ratio"):
                case.extra["exit_ratio"] = summary["ratio"]
    said = verdicts(cases, names[0])
    for name, (word, _) in said.items():
        cases[names.index(name)].extra["verdict"] = word
    result = ExperimentResult(
        name="launch", title="process start-up", question="How long do these commands take to start?",
        unit="spawn->main" if stamped else "spawn->exit", baseline=names[0], cases=cases,
        extra={"metric": metric, "classic": None,
               "summary": "hyperfine",   # users of hyperfine expect mean +- sd, min ... max and runs
               "controls": [c.to_json() for c in controls], "interrupted": launched.interrupted,
               "launch": launched.run.record(), "cpu_activity": launched.cpu_activity, "classic_now": [],
               "warnings": stats.experiment_warnings(launched.cpu_activity)})
    cost = preload_cost(result.extra) if stamp else None
    if stamp:
        result.extra["preload_cost"] = cost
    result.extra["notes"] = [line for _, line in said.values()] + _notes(result, cost, stamp, stamped)
    result.extra["tables"] = [detail_table(cases)]
    return result


def hyperfine_summary(exit_ns: list[int]) -> dict:
    """hyperfine's line for one command, on what hyperfine times (spawn->exit): mean ± σ, min … max, runs."""
    return {"mean": statistics.fmean(exit_ns), "stdev": statistics.stdev(exit_ns) if len(exit_ns) > 1 else 0.0,
            "min": min(exit_ns), "max": max(exit_ns), "n": len(exit_ns)}


def detail_table(cases: list[Case]) -> dict:
    """Per launch, in numbers with their units (report/ writes them)."""
    rows = []
    for c in cases:
        if not c.samples:
            continue
        mains = c.values("main_ns")
        cpu = [s["utime_ns"] + s["stime_ns"] for s in c.samples]
        rows.append([c.name, min(mains) if mains else None, analyze.field_median(c, "main_ns"),
                     analyze.field_median(c, "exit_ns"), analyze.field_median(c, "minflt"),
                     analyze.field_median(c, "majflt"), statistics.median(cpu)])
    # Only the sum: the kernel keeps a process's CPU time to the ns but splits it between user
    # and system by the timer ticks that landed in each, and a launch that no tick landed in
    # is put all in user (kernel/sched/cputime.c, cputime_adjust: "If either stime or utime
    # are 0, assume all runtime is userspace"); /bin/true showed 574 µs user, 0 system. The
    # samples keep both as rusage gave them.
    return {"title": "per launch (medians; CPU time: user + system from rusage, not split: the kernel splits "
                     "it by timer ticks, which a short launch may never meet)",
            "columns": ["command", "min spawn->main", "spawn->main", "spawn->exit", "minor faults", "major faults",
                        "CPU time"],
            "units": [None, "ns", "ns", "ns", "count", "count", "ns"], "rows": rows}


def _notes(result: ExperimentResult, cost: dict | None, stamp: bool, stamped: bool) -> list[str]:
    notes = []
    if stamp:
        if cost:
            notes.append(f"the stamp preload adds {part(cost)} to an "
                         "empty program's spawn->exit (paired per round); spawn->main of the commands includes it")
        notes.append("spawn->main: from the clone that starts it until main is called (the preloaded stamp "
                     "library interposes __libc_start_main; every constructor included)")
    # Only when something was measured: a run interrupted before its first launch has no figures to qualify.
    if not stamped and any(c.measured for c in result.cases):
        notes.append("not every command stamped (a static binary ignores LD_PRELOAD; or --no-stamp): "
                     "figures are spawn->exit")
    view = result.to_json()     # the timer's record and every sample, as the note writers read a saved result
    return notes + ticks.notes(view) + contention.notes(view) + descendants.notes(view)
