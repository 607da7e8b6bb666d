"""The consoles every command prints to (stdout for tables, stderr for progress and notes), and a
spinner for slow work that has no steps to count. Ground floor: anything that prints may use it."""
from __future__ import annotations

import os
import sys

from rich.console import Console


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    # Not a terminal (a pipe, a file, CI): wide enough that tables do not wrap.
    return Console(stderr=stderr, width=int(os.environ.get("COLUMNS", 200)), no_color=True)


def busy(message: str):
    """A spinner on stderr while something slow runs (drawing a report's charts, comparing
    hundreds of cases); nothing when stderr is not a terminal."""
    import contextlib

    err = console(stderr=True)
    return err.status(message, spinner="dots") if err.is_terminal else contextlib.nullcontext()
