"""What `layertax launch` is given, judged before anything heavy loads: the one or two commands
(COMMAND [--vs OTHER]), each resolved on PATH and checked that it can start and be timed, and
the number of launches. A mistyped command is refused in a third of a second, not after the
engine and numpy load (commands/launch.py measures)."""
from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from layertax.errors import LayertaxError, UsageError
from layertax.launch import startable

# Launches per command: beyond this a run is hours long and its result file too large to read back.
MAX_RUNS = 10_000


def judged(argv: list[str], runs: int, stamp: bool) -> list[list[str]]:
    """The commands to launch, resolved (resolve), or one line saying what is wrong."""
    if runs > MAX_RUNS:
        raise UsageError(f"--runs {runs:,}: at most {MAX_RUNS:,} launches per command (an hour even for a "
                         "program that takes a third of a second); run several times and compare them instead")
    return [resolve(g, "COMMAND" if i == 0 else "--vs", stamp) for i, g in enumerate(split_vs(argv))]


def split_vs(argv: list[str]) -> list[list[str]]:
    """COMMAND [--vs OTHER]: the one or two commands, as given (a leading -- dropped)."""
    if argv and argv[0] == "--":
        argv = argv[1:]
    groups: list[list[str]] = [[]]
    for token in argv:
        if token == "--vs":
            groups.append([])
        else:
            groups[-1].append(token)
    if len(groups) > 2:
        raise UsageError("--vs can be given once (A --vs B)")
    return groups


def resolve(argv: list[str], flag: str, stamp: bool = True) -> list[str]:
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
    why_not = startable.not_timeable(Path(found))
    if why_not and (stamp or found.startswith("/proc")):      # --no-stamp times spawn->exit only: no preload
        raise UsageError(f"{found}: {why_not}")
    complaint = startable.loader_complaint(Path(found))
    if complaint:
        raise LayertaxError(f"{found} cannot start; the loader says: {complaint}")
    return [str(Path(found).absolute()), *argv[1:]]
