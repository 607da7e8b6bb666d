"""`layertax import-hyperfine`: bring another tool's result into the history."""
from __future__ import annotations

from pathlib import Path

from layertax import console as consoles
from layertax.commands import keeping
from layertax.engine import machine
from layertax.engine.store import hyperfine, results


def import_hyperfine(file: Path, export_options: dict) -> int:
    exports = keeping.targets(export_options, True)
    exp = hyperfine.experiment(file)
    doc = results.new_document({"method": exp["method"]}, machine.fingerprint(), [exp], complete=True)
    keeping.keep(doc, consoles.console(), True, exports)
    return 0
