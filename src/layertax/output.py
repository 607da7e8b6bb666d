"""Where a command's results go: the console, the saved run with its history entry, the exports.

Shared by every command that measures (`run`, `launch`, `loadtime sweep`), so a
result document always has the same envelope and is kept the same way.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from rich.console import Console

from layertax import paths
from layertax.version import full_version


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    # Not a terminal (a pipe, a file, CI): wide enough that tables do not wrap.
    return Console(stderr=stderr, width=int(os.environ.get("COLUMNS", 200)), no_color=True)


def busy(message: str):
    """A spinner on stderr while something slow runs (drawing a report's charts, comparing
    hundreds of cases); nothing when stderr is not a terminal."""
    import contextlib

    err = console(stderr=True)
    return err.status(message, spinner="dots") if err.is_terminal else contextlib.nullcontext()


def new_document(settings: dict | None, machine: dict, experiments: list[dict] | None = None,
                 complete: bool = False) -> dict:
    """The envelope of one run: schema, version, when, the command line, how, and on what."""
    from layertax.engine import results

    return {"schema": results.SCHEMA, "layertax_version": full_version(), "created": results.now_iso(),
            "command": ["layertax", *sys.argv[1:]], "complete": complete, "settings": settings,
            "machine": machine, "experiments": experiments or []}


def export_paths(export_json=None, export_markdown=None, export_csv=None, export_pyperf=None,
                 export_html=None) -> dict[str, Path]:
    """The --export-* targets, each checked writable before anything is measured."""
    from layertax.engine.results import check_writable

    wanted = {"--export-json": export_json, "--export-markdown": export_markdown, "--export-csv": export_csv,
              "--export-pyperf": export_pyperf, "--export-html": export_html}
    return {flag: check_writable(p, flag) for flag, p in wanted.items() if p}


# flag -> (module, function) of the format's renderer; imported only when that export is
# wanted (the HTML one loads matplotlib).
_RENDERERS = {"--export-markdown": ("layertax.report.markdown", "to_markdown"),
              "--export-csv": ("layertax.report.csv", "to_csv"),
              "--export-pyperf": ("layertax.report.pyperf", "to_pyperf"),
              "--export-html": ("layertax.report.html", "to_html")}


def write_exports(doc: dict, targets: dict[str, Path]) -> None:
    import importlib

    from layertax.engine import results

    for flag, path in targets.items():
        if flag == "--export-json":
            results.save(doc, path)
        else:
            module, function = _RENDERERS[flag]
            with busy(f"writing {path.name}"):
                path.write_text(getattr(importlib.import_module(module), function)(doc), encoding="utf-8")


def keep(doc: dict, out: Console, save: bool, exports: dict[str, Path], path: Path | None = None,
         show: Callable[[], None] | None = None) -> None:
    """Saves the run and records it in the history (unless not wanted), writes the exports,
    then shows the tables (show) and says where. Files first: a closed pipe on stdout
    (`layertax run | head`) cannot lose one."""
    from layertax.engine import history, results

    lines = []
    if save:
        path = path or results.default_path(paths.runs_dir(), doc)
        results.save(doc, path)
        history.record(paths.history_db(), doc, path)
        lines.append(f"\nsaved: {path}")
    write_exports(doc, exports)
    if show is not None:
        show()
    for line in lines + [f"wrote: {target.resolve()}" for target in exports.values()]:
        out.print(line)
