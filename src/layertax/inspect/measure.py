"""The measured picture: start-up timed with the stamp preload, lazy and LD_BIND_NOW=1, plus controls.

Targets, launched round by round in a shuffled order by the C launch timer:
  lazy       the program as the user runs it, stamp library preloaded
  now        the same with LD_BIND_NOW=1: every PLT slot bound before main
  empty      an empty dynamic program with the same preload (the floor: exec,
             ld.so, libc and the stamps themselves)
  bare       the empty program without the preload (what the preload costs)
  reference  (with a prediction) a generated loadtime program the cost model was
             fitted on, with the preload: how fast this machine runs it today
             against the day of the sweep calibrates the prediction
Every launch reports spawn->first constructor, ->last shared-object
constructor, ->main and ->exit (see native/stamp.c and first.c). Then glibc's
view: a few LD_DEBUG=statistics launches of each, and one LD_DEBUG=files
launch that shows the order the constructors really ran in.
"""
from __future__ import annotations

import os
import signal
import statistics

from layertax.engine import machine
from layertax.engine.analysis import analyze
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.elf import loaderview
from layertax.launch.timer import launch_cases
from layertax.launch.stamp import EMPTY, EMPTY_STAMPED, preload_cost, preload_env
from layertax.inspect.whole import FIX_PREFIX

LAZY = "lazy"
VS_PREFIX = "vs: "
NOW = "now (LD_BIND_NOW=1)"
EMPTY_STATIC = "empty, static"
REFERENCE = "reference (generated, for the model)"
CONTROLS = (EMPTY, EMPTY_STAMPED, EMPTY_STATIC, REFERENCE)
# LD_DEBUG=statistics launches per variant: as many as the timed ones, and at least 9 (with 5
# a loaded moment moved the split once); more readings make the parts of the split add up to
# spawn->main more closely (bench/inspect_accuracy.py measures it).
MIN_STATS_LAUNCHES = 9


def stats_launches(settings: launch_settings.LaunchSettings) -> int:
    return max(MIN_STATS_LAUNCHES, settings.runs)


def vs_name(argv: list[str]) -> str:
    """The case name of a second program (--vs): "vs: " and its name with its arguments, short."""
    return (VS_PREFIX + " ".join([os.path.basename(argv[0]), *argv[1:]]))[:60]


def targets(argv: list[str], dynamic: bool, tools: launch_tools.LaunchTools, reference: str | None = None,
            fixes: tuple = (), vs: list[str] | None = None, until_output: bool = False) -> list[launch_settings.Target]:
    """The program, its variants, the fixes to try (inspect/runtime: each timed as the program
    is, its exit status checked: a fix that breaks the program is reported, not priced) and
    the controls; until_output: the program's own variants are timed to their first output too."""
    env = preload_env(tools, phases=True) if dynamic else ()
    out = until_output
    tried = [launch_settings.Target(f"{FIX_PREFIX}{f.name}", f.argv, (*env, *f.env), False, out) for f in fixes]
    if vs:        # the second program, with the same preload: its own split beside the first's
        tried.insert(0, launch_settings.Target(vs_name(vs), tuple(vs), env, True, out))
    if not dynamic:  # LD_PRELOAD and LD_BIND_NOW mean nothing to a static program
        return [launch_settings.Target(LAZY, tuple(argv), (), True, out), *tried]
    return [launch_settings.Target(LAZY, tuple(argv), env, True, out),
            launch_settings.Target(NOW, tuple(argv), (*env, ("LD_BIND_NOW", "1")), True, out), *tried,
            launch_settings.Target(EMPTY_STAMPED, (str(tools.empty),), env),
            launch_settings.Target(EMPTY, (str(tools.empty),))] + (
            [launch_settings.Target(EMPTY_STATIC, (str(tools.empty_static),))] if tools.empty_static else []) + (
            [launch_settings.Target(REFERENCE, (reference,), env)] if reference else [])


