"""The exporter registry: every format a result can be written in, by name.

Each format is one module of this package with a function from a result document
to text; it is named here once, with its flag and help, and imported only when
that export is wanted (the HTML one loads matplotlib). The command line builds
its --export-* options from this table, so a new format is one module and one row.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from layertax import files
from layertax.errors import LayertaxError
from layertax.text import printable, printable_data


@dataclass(frozen=True)
class Exporter:
    name: str      # --export-NAME
    render: str    # "module:function", doc -> text
    help: str

    @property
    def flag(self) -> str:
        return f"--export-{self.name}"

    @property
    def option(self) -> str:
        """The keyword the CLI hands the value in."""
        return f"export_{self.name}"

    def to_text(self, doc: dict) -> str:
        """The export of doc. Every format but the full JSON renders a copy whose text has its
        control characters escaped (text.py): a case or program name from outside cannot carry
        a terminal's escape sequence into a Markdown file, a CSV cell or a web page. The JSON
        keeps the text exact; JSON escapes control characters itself."""
        module, _, function = self.render.partition(":")
        return getattr(importlib.import_module(module), function)(doc if self.name == "json" else printable_data(doc))


# In the order --help lists them.
EXPORTERS: dict[str, Exporter] = {e.name: e for e in (
    Exporter("json", "layertax.report.json:to_json", "Also write the full result (raw samples) here."),
    Exporter("markdown", "layertax.report.markdown:to_markdown", "Also write the tables as Markdown here."),
    Exporter("csv", "layertax.report.csv:to_csv", "Also write one CSV row per case here."),
    Exporter("pyperf", "layertax.report.pyperf:to_pyperf", "Also write pyperf's JSON here (one benchmark per "
             "timed case, one run per round), for `pyperf compare_to` and `pyperf stats`."),
    Exporter("bmf", "layertax.report.bmf:to_bmf", "Also write the Bencher Metric Format here (per case: "
             "latency or instructions, and ratio-to-baseline, each with its 95% interval), for `bencher run "
             "--adapter json`."),
    Exporter("gbench", "layertax.report.gbench:to_gbench", "Also write Google Benchmark's JSON here (one "
             "repetition per round, a context block from the machine fingerprint), for its compare.py."),
    Exporter("html", "layertax.report.html:to_html", "Also write a self-contained HTML report (charts, the raw "
             "tables behind them, the machine and the command) here."),
)}


def export_paths(options: dict[str, str | None]) -> dict[str, Path]:
    """{flag: path} of the exports asked for ({"export_csv": "x.csv", ...} as the CLI passes them),
    each checked writable before anything is measured."""
    return {e.flag: files.check_writable(options[e.option], e.flag)
            for e in EXPORTERS.values() if options.get(e.option) is not None}


def by_flag(flag: str) -> Exporter:
    return next(e for e in EXPORTERS.values() if e.flag == flag)


def write_exports(doc: dict, targets: dict[str, Path]) -> dict[str, str]:
    """Writes each export (a file atomically, like a saved run; a device or `-` as a stream);
    returns {flag: why} for each that could not be written (the others are written all the same)."""
    from layertax.console import busy   # here: the CLI reads this registry at every start, rich is not needed then

    failed = {}
    for flag, path in targets.items():
        try:
            with busy(f"writing {path.name}"):
                files.write_text(by_flag(flag).to_text(doc), path)
        except OSError as e:
            failed[flag] = f"{printable(path)}: {e.strerror or e}"
        except LayertaxError as e:
            failed[flag] = str(e)
    return failed


def wrote_lines(targets: dict[str, Path], failed: dict[str, str]) -> list[str]:
    """ "wrote: PATH" for every export written to a file (not the failed ones, not `-`)."""
    return [f"wrote: {printable(path.absolute())}" for flag, path in targets.items()
            if flag not in failed and str(path) != "-"]


def failure(failed: dict[str, str]) -> LayertaxError:
    """The one-line error for the exports that could not be written."""
    return LayertaxError("could not write " + "; ".join(f"{flag} {why}" for flag, why in failed.items()))
