"""A run named on the command line: a result file, or `@ID`, a run of the history by its id
(any machine's, in a shared history: the history keeps every run whole)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from layertax.engine.store import history, results
from layertax.errors import UsageError
from layertax.text import printable

_ID = re.compile(r"@(\d+)")
# How `layertax history` shows a run ("#46"), or its bare number: what a user copies from the listing.
_LISTED = re.compile(r"#?(\d+)")


@dataclass
class Run:
    name: str              # how it is shown: the file, or "history #ID"
    doc: dict
    path: Path | None      # the file, when it is one here


def is_reference(arg: str | Path) -> bool:
    return _ID.fullmatch(str(arg)) is not None


def _check_reference(arg: str | Path) -> None:
    """`@...` that is not `@` and a number: said so, not looked for as a file named "@abc". A
    run's number as the history lists it ("#46", "46") with no file of that name: the
    reference it meant is named, where "no such file: 46" had left the user to find it."""
    text = str(arg)
    if Path(text).exists():
        return
    if text.startswith("@") and not _ID.fullmatch(text):
        raise UsageError(f"{printable(text)}: a run of the history is @ and its number (@12; see `layertax "
                         "history`), and no file has this name")
    listed = _LISTED.fullmatch(text)
    if listed:
        raise UsageError(f"{text}: no file has this name; the history's run #{listed.group(1)} is "
                         f"@{listed.group(1)}")


def load(arg: str | Path) -> Run:
    _check_reference(arg)
    found = _ID.fullmatch(str(arg))
    if found:
        return Run(f"history #{found.group(1)}", history.document(None, int(found.group(1))), None)
    return Run(str(arg), results.load(arg), Path(arg))


def from_row(row: dict) -> Run:
    """A run listed by history.runs(): its file when it is here, else the history's copy."""
    path = Path(row["path"])
    if path.is_file():
        return Run(str(path), results.load(path), path)
    return Run(f"history #{row['id']}", history.load(row), None)
