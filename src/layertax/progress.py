"""Progress while long work runs: the bar the CLI shows (on stderr, only on a terminal), and
the sink that shows nothing. Both fit experiment.ProgressSink."""
from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class NoProgress:
    def start(self, experiment: str, total: int) -> None: pass
    def step(self, description: str) -> None: pass
    def finish(self) -> None: pass


class RichProgress:
    def __init__(self, console: Console):
        self.console = console
        self._progress: Progress | None = None
        self._task = None

    def start(self, experiment: str, total: int) -> None:
        self._progress = Progress(
            TextColumn(f"[bold]{experiment}[/bold]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=self.console, transient=True, disable=not self.console.is_terminal,
        )
        self._progress.start()
        self._task = self._progress.add_task("", total=total)

    def step(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=description)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
