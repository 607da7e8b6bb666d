"""The consoles every command prints to (stdout for tables, stderr for progress and notes), and a
spinner (or, off a terminal, heartbeat lines) for slow work that has no steps to count. Ground
floor: anything that prints may use it."""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

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
    err = console(stderr=True)
    return err.status(message, spinner="dots") if err.is_terminal else contextlib.nullcontext()


HEARTBEAT_S = 10.0


@contextlib.contextmanager
def working(message: str):
    """busy() for work that must never be silent: on a terminal the spinner; otherwise a line
    now and one every HEARTBEAT_S seconds until it is done (CI logs, `2> log`)."""
    err = console(stderr=True)
    if err.is_terminal:
        with busy(message):
            yield
        return
    err.print(f"layertax: {message}", markup=False, highlight=False)
    done, start = threading.Event(), time.monotonic()

    def beat():
        while not done.wait(HEARTBEAT_S):
            err.print(f"layertax: {message} ({time.monotonic() - start:.0f} s)", markup=False, highlight=False)

    ticker = threading.Thread(target=beat, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
