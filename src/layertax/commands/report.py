"""`layertax report`: print saved runs' tables again, or write a run in another format."""
from __future__ import annotations

from pathlib import Path

from layertax import console as consoles
from layertax.files import write_text
from layertax.commands import runref
from layertax.engine.analysis import analyze
from layertax.errors import UsageError
from layertax.report import exporters, terminal
from layertax.text import printable, printable_data


def run(files: tuple[Path, ...], html: str | None, export_options: dict, verbose: bool = False) -> int:
    if html is not None and export_options.get("export_html") is not None:
        raise UsageError("--html and --export-html are the same option: give one")
    html = html if html is not None else export_options.get("export_html")
    exports = exporters.export_paths({**export_options, "export_html": None})
    if exports and len(files) > 1:
        raise UsageError(f"{', '.join(exports)} converts one run: give one FILE (only --export-html takes several)")
    html_target = exporters.export_paths({"export_html": html}).get("--export-html")
    docs = [analyze.complete(runref.load(f).doc) for f in files]
    failed = exporters.write_exports(docs[0], exports)   # files before printing: a closed stdout must not lose one
    if html_target:
        from layertax.report.html import to_html

        try:
            with consoles.busy(f"writing {html_target.name}"):
                write_text(to_html(*[printable_data(d) for d in docs]), html_target)
        except (OSError, UsageError) as e:
            failed["--export-html"] = f"{printable(html_target)}: {getattr(e, 'strerror', None) or e}"
        exports["--export-html"] = html_target
    out = consoles.console()
    for doc in docs:
        terminal.render(doc, out, verbose)
    for line in exporters.wrote_lines(exports, failed):
        out.print(line, markup=False, highlight=False)
    if failed:
        raise exporters.failure(failed)
    return 0
