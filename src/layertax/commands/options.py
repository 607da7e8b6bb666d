"""What every command's declaration shares: click's context settings and the --export-*
options, built from the exporter registry (one row there is one option here)."""
from __future__ import annotations

from collections.abc import Callable

import click

from layertax.report.exporters import EXPORTERS

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def export_options(command: Callable) -> Callable:
    """Adds one --export-NAME option per registered format (handed over as export_NAME)."""
    for exporter in reversed(list(EXPORTERS.values())):
        command = click.option(exporter.flag, exporter.option, type=click.Path(dir_okay=False),
                               help=exporter.help)(command)
    return command


def export_values(options: dict) -> dict:
    """The export_* entries of a command's keyword arguments."""
    return {e.option: options.get(e.option) for e in EXPORTERS.values()}
