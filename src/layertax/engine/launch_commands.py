"""`layertax launch`: the launch timer turned on any command, alone or against another.

A command that does not stamp itself gets the stamp library preloaded, which
reports the time main is called (it interposes __libc_start_main). The preload has a cost of its own, so every run also launches
an empty program with and without it, interleaved with the commands, and
reports the difference. A static binary ignores LD_PRELOAD: then only
spawn->exit is known and the comparison uses it.
"""
from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from layertax.engine import analyze, launch, machine, stats
from layertax.errors import UsageError

EMPTY = "empty (no preload)"
EMPTY_STAMPED = "empty + stamp preload"


def resolve(argv: list[str], flag: str) -> list[str]:
    """argv with its program resolved on PATH; one string with spaces is split like a shell would (no shell runs)."""
    if not argv:
        raise UsageError(f"{flag}: no command given")
    if len(argv) == 1 and any(c.isspace() for c in argv[0]) and not Path(argv[0]).exists():
        argv = shlex.split(argv[0])
    program = argv[0]
    found = program if "/" in program else shutil.which(program)
    if not found or not Path(found).is_file():
        raise UsageError(f"command not found: {program}")
    if not os.access(found, os.X_OK):
        raise UsageError(f"not executable: {found}")
    return [str(Path(found).absolute()), *argv[1:]]


def preload_env(tools: launch.LaunchTools) -> tuple[tuple[str, str], ...]:
    existing = os.environ.get("LD_PRELOAD")
    value = f"{tools.stamp_lib}:{existing}" if existing else str(tools.stamp_lib)
    return (("LD_PRELOAD", value),)


def _label(argv: list[str]) -> str:
    text = " ".join([Path(argv[0]).name, *argv[1:]])
    return text if len(text) <= 60 else text[:57] + "..."


def _case(name: str, argv: list[str], samples: list[dict], status: str, reason: str | None, layer: str) -> dict:
    return {"name": name, "kernel": "launch", "layer": layer, "language": "-", "status": status, "reason": reason,
            "descriptor": None, "argv": argv, "samples": samples}


def measure(commands: list[list[str]], settings: launch.LaunchSettings, tools: launch.LaunchTools,
            ignore_failure: bool, stamp: bool, progress=None) -> dict:
    """Launches the commands (the first is the baseline) and the preload controls; returns an analyzed result."""
    names = []
    for argv in commands:
        name = _label(argv)
        while name in names:
            name += "'"
        names.append(name)
    env = preload_env(tools) if stamp else ()
    targets = [launch.Target(n, tuple(a), env, ignore_failure) for n, a in zip(names, commands)]
    if stamp:
        targets += [launch.Target(EMPTY, (str(tools.empty),)), launch.Target(EMPTY_STAMPED, (str(tools.empty),), env)]
    total = (settings.runs + settings.warmup) * len(targets)
    if progress:
        progress.start("launch", total)
    cpu_before = machine.cpu_times()
    try:
        run = launch.run(targets, settings, tools,
                         on_launch=(lambda line: progress.step(f"{line['variant']}")) if progress else None)
    finally:
        if progress:
            progress.finish()
    cases, controls = [], []
    for t in targets:
        samples = [launch.sample(x) for x in run.of(t.name)]
        failed = run.failures.get(t.name)
        if failed and failed.startswith("exit status"):
            failed += " (-i ignores a non-zero exit status)"
        is_control = t.name in (EMPTY, EMPTY_STAMPED)
        (controls if is_control else cases).append(
            _case(t.name, list(t.argv), samples, "failed" if failed else "ok", failed,
                  "control" if is_control else ("baseline" if not cases else "compared")))
    measured = [c for c in cases if c["samples"]]
    stamped = bool(measured) and all(all(s["main_ns"] is not None for s in c["samples"]) for c in measured)
    metric = "main_ns" if stamped else "exit_ns"
    result = {"name": "launch", "title": "process start-up", "metric": metric,
              "question": "How long do these commands take to start?",
              "unit": "spawn->main" if stamped else "spawn->exit", "baseline": names[0], "classic": None,
              "cases": cases, "controls": controls, "interrupted": run.interrupted, "launch": {"descriptor": run.descriptor},
              "cpu_activity": machine.cpu_activity(cpu_before, machine.cpu_times()), "notes": []}
    analyze.analyze(result)
    result["notes"] = _notes(result, stamp, stamped)
    result["tables"] = [_detail_table(result)]
    return result


def _detail_table(result: dict) -> dict:
    from layertax.report.format import duration

    rows = []
    for c in result["cases"]:
        if not c["samples"]:
            continue
        mins = [s["main_ns"] for s in c["samples"] if s["main_ns"] is not None]
        rows.append([c["name"], duration(min(mins) if mins else None), duration(analyze.field_median(c, "main_ns")),
                     duration(analyze.field_median(c, "exit_ns")), f"{analyze.field_median(c, 'minflt'):,}", f"{analyze.field_median(c, 'majflt'):,}",
                     duration(analyze.field_median(c, "utime_ns")), duration(analyze.field_median(c, "stime_ns"))])
    return {"title": "per launch (medians; user and system time from rusage, at the kernel's tick resolution)",
            "columns": ["command", "min spawn->main", "spawn->main", "spawn->exit", "minor faults", "major faults",
                        "user", "system"], "rows": rows}


def preload_cost(result: dict) -> dict | None:
    """What the stamp preload adds to an empty program's spawn->exit, paired per round."""
    by = {c["name"]: c for c in result.get("controls", [])}
    if EMPTY not in by or EMPTY_STAMPED not in by:
        return None
    plain = analyze.round_values(by[EMPTY], "exit_ns")
    loaded = analyze.round_values(by[EMPTY_STAMPED], "exit_ns")
    diffs = [loaded[r] - plain[r] for r in plain if r in loaded]
    if not diffs:
        return None
    lo, hi, _ = stats.median_ci(diffs)
    return {"median_ns": float(sorted(diffs)[len(diffs) // 2]), "ci95": [lo, hi], "rounds": len(diffs)}


def _notes(result: dict, stamp: bool, stamped: bool) -> list[str]:
    from layertax.report.format import duration

    notes = []
    if stamp:
        cost = preload_cost(result)
        result["preload_cost"] = cost
        if cost:
            notes.append(f"the stamp preload adds {duration(cost['median_ns'])} [{duration(cost['ci95'][0])}, "
                         f"{duration(cost['ci95'][1])}] to an empty program's spawn->exit (paired per round); "
                         "spawn->main of the commands includes it")
        notes.append("spawn->main: posix_spawn until main is called (the preloaded stamp library interposes "
                     "__libc_start_main; every constructor included)")
    if not stamped:
        notes.append("not every command stamped (a static binary ignores LD_PRELOAD; or --no-stamp): "
                     "figures are spawn->exit")
    return notes
