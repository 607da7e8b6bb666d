"""`layertax compare`: is B faster, slower, or no different from A, case by case?"""
from __future__ import annotations

from pathlib import Path

from layertax import console as consoles
from layertax.engine.analysis import compare as comparing
from layertax.commands import runref
from layertax.engine.store import history
from layertax.errors import UsageError
from layertax.report import comparison
from layertax.text import printable, printable_data


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _run_label(run: runref.Run) -> str:
    return printable(f"{run.name} ({run.doc.get('created', '?')}, layertax {run.doc.get('layertax_version', '?')})")


def _pairs(files: tuple[str, ...], vs_history: int | None) -> list[tuple[runref.Run, runref.Run]]:
    """(A, B) pairs: the first run against each other one, or a run against its history."""
    if vs_history is None and len(files) < 2:
        raise UsageError("compare needs two result files (A B), or --vs-history N")
    if vs_history is not None and len(files) > 1:
        raise UsageError("--vs-history compares one run with its history: give at most one FILE")
    if vs_history is None:
        loaded = [runref.load(f) for f in files]
        return [(loaded[0], other) for other in loaded[1:]]
    if files:
        subject = runref.load(files[0])
    else:
        newest = history.runs(None, 1)
        if not newest:
            raise UsageError("no saved runs yet: `layertax run` saves one")
        subject = runref.from_row(newest[0])
    return [(_earlier(subject, vs_history), subject)]


# Runs of the same experiments counted another way looked at, at most, before giving up.
OTHER_METRIC_MAX = 20


def _earlier(subject: runref.Run, n: int) -> runref.Run:
    """The n-th earlier run on this machine of every experiment subject ran, counted the same way
    (time, or instructions: `make run` saves a run of each, and the one counted the other way has
    nothing to compare with)."""
    metric = _metric(subject.doc)
    found = 0
    for row in history.earlier(None, subject.doc, subject.path)[:n + OTHER_METRIC_MAX]:
        candidate = runref.from_row(row)
        if _metric(candidate.doc) != metric:
            continue
        found += 1
        if found == n:
            return candidate
    raise UsageError(f"no {_ordinal(n)} earlier run of {', '.join(e['name'] for e in subject.doc['experiments'])} "
                     f"counted in {metric} on this machine in the history (see `layertax history`)")


def _metric(doc: dict) -> str:
    """What a run counted: "time", or "instructions" (--metric)."""
    return (doc.get("settings") or {}).get("metric") or "time"


def _refuse_a_file_against_itself(pairs: list[tuple[runref.Run, runref.Run]]) -> None:
    for a, b in pairs:
        same_file = a.path and b.path and a.path.exists() and b.path.exists() and a.path.resolve() == b.path.resolve()
        if same_file or (a.path is None and a.name == b.name):
            what = "file" if same_file else "run"
            raise UsageError(f"{a.name} and {b.name} are the same {what}: every difference would be zero by "
                             "construction; compare two runs")


def run(files: tuple[str, ...], vs_history: int | None, threshold: float, verbose: bool = False) -> int:
    pairs = _pairs(files, vs_history)
    _refuse_a_file_against_itself(pairs)
    out = consoles.console()
    for i, (a, b) in enumerate(pairs):
        if i:
            out.print()
        with consoles.busy(f"comparing {Path(b.name).name} with {Path(a.name).name}"):
            # What is shown is the runs' text made printable (text.py): names come from files.
            result = comparing.compare_runs(printable_data(a.doc), printable_data(b.doc), threshold, _run_label(a),
                                            _run_label(b))
        if not result.experiments:
            raise UsageError(f"{printable(a.name)} and {printable(b.name)} have no experiment in common")
        comparison.render(result, out, verbose)
    return 0


def newest_per_machine(limit: int = 8) -> list[runref.Run]:
    """The newest run of each machine in the history (a shared one holds several), newest first."""
    chosen: dict[str, dict] = {}
    for row in history.runs(None):
        if row["machine_id"] not in chosen and row["complete"]:
            chosen[row["machine_id"]] = row
        if len(chosen) == limit:
            break
    return [runref.from_row(row) for row in chosen.values()]


def by_machine(files: tuple[str, ...]) -> int:
    from layertax.engine.analysis import fleet
    from layertax.report import fleet as fleet_view

    runs = [runref.load(f) for f in files] if files else newest_per_machine()
    if len(runs) < 2:
        raise UsageError("--by-machine sets runs side by side: give two or more (files or @ID), or keep runs of "
                         "two machines in the history" + ("" if files else f" (it holds {len(runs)})"))
    table = fleet.fleet([(printable(r.name), printable_data(r.doc)) for r in runs])
    fleet_view.render(table, consoles.console())
    return 0
