"""The command line's kit for an experiment's own commands (experiment.CommandKit): the
shared context settings, consoles, progress, the --export-* options and keeping a result,
so that `layertax loadtime sweep` behaves like every other command without importing cli."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from layertax import console as consoles
from layertax.cli.options import CONTEXT, export_values, keeping_options
from layertax.engine.measure.lock import Measuring
from layertax.progress import for_console


class CliKit:
    context_settings = CONTEXT

    def console(self, stderr: bool = False):
        return consoles.console(stderr=stderr)

    def progress(self):
        return for_console(consoles.console(stderr=True))

    def keeping_options(self, command: Callable) -> Callable:
        return keeping_options(command)

    def targets(self, options: dict, save: bool) -> dict[str, Path]:
        from layertax.commands import keeping      # the report stack, only when a command keeps a result

        return keeping.targets(export_values(options), save)

    def measuring(self, allow_concurrent: bool) -> Measuring:
        return Measuring(allow_concurrent)

    def keep(self, doc: dict, save: bool, exports: dict[str, Path], claim: Measuring | None = None,
             verbose: bool = False) -> None:
        from layertax.commands import keeping

        keeping.keep(doc, consoles.console(), save, exports, verbose=verbose, claim=claim)
