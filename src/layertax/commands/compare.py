"""`layertax compare`: is B faster, slower, or no different from A, case by case?"""
from __future__ import annotations

from pathlib import Path

from layertax import console as consoles
from layertax import paths
from layertax.engine.analysis import compare as comparing
from layertax.engine.store import history, results
from layertax.errors import UsageError
from layertax.report import comparison


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _run_label(path: Path, doc: dict) -> str:
    return f"{path} ({doc.get('created', '?')}, layertax {doc.get('layertax_version', '?')})"


def _pairs(files: tuple[Path, ...], vs_history: int | None) -> list[tuple[Path, Path]]:
    """(A, B) file pairs: the first file against each other one, or a run against its history."""
    if vs_history is None and len(files) < 2:
        raise UsageError("compare needs two result files (A B), or --vs-history N")
    if vs_history is not None and len(files) > 1:
        raise UsageError("--vs-history compares one run with its history: give at most one FILE")
    if vs_history is None:
        return [(files[0], other) for other in files[1:]]
    if files:
        subject_path = files[0]
    else:
        newest = history.runs(paths.history_db(), 1)
        if not newest:
            raise UsageError("no saved runs yet: `layertax run` saves one")
        subject_path = Path(newest[0]["path"])
    subject = results.load(subject_path)
    earlier = history.previous(paths.history_db(), subject, subject_path, vs_history)
    if earlier is None:
        raise UsageError(f"no {_ordinal(vs_history)} earlier run of "
                         f"{', '.join(e['name'] for e in subject['experiments'])} "
                         "on this machine in the history (see `layertax history`)")
    return [(Path(earlier["path"]), subject_path)]


def _refuse_a_file_against_itself(pairs: list[tuple[Path, Path]]) -> None:
    for a, b in pairs:
        if Path(a).exists() and Path(b).exists() and Path(a).resolve() == Path(b).resolve():
            raise UsageError(f"{a} and {b} are the same file: every difference would be zero by construction; "
                             "compare two runs")


def run(files: tuple[Path, ...], vs_history: int | None, threshold: float) -> int:
    pairs = _pairs(files, vs_history)
    _refuse_a_file_against_itself(pairs)
    out = consoles.console()
    loaded = {p: results.load(p) for pair in pairs for p in pair}
    for i, (a, b) in enumerate(pairs):
        if i:
            out.print()
        doc_a, doc_b = loaded[a], loaded[b]
        with consoles.busy(f"comparing {b.name} with {a.name}"):
            result = comparing.compare_runs(doc_a, doc_b, threshold, _run_label(a, doc_a), _run_label(b, doc_b))
        if not result.experiments:
            raise UsageError(f"{a} and {b} have no experiment in common")
        comparison.render(result, out)
    return 0
