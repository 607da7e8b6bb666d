"""Progress while long work runs, on stderr: a bar with an ETA on a terminal, plain lines
when stderr is a pipe or a file (CI, `2> log`), and the sink that shows nothing. All fit
experiment.ProgressSink; `for_console` picks the right one.

The plain lines never leave more than LINE_EVERY_S of silence while work goes on, one long step
(a build) too: a line once the work has gone on for QUIET_S (work that ends sooner prints none),
then one at least that often, each with how far it is and an ETA.
A total of None means "not known yet" (a budgeted run before its warm-up has been timed):
steps are counted, and neither a share nor an ETA is shown until `retotal` gives one. Work that
must end by a time (a budgeted experiment's share) says so with `deadline`, and no ETA goes past
it: the rate of steps so far cannot know that the deadline stops the rounds (steps differ in
cost, a Java burst ten times a C one, and the cheap cases stop first).
"""
from __future__ import annotations

import threading
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from layertax.console import QUIET_S
from layertax.one_line import fitted
from layertax.text import printable

LINE_EVERY_S = 10.0


class NoProgress:
    def start(self, experiment: str, total: int | None) -> None: pass
    def step(self, description: str) -> None: pass
    def retotal(self, total: int) -> None: pass
    def deadline(self, at: float | None) -> None: pass
    def finish(self, stopped: bool = False) -> None: pass


def _left(by_rate: float | None, ends_by: float | None, now: float) -> float | None:
    """Seconds left: the rate's estimate, never past the deadline (time.monotonic()) while it is
    ahead. Once it has passed, the rate's again: the budget never cuts the rule's minimum of rounds,
    and work that goes on is not "0s" from its end."""
    if ends_by is None or ends_by <= now:
        return by_rate
    return ends_by - now if by_rate is None else min(by_rate, ends_by - now)


class _TimeLeft(ProgressColumn):
    """rich's time remaining, never past the task's deadline (its "ends_by" field)."""

    def render(self, task) -> Text:
        left = _left(task.time_remaining, task.fields.get("ends_by"), time.monotonic())
        if left is None:
            return Text("-:--:--", style="progress.remaining")
        left = int(left)
        return Text(f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}", style="progress.remaining")


class RichProgress:
    def __init__(self, console: Console):
        self.console = console
        self._progress: Progress | None = None
        self._task = None

    def start(self, experiment: str, total: int | None) -> None:
        # rich draws a total of None as a pulsing bar, "n/?" and no time remaining.
        self._progress = Progress(
            TextColumn(f"[bold]{escape(printable(experiment))}[/bold]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}", markup=False), TimeElapsedColumn(), _TimeLeft(),
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

    def deadline(self, at: float | None) -> None:
        """The work ends by time.monotonic() `at` at the latest: the time left never reads past it."""
        if self._progress is not None:
            self._progress.update(self._task, ends_by=at)

    def finish(self, stopped: bool = False) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class LineProgress:
    """Plain progress lines for a stderr that is not a terminal. Work that ends within quiet_s
    prints no line at all (a cached build, one point of a calibration: a bare run's log had eight
    pairs of "started [0s]" and "done [0s]"); work still going then says it has started. A watcher
    thread says that, and, with beats, repeats where the work is whenever every_s passes without a
    line (a build is one long step), so the log is never silent longer. Ctrl-C always says where it
    stopped."""

    def __init__(self, console: Console, every_s: float = LINE_EVERY_S, clock=time.monotonic,
                 quiet_s: float = QUIET_S, beats: bool = True):
        self.console, self.every_s, self.clock, self.quiet_s, self.beats = console, every_s, clock, quiet_s, beats
        self.name, self.total, self.done = "", None, 0
        self.started = self.last = 0.0
        self.ends_by: float | None = None
        self.said = False                  # whether this work has printed a line yet
        self.doing = ""                    # the last step's description, which a beat repeats
        self._lock = threading.Lock()      # the watcher's lines and the steps' take turns
        self._stop: threading.Event | None = None

    def _say(self, description: str, going: bool = True) -> None:
        now = self.clock()
        elapsed = now - self.started
        eta = ""
        if going and self.done and self.total and self.total > self.done:
            eta = f", about {_clock(_left(elapsed / self.done * (self.total - self.done), self.ends_by, now))} left"
        # "n/?" until a total is known (the module's docstring), as rich's bar shows it
        count = f"{self.done}/?" if self.total is None else f"{self.done}/{self.total}"
        if self.total:
            count += f" ({self.done / self.total:.0%})"
        head, tail = f"layertax: {printable(self.name)}: {count}", f"[{_clock(elapsed)}{eta}]"
        # the step (a case's name) shortened so that the line fits the window (one_line.py)
        line = fitted(lambda step: f"{head} {step} {tail}" if step else f"{head} {tail}",
                      printable(description), self.console.width)
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        self.last = self.clock()
        self.said = True

    def _cancel(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None

    def start(self, experiment: str, total: int | None) -> None:
        self._cancel()
        with self._lock:
            self.name, self.total, self.done, self.ends_by, self.said = experiment, total, 0, None, False
            self.doing = ""
            self.started = self.last = self.clock()
            if self.quiet_s <= 0:
                self._say("started")
            if self.quiet_s <= 0 and not self.beats:
                return
            self._stop = stop = threading.Event()
        # daemon: never holds the process open; it ends when the work does (finish, or the next start)
        threading.Thread(target=self._watch, args=(stop,), daemon=True, name="layertax-progress").start()

    def _watch(self, stop: threading.Event) -> None:
        """The started line once quiet_s has passed, then (beats) a line wherever every_s passed
        without one: checked each second."""
        wait = self.quiet_s if self.quiet_s > 0 else min(1.0, self.every_s)
        while not stop.wait(wait):
            with self._lock:
                if stop.is_set():
                    return
                if not self.said:
                    # Every step taken and the work not yet ended (scan's input written, its count
                    # still checked): it has not just started.
                    self._say("finishing" if self.total and self.done >= self.total else "started")
                elif self.beats and self.clock() - self.last >= self.every_s:
                    self._say(self.doing or "under way")
            if not self.beats:
                return
            wait = min(1.0, self.every_s)

    def step(self, description: str) -> None:
        with self._lock:
            self.done += 1
            self.doing = description
            if self.clock() - self.last >= self.every_s:
                self._say(description)

    def retotal(self, total: int) -> None:
        self.total = total

    def deadline(self, at: float | None) -> None:
        """The work ends by `at` (this sink's clock) at the latest: no ETA goes past it."""
        self.ends_by = at

    def finish(self, stopped: bool = False) -> None:
        """The last line: "done" (at 100%: cases that reached their precision early leave steps
        untaken), none where the work said nothing (it ended within quiet_s), or, when Ctrl-C
        ended the work, "stopped" where it was."""
        self._cancel()
        with self._lock:
            if self.name:
                if stopped:
                    self._say("stopped", going=False)
                elif self.said:
                    self.done = max(self.done, self.total) if self.total else self.done
                    self._say("done")
            self.name = ""


def for_console(console: Console):
    """A bar on a terminal; plain lines otherwise (never silence)."""
    return RichProgress(console) if console.is_terminal else LineProgress(console)
