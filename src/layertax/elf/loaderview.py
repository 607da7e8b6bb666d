"""glibc's own view of a launch: LD_DEBUG=statistics and LD_DEBUG=files, run through the launch timer.

Each debugged launch is timed like any other, so every statistics reading can
be checked against the wall clock of the same process (ldstats.tick_scale).
The debug output goes to files in a private directory, one per process
(glibc appends the pid), matched to the launch by the pid the timer reports.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable

from layertax.engine import machine
from layertax.launch import timer
from layertax.launch.protocol import Launch
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.elf import ldstats
from layertax.scratch import MEMORY_DIRS, private_dir

# ld.so opens its LD_DEBUG_OUTPUT file while it starts, inside the time it reports; on a disk
# that costs more, and more run after run, than in a tmpfs (docs/method/loader-views.md). So the
# debug output goes to a private directory in a memory-backed filesystem when there is one,
# unless TMPDIR says where temporary files go.


def output_root() -> str | None:
    """Where the debugged launches' private output directory is made (None: the temp dir)."""
    if os.environ.get("TMPDIR"):
        return None
    for d in MEMORY_DIRS:
        if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK) and machine.filesystem_of(d) == "tmpfs":
            return d
    return None


def _debug_run(targets: list[launch_settings.Target], what: str, tools: launch_tools.LaunchTools,
               lsettings: launch_settings.LaunchSettings, launches: int, tmp: Path,
               on_launch: Callable[[Launch], None] | None = None) -> timer.LaunchRun:
    debug_targets = [launch_settings.Target(t.name, t.argv, (*t.env, ("LD_DEBUG", what),
                                                    ("LD_DEBUG_OUTPUT", f"{tmp}/{i}")), t.ignore_status)
                     for i, t in enumerate(targets)]
    settings = launch_settings.LaunchSettings(runs=launches, warmup=0, warmup_time=0.0, seed=lsettings.seed, timeout=lsettings.timeout,
                                     cpu=lsettings.cpu, raise_priority=lsettings.raise_priority)
    run = timer.run(debug_targets, settings, tools, on_launch=on_launch)
    if run.interrupted:
        # timer.run takes Ctrl-C (and SIGTERM) to stop the timer; here it must stop the command
        # too, not hand back fewer readings as if the views were complete.
        raise KeyboardInterrupt
    return run


def _output_of(tmp: Path, index: int, launch: Launch) -> str | None:
    path = tmp / f"{index}.{launch.pid}"
    return path.read_text(errors="replace") if path.is_file() else None


def statistics(targets: list[launch_settings.Target], tools: launch_tools.LaunchTools, lsettings: launch_settings.LaunchSettings,
               tsc: float | None, glibc: str | None, launches: int = 1, wall_key: str = "main_ns",
               on_launch: Callable[[Launch], None] | None = None) -> dict[str, list[dict]]:
    """LD_DEBUG=statistics readings, `launches` per target, in ns where the TSC rate is known;
    on_launch sees the timer's line of each launch as it lands (for a progress bar).

    wall_key: the launch field the loader's total must fit in (the stamp taken
    when loading and relocation are over).
    """
    out: dict[str, list[dict]] = {t.name: [] for t in targets}
    with private_dir("ldstats", output_root()) as tmp:
        output_fs = machine.filesystem_of(tmp)
        run = _debug_run(targets, "statistics", tools, lsettings, launches, tmp, on_launch)
        for i, t in enumerate(targets):
            for line in run.of(t.name):
                text = _output_of(tmp, i, line)
                if text is None:
                    out[t.name].append({"status": "none", "reason": "no statistics printed (no dynamic loader?)"})
                    continue
                try:
                    parsed = ldstats.parse(text)
                except ldstats.ParseError as e:
                    out[t.name].append({"status": "failed", "reason": str(e)})
                    continue
                wall = getattr(line, wall_key)
                scale, why = ldstats.tick_scale(parsed, glibc, tsc, wall)
                ns = (lambda ticks: None if ticks is None or not tsc else ticks * scale / tsc)
                out[t.name].append({
                    "status": "ok", "round": line.round, "printed": parsed.to_dict(), "tick_scale": scale, "tick_scale_why": why,
                    "tsc_per_ns": tsc, "wall_ns_same_run": wall, "wall_key": wall_key,
                    "total_ns": ns(parsed.total_ticks), "relocation_ns": ns(parsed.relocation_ticks),
                    "load_ns": ns(parsed.load_ticks), "lookups": parsed.lookups,
                    "cache_lookups": parsed.cache_lookups, "relative_relocations": parsed.relative_relocations,
                    "final_lookups": parsed.final_lookups, "final_cache_lookups": parsed.final_cache_lookups,
                    "output_fs": output_fs})
            if t.name in run.failures and not out[t.name]:
                out[t.name].append({"status": "failed", "reason": run.failures[t.name]})
    return out


def unnamed_ns(reading: dict) -> float | None:
    """A statistics reading's loader total less its loading and relocation: the loader's work
    that glibc's statistics do not name (None where a figure is missing)."""
    if None in (reading.get("total_ns"), reading.get("load_ns"), reading.get("relocation_ns")):
        return None
    return reading["total_ns"] - reading["load_ns"] - reading["relocation_ns"]


_INIT = re.compile(r"^\s*\d+:\s+calling init: (.+?)\s*$", re.M)
_PROGRAM_INIT = re.compile(r"^\s*\d+:\s+initialize program: (.+?)\s*$", re.M)


def init_order(target: launch_settings.Target, tools: launch_tools.LaunchTools, lsettings: launch_settings.LaunchSettings) -> dict:
    """The order glibc runs the initialisers in (LD_DEBUG=files), one launch."""
    with private_dir("ldfiles", output_root()) as tmp:
        run = _debug_run([target], "files", tools, lsettings, 1, tmp)
        lines = run.of(target.name)
        text = _output_of(tmp, 0, lines[0]) if lines else None
    if text is None:
        return {"status": "none", "order": []}
    order = _INIT.findall(text)
    program = _PROGRAM_INIT.findall(text)
    return {"status": "ok", "order": order + [f"(program) {p}" for p in program[:1]]}
