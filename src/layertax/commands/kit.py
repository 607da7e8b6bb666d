"""The command line's kit for an experiment's own commands (experiment.CommandKit): the
shared context settings, consoles, progress, the --export-* options and keeping a result,
so that `layertax loadtime sweep` behaves like every other command without importing cli."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from layertax import console as consoles
from layertax.commands import keeping
from layertax.commands.options import CONTEXT, export_options
from layertax.progress import for_console
from layertax.report import exporters


class CliKit:
    context_settings = CONTEXT

    def console(self, stderr: bool = False):
        return consoles.console(stderr=stderr)

    def progress(self):
        return for_console(consoles.console(stderr=True))

    def export_options(self, command: Callable) -> Callable:
        return export_options(command)

    def export_paths(self, options: dict) -> dict[str, Path]:
        return exporters.export_paths(options)

    def keep(self, doc: dict, save: bool, exports: dict[str, Path]) -> None:
        keeping.keep(doc, consoles.console(), save, exports)
