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


class _Status:
    """What working() yields: update(detail) names the step under way (a ninja line, a host)."""

    def __init__(self, message: str, spinner=None):
        self.message, self.spinner, self.detail = message, spinner, ""

    def update(self, detail: str) -> None:
        self.detail = detail.strip()
        if self.spinner is not None:
            self.spinner.update(f"{self.message}: {self.detail}" if self.detail else self.message)

    def line(self, elapsed: float) -> str:
        return f"layertax: {self.message} ({elapsed:.0f} s{'; ' + self.detail if self.detail else ''})"


@contextlib.contextmanager
def working(message: str):
    """busy() for work that must never be silent: on a terminal the spinner; otherwise a line
    now and one every HEARTBEAT_S seconds until it is done (CI logs, `2> log`). Yields a
    status whose update(detail) shows the step under way, on the spinner or in the next line."""
    err = console(stderr=True)
    if err.is_terminal:
        with busy(message) as spinner:
            yield _Status(message, spinner)
        return
    status = _Status(message)
    err.print(f"layertax: {message}", markup=False, highlight=False)
    done, start = threading.Event(), time.monotonic()

    def beat():
        while not done.wait(HEARTBEAT_S):
            err.print(status.line(time.monotonic() - start), markup=False, highlight=False, soft_wrap=True)

    ticker = threading.Thread(target=beat, daemon=True)
    ticker.start()
    try:
        yield status
    finally:
        done.set()
        ticker.join()
