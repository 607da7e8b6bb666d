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

from layertax.one_line import fitted
from layertax.text import printable, printable_lines

UNBOUNDED_WIDTH = 200   # no terminal anywhere (CI, cron, a file): wide enough that tables do not wrap


class SafeConsole(Console):
    """rich's Console with two of layertax's rules built in.

    Every string it renders (a printed line, a table's cell) has its control characters
    escaped (text.py), line breaks and tabs apart: whatever a case, a program or a file
    names reaches the terminal as visible text, never as an escape sequence. Text that must
    stay on one line is made printable() where it is put together; this is the net under it.

    Markup is off unless a call asks for it (markup=True): a case named "[link=...]" would
    otherwise become a hyperlink, in a table cell as much as in a line.

    A closed pipe (`layertax run | head`) raises BrokenPipeError, which the command handles
    (it still saves and exports what it measured), instead of rich's SystemExit(1)."""

    def render_str(self, text: str, *args, **kwargs):
        return super().render_str(printable_lines(text), *args, **kwargs)

    def on_broken_pipe(self) -> None:
        quiet_stdout()
        raise BrokenPipeError(32, "Broken pipe")


def quiet_stdout() -> None:
    """After a closed pipe, stdout goes to /dev/null: Python's own flush at exit must not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return SafeConsole(stderr=stderr, markup=False)
    return SafeConsole(stderr=stderr, width=off_terminal_width(), no_color=True, markup=False)


def off_terminal_width() -> int:
    """The width for output that is not going to a terminal. `layertax run | tee log` in an
    80-column window is still read in that window: when another of the standard streams is
    a terminal, its width (shells do not export COLUMNS, so it cannot be relied on). COLUMNS
    when set, as for every tool; UNBOUNDED_WIDTH when there is no terminal at all."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for stream in (sys.stdin, sys.stderr, sys.stdout):
        try:
            if stream is not None and stream.isatty():
                columns = os.get_terminal_size(stream.fileno()).columns
                if columns > 0:   # a terminal whose size was never set says 0
                    return columns
        except (OSError, ValueError):   # closed, or not a real file (pytest's capture)
            continue
    return UNBOUNDED_WIDTH


def busy(message: str):
    """A spinner on stderr while something slow but usually short runs (drawing a report's
    charts, comparing hundreds of cases). Off a terminal nothing unless it is still going
    after QUIET_S (then working()'s lines): quick work prints no line, slow work is never silent."""
    return working(message, quiet_s=QUIET_S)


QUIET_S = 1.0
HEARTBEAT_S = 10.0


class _Status:
    """What working() yields: update(detail) names the step under way (a ninja line, a host)."""

    def __init__(self, message: str, spinner=None):
        self.message, self.spinner, self.detail = message, spinner, ""

    def update(self, detail: str) -> None:
        self.detail = printable(detail.strip())   # a compiler's line may carry colour escapes
        if self.spinner is not None:
            self.spinner.update(f"{self.message}: {self.detail}" if self.detail else self.message)

    def line(self, elapsed: float, width: int) -> str:
        """The heartbeat's line, the step under way shortened to fit width (one_line)."""
        return fitted(lambda detail: f"layertax: {self.message} ({elapsed:.0f} s{'; ' + detail if detail else ''})",
                      self.detail, width)


@contextlib.contextmanager
def working(message: str, quiet_s: float = 0.0):
    """Progress for work that must never be silent: on a terminal a spinner; otherwise a line
    (now, or after quiet_s if it is still going) and one every HEARTBEAT_S seconds until it is
    done (CI logs, `2> log`). Yields a status whose update(detail) shows the step under way,
    on the spinner or in the next line."""
    err = console(stderr=True)
    if err.is_terminal:
        with err.status(message, spinner="dots") as spinner:
            yield _Status(message, spinner)
        return
    status = _Status(message)
    if quiet_s <= 0:
        err.print(f"layertax: {message}", markup=False, highlight=False)
    done, start = threading.Event(), time.monotonic()

    def beat():
        wait = quiet_s if quiet_s > 0 else HEARTBEAT_S
        while not done.wait(wait):
            err.print(status.line(time.monotonic() - start, err.width), markup=False, highlight=False, soft_wrap=True)
            wait = HEARTBEAT_S

    ticker = threading.Thread(target=beat, daemon=True)
    ticker.start()
    try:
        yield status
    finally:
        done.set()
        ticker.join()
