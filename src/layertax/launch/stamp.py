"""The stamp preload: how a program that does not stamp itself reports when main is called,
and the controls that measure what the preload itself costs.

The stamp library (native/stamp.c) interposes __libc_start_main. It has a cost of its own,
so every run that preloads it also launches an empty program with and without it,
interleaved with the programs, and reports the difference, paired per round.
"""
from __future__ import annotations

import os
from pathlib import Path

from layertax.engine.analysis import analyze, stats
from layertax.launch import tools as launch_tools

EMPTY = "empty (no preload)"
EMPTY_STAMPED = "empty + stamp preload"


def stamp_library(tools: launch_tools.LaunchTools, phases: bool = False) -> Path:
    """The main-only stamp (launch: the cheapest), or the one that also stamps the stages before
    main and brings the first-constructor library with it (inspect's split)."""
    return tools.stamp_phases_lib if phases else tools.stamp_lib


def preload_env(tools: launch_tools.LaunchTools, phases: bool = False) -> tuple[tuple[str, str], ...]:
    """LD_PRELOAD with the stamp library first, and the user's own preloads kept after it."""
    existing = os.environ.get("LD_PRELOAD")
    lib = stamp_library(tools, phases)
    value = f"{lib}:{existing}" if existing else str(lib)
    return (("LD_PRELOAD", value),)


def preload_cost(result: dict) -> dict | None:
    """What the stamp preload adds to an empty program's spawn->exit, paired per round (n: the
    rounds), never a negative time (stats.as_time)."""
    by = {c["name"]: c for c in result.get("controls", [])}
    if EMPTY not in by or EMPTY_STAMPED not in by:
        return None
    plain = analyze.round_values(by[EMPTY], "exit_ns")
    loaded = analyze.round_values(by[EMPTY_STAMPED], "exit_ns")
    return stats.as_time(stats.paired_difference(loaded, plain))
