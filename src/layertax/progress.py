"""Progress while long work runs, on stderr: a bar with an ETA on a terminal, plain lines
when stderr is a pipe or a file (CI, `2> log`), and the sink that shows nothing. All fit
experiment.ProgressSink; `for_console` picks the right one.

The plain lines never leave more than LINE_EVERY_S of silence while work goes on: a
line when a step starts, then one at least that often, each with how far it is and an ETA.
A total of None means "not known yet" (a budgeted run before its warm-up has been timed):
steps are counted, and neither a share nor an ETA is shown until `retotal` gives one.
"""
from __future__ import annotations

import time

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from layertax.text import printable

LINE_EVERY_S = 10.0


class NoProgress:
    def start(self, experiment: str, total: int | None) -> None: pass
    def step(self, description: str) -> None: pass
    def retotal(self, total: int) -> None: pass
    def finish(self, stopped: bool = False) -> None: pass


class RichProgress:
    def __init__(self, console: Console):
        self.console = console
        self._progress: Progress | None = None
        self._task = None

    def start(self, experiment: str, total: int | None) -> None:
        # rich draws a total of None as a pulsing bar, "n/?" and no time remaining.
        self._progress = Progress(
            TextColumn(f"[bold]{escape(printable(experiment))}[/bold]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}", markup=False), TimeElapsedColumn(), TimeRemainingColumn(),
            console=self.console, transient=True, disable=not self.console.is_terminal,
        )
        self._progress.start()
        self._task = self._progress.add_task("", total=total)

    def step(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=description)

    def retotal(self, total: int) -> None:
        """The work left was re-estimated (cases that reached their precision stop early)."""
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def finish(self, stopped: bool = False) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class LineProgress:
    """Plain progress lines for a stderr that is not a terminal."""

    def __init__(self, console: Console, every_s: float = LINE_EVERY_S, clock=time.monotonic):
        self.console, self.every_s, self.clock = console, every_s, clock
        self.name, self.total, self.done = "", None, 0
        self.started = self.last = 0.0

    def _say(self, description: str, going: bool = True) -> None:
        elapsed = self.clock() - self.started
        eta = ""
        if going and self.done and self.total and self.total > self.done:
            eta = f", about {_clock(elapsed / self.done * (self.total - self.done))} left"
        share = f"{self.done / self.total:.0%}" if self.total else "-"
        total = "?" if self.total is None else self.total
        self.console.print(f"layertax: {self.name}: {self.done}/{total} ({share}) {description} "
                           f"[{_clock(elapsed)}{eta}]", markup=False, highlight=False, soft_wrap=True)
        self.last = self.clock()

    def start(self, experiment: str, total: int | None) -> None:
        self.name, self.total, self.done = experiment, total, 0
        self.started = self.clock()
        self._say("started")

    def step(self, description: str) -> None:
        self.done += 1
        if self.clock() - self.last >= self.every_s:
            self._say(description)

    def retotal(self, total: int) -> None:
        self.total = total

    def finish(self, stopped: bool = False) -> None:
        """The last line: "done" (at 100%: cases that reached their precision early leave steps
        untaken), or, when Ctrl-C ended the work, "stopped" where it was."""
        if self.name:
            if stopped:
                self._say("stopped", going=False)
            else:
                self.done = max(self.done, self.total) if self.total else self.done
                self._say("done")
        self.name = ""


def for_console(console: Console):
    """A bar on a terminal; plain lines otherwise (never silence)."""
    return RichProgress(console) if console.is_terminal else LineProgress(console)