def describe_failure(status: str) -> str:
    """The timer's one-line failure, with the signal's name."""
    if status.startswith("killed by signal "):
        try:
            number = int(status.rsplit(" ", 1)[1])
            return f"{status} ({signal.Signals(number).name}): the program crashed while starting"
        except ValueError:
            return status
    if status.startswith("timed out"):
        return (f"{status}: does it wait for input or a terminal? (stdin is /dev/null; give its arguments "
                "after --, or raise --timeout)")
    return status


def measure(argv: list[str], dynamic: bool, settings: launch_settings.LaunchSettings, tools: launch_tools.LaunchTools,
            progress=None, reference: str | None = None, fixes: tuple = (), vs: list[str] | None = None,
            until_output: bool = False) -> dict:
    chosen = targets(argv, dynamic, tools, reference, fixes, vs, until_output)
    caveats = {f"{FIX_PREFIX}{f.name}": f.caveat for f in fixes}
    stats_targets = [t for t in chosen if t.name in (LAZY, NOW, EMPTY_STAMPED) or t.name.startswith(VS_PREFIX)] \
        if dynamic else []
    debugged = stats_launches(settings)
    views: dict = {"statistics": {}, "order": {"status": "none", "order": []}}

    def glibc_views(run: timer.LaunchRun) -> None:
        live = [t for t in stats_targets if t.name not in run.failures]
        if not live:
            return
        tsc = timer.tsc_per_ns(tools)
        # One progress step per debugged launch: with 30 of python3's three variants, and more
        # for a slower program, this phase is seconds long.
        on_launch = (lambda launch: progress.step(f"LD_DEBUG=statistics {launch.variant} round {launch.round + 1}")
                     ) if progress else None
        views["statistics"] = loaderview.statistics(live, tools, settings, tsc, machine.libc_version(),
                                                    launches=debugged, wall_key="first_init_ns",
                                                    on_launch=on_launch)
        if progress:
            progress.step("LD_DEBUG=files")
        if LAZY not in run.failures:
            views["order"] = loaderview.init_order(chosen[0], tools, settings)

    # Interrupted during glibc's views: the launches that finished are kept, the views are missing.
    launched = launch_cases(chosen, settings, tools, progress, "inspect",
                            extra_steps=len(stats_targets) * debugged + 1, then=glibc_views,
                            describe_failure=describe_failure)
    cases, controls = [], []
    for t in chosen:
        case = launched.cases[t.name].to_json()
        case["loader"] = views["statistics"].get(t.name, [])
        if t.name in CONTROLS:
            case["layer"] = "control"
            controls.append(case)
        else:
            case["layer"] = (("as the user runs it, stamp preloaded" if dynamic else "as the user runs it")
                             if t.name == LAZY
                             else "every PLT slot bound before main (no relink needed)" if t.name == NOW
                             else "the program it is compared with (--vs)" if t.name.startswith(VS_PREFIX)
                             else "a fix tried, its start-up timed as the program's")
            if t.name in caveats:
                case["caveat"] = caveats[t.name] or None
                case["group"] = "fixes"     # priced in their own table, on spawn->exit
            cases.append(case)
    lazy = cases[0]
    stamped = bool(lazy["samples"]) and all(s["main_ns"] is not None for s in lazy["samples"])
    result = {"name": "inspect", "title": "start-up of " + os.path.basename(argv[0]), "metric": "main_ns" if stamped else "exit_ns",
              "unit": "spawn->main" if stamped else "spawn->exit", "baseline": LAZY, "classic": None,
              "question": f"Why does {os.path.basename(argv[0])} take this long to reach main, and what would fix it?",
              "cases": cases, "controls": controls, "interrupted": launched.interrupted,
              "launch": {**launched.run.record(), "stamp": "native/stamp.c (preloaded) and native/first.c"},
              "init_order": views["order"], "cpu_activity": launched.cpu_activity, "notes": [],
              "groups": [{"name": "fixes", "title": "fixes tried", "baseline": LAZY, "show_cases": False}] if fixes else []}
    result = analyze.analyzed(result)
    result["preload_cost"] = preload_cost(result) if dynamic else None
    return result


def median_reading(case: dict, key: str) -> float | None:
    values = [r[key] for r in case.get("loader", []) if r.get("status") == "ok" and r.get(key) is not None]
    return float(statistics.median(values)) if values else None
