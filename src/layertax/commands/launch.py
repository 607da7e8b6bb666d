"""`layertax launch`: time how long one command, or two against each other, take to start."""
from __future__ import annotations

from layertax import console as consoles
from layertax import paths
from layertax.commands import keeping
from layertax.engine.measure.lock import Measuring
from layertax.errors import UsageError
from layertax.launch import command
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.progress import for_console


# Launches per command: beyond this a run is hours long and its result file too large to read back.
MAX_RUNS = 10_000


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


def run(argv: list[str], timer_options: dict, ignore_failure: bool, stamp: bool, save: bool,
        allow_concurrent: bool, export_options: dict, verbose: bool = False) -> int:
    settings = launch_settings.LaunchSettings.from_options(**timer_options)
    if settings.runs > MAX_RUNS:
        raise UsageError(f"--runs {settings.runs:,}: at most {MAX_RUNS:,} launches per command (an hour even for a "
                         "program that takes a third of a second); run several times and compare them instead")
    commands = [command.resolve(g, "COMMAND" if i == 0 else "--vs", stamp)
                for i, g in enumerate(split_vs(argv))]
    exports = keeping.targets(export_options, save)
    tools = launch_tools.tools(paths.cache_dir())
    with Measuring(allow_concurrent) as claim:
        result = command.measure(commands, settings, tools, ignore_failure, stamp,
                                        for_console(consoles.console(stderr=True)))
        return keeping.finish_launch_command(result, settings.method("command"), save, exports, verbose, claim)
