"""`layertax inspect`: why does a program take this long to reach main, and what would fix it?"""
from __future__ import annotations

import shlex
from pathlib import Path

from layertax import console as consoles
from layertax.commands import keeping
from layertax.engine.measure.lock import Measuring
from layertax.commands.launch_args import MAX_RUNS
from layertax.errors import UsageError
from layertax.inspect import model
from layertax.inspect.measure import stats_launches
from layertax.inspect.run import inspect as inspect_program
from layertax.inspect.run import resolve_binary
from layertax.launch import settings as launch_settings
from layertax.progress import for_console
from layertax.report.breaking import print_hanging


def notes_on(err):
    """inspect's notes, dim on stderr. Prose wraps between words at the width; a line said
    whole (the one naming the calibration it saved) keeps its path on one line (soft wrap),
    whole for copy and paste, as the `saved:` line after every run does."""
    def say(message: str, whole: bool = False) -> None:
        if whole:
            err.print(message, style="dim", soft_wrap=True)
        else:
            print_hanging(err, message, "dim", indent=0)
    return say


def other_program(vs: str, args: list[str]) -> list[str]:
    """--vs OTHER: the second program and its arguments (split like a shell would, no shell runs;
    none of its own: the first program's), resolved like BINARY; refused in one line before
    anything is timed."""
    argv = shlex.split(vs)
    if not argv:
        raise UsageError("--vs: no program given")
    return [str(resolve_binary(argv[0])), *(argv[1:] or args)]


def run(binary: str, args: list[str], timer_options: dict, model_file: Path | None, predict: bool,
        save: bool, allow_concurrent: bool, export_options: dict, verbose: bool = False, vs: str | None = None,
        until_output: bool = False) -> int:
    settings = launch_settings.LaunchSettings.from_options(**timer_options)
    if settings.runs > MAX_RUNS:
        raise UsageError(f"--runs {settings.runs:,}: at most {MAX_RUNS:,} launches per variant")
    if model_file is not None and predict:
        model.load_sweep(model_file)       # a file that is not a sweep is refused now, not after the launches
    resolve_binary(binary)     # a program that cannot be inspected is refused before the history is opened
    vs_argv = other_program(vs, args) if vs is not None else None
    exports = keeping.targets(export_options, save)
    err = consoles.console(stderr=True)
    with Measuring(allow_concurrent) as claim:
        result = inspect_program(binary, args, settings, model_file, predict, lambda: for_console(err),
                                 notes_on(err), keep_calibration=save, vs=vs_argv,
                                 until_output=until_output)
        method = settings.method("variant", f"; {stats_launches(settings)} LD_DEBUG=statistics launches per variant")
        return keeping.finish_launch_command(result, method, save, exports, verbose, claim)
