"""What every command's declaration shares: click's context settings and the --export-*
options, built from the exporter registry (one row there is one option here)."""
from __future__ import annotations

import math
from collections.abc import Callable

import click

from layertax.launch.settings import LAUNCH_WARMUP_S
from layertax.report.exporters import EXPORTERS
from layertax.version import full_version

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def exit_with(code: int) -> None:
    """Ends a command with code (0: nothing to do), the way click expects a command to."""
    if code:
        raise click.exceptions.Exit(code)


def with_version(command: Callable) -> Callable:
    """--version and -V, on every command as on the top level. The version (which asks git when
    run from a clone) is found when asked for, not at every start."""
    def show(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            click.echo(f"layertax {full_version()}")
            ctx.exit()

    return click.option("--version", "-V", is_flag=True, expose_value=False, is_eager=True, callback=show,
                        help="Show the version and exit.")(command)


def export_options(command: Callable) -> Callable:
    """Adds one --export-NAME option per registered format (handed over as export_NAME)."""
    for exporter in reversed(list(EXPORTERS.values())):
        command = click.option(exporter.flag, exporter.option, type=click.Path(dir_okay=False),
                               help=exporter.help)(command)
    return command


def verbose_option(command: Callable) -> Callable:
    """--verbose: the answer and the tables come first; this adds every note, warning and
    detail table (the saved result has them all either way)."""
    return click.option("-v", "--verbose", is_flag=True,
                        help="Also print every note, warning and detail table (the result keeps them all).")(command)


def keeping_options(command: Callable) -> Callable:
    """What every measuring command shares about keeping and showing its result: --export-*,
    --no-save, --allow-concurrent and --verbose (handed over as export_NAME, no_save,
    allow_concurrent, verbose)."""
    command = export_options(command)
    command = verbose_option(command)
    command = click.option("--allow-concurrent", is_flag=True,
                           help="Measure even while another layertax is measuring on this machine (otherwise "
                                "refused: each would disturb the other's figures); the result records it.")(command)
    return click.option("--no-save", is_flag=True,
                        help="Do not save the result under the data directory or record it in the history.")(command)


def launch_timer_options(command: Callable) -> Callable:
    """The options every command built on the launch timer shares, with keeping_options';
    timer_values gathers them for the command."""
    command = keeping_options(command)
    command = click.option("--no-priority", is_flag=True, help="Do not try to raise the launches' priority.")(command)
    command = click.option("--no-pin", is_flag=True,
                           help="Do not pin the launches to a CPU. Pinned (the default), the timer leaves a CPU "
                                "it finds shared with a busy task, and the notes say so.")(command)
    command = click.option("--no-dodge", is_flag=True,
                           help="Start each launch at once, as hyperfine does. By default a launch that fits "
                                "between two of the pinned CPU's periodic interruptions (the kernel's tick) "
                                "starts just after one (waiting at most 0.5 ms), so none lands inside it; a longer "
                                "one is started so that none lands before its main.")(command)
    command = click.option("--seed", type=click.IntRange(min=1), help="Seed of the shuffled order (recorded).")(command)
    command = click.option("--warmup-time", type=Finite(min=0, max=3600), default=LAUNCH_WARMUP_S, show_default=True,
                           help="Seconds the warm-up lasts at least: its rounds go on until then (the first "
                                "launches of a run start slower than later ones).")(command)
    return click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True,
                        help="Rounds run first and discarded (at least; see --warmup-time).")(command)


def timer_values(runs: int, timeout: float, options: dict) -> dict:
    """The launch timer's settings from a command's --runs, --timeout and launch_timer_options."""
    return {"runs": runs, "timeout": timeout, "warmup": options["warmup"], "warmup_time": options["warmup_time"],
            "seed": options["seed"], "pin": not options["no_pin"], "raise_priority": not options["no_priority"],
            "dodge": not options["no_dodge"]}


def export_values(options: dict) -> dict:
    """The export_* entries of a command's keyword arguments."""
    return {e.option: options.get(e.option) for e in EXPORTERS.values()}


class Duration(click.ParamType):
    """A length of time: 90, 90s, 5m, 1.5h (seconds when no unit is given); 0 means none."""

    name = "duration"
    UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        text = str(value).strip().lower()
        number = text.rstrip("abcdefghijklmnopqrstuvwxyz")
        unit = text[len(number):]
        try:
            seconds = float(number) * self.UNITS[unit]
        except (ValueError, KeyError):
            self.fail(f"{value!r} is not a duration (examples: 90s, 5m, 1h)", param, ctx)
        if not 0 <= seconds < 7 * 24 * 3600 or seconds != seconds:
            self.fail(f"{value!r}: give a duration from 0 to under a week", param, ctx)
        return seconds


class Finite(click.FloatRange):
    """A FloatRange that also refuses nan and infinity (click's range checks let nan through)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number
