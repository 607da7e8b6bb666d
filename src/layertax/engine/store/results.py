"""The result document: its schema, atomic saving, and loading with validation.

A result is plain JSON data (dicts and lists) so that it can be diffed, read by
other tools, and round-tripped exactly. Layout (schema "layertax/1"):

    {"schema": "layertax/1", "layertax_version", "created", "command", "complete",
     "settings": {...}, "machine": {...fingerprint...},
     "experiments": [{"name", "title", "question", "unit", "baseline", "classic",
                      "workdir_fs", "kernels": {name: {...}}, "harness": {...},
                      "cases": [{"name", "kernel", "layer", "language", "status", "reason",
                                 "samples": [{"round", "iters", "ops", "ns", ...}],
                                 "stats": {"median", "min", "ci95", ..., "ratio", "warnings"}}]}]}

Times in stats are nanoseconds per operation.
"""
from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from layertax import files
from layertax.errors import UsageError
from layertax.redaction import redact_argv
from layertax.result import validate as validation
from layertax.result.model import ExperimentResult, Run
from layertax.result.validate import ResultError  # noqa: F401 (named by the callers that catch it)
from layertax.version import full_version

SCHEMA = "layertax/1"

MIN_FREE_BYTES = files.MIN_FREE_BYTES


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


NAMES_AT_MOST = 32   # characters of experiment names in a saved run's file name


def file_name(doc: dict, n: int = 1, experiments: list[str] | None = None) -> str:
    """A saved run's file name: when, and which experiments (each a plain word: the schema
    refuses any other name, so none can lead out of the runs directory). experiments: the ones
    the run measures, where it is saved before it has them all (after its first experiment: the
    name is kept for every later save); else those the document holds."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    listed = experiments if experiments is not None else [e["name"] for e in doc.get("experiments", [])]
    names = "+".join(listed) or "empty"
    # Short enough that the "saved:" line fits 80 columns under a usual data directory (a bare
    # run's six names had made it 108); the file itself lists every experiment.
    if len(names) > NAMES_AT_MOST:
        first = listed[0][:NAMES_AT_MOST]
        names = f"{first}-and-{len(listed) - 1}-more" if len(listed) > 1 else first
    return f"{stamp}-{names}.json" if n == 1 else f"{stamp}-{names}-{n}.json"


def save_new(doc: dict, runs_dir: Path, experiments: list[str] | None = None) -> Path:
    """Saves doc under a new name in runs_dir, taken exclusively when the file is whole (written
    aside, then linked in: two runs that end in the same second never share a name, and no
    empty or half-written file ever stands under a run's name)."""
    text = dumps(doc)
    files.remove_abandoned_temporaries(runs_dir)
    for n in range(1, 1000):
        path = runs_dir / file_name(doc, n, experiments)
        try:
            return files.write_text(text, path, exclusive=True)
        except FileExistsError:
            continue
    raise UsageError(f"cannot find a free file name in {runs_dir}")


def new_document(settings: dict | None, machine: dict, experiments: list[dict] | None = None,
                 complete: bool = False) -> dict:
    """The envelope of one run: schema, version, when, the command line (its passwords
    redacted), how, and on what."""
    return {"schema": SCHEMA, "layertax_version": full_version(), "created": now_iso(),
            "command": ["layertax", *redact_argv(sys.argv[1:])], "complete": complete, "settings": settings,
            "machine": machine, "experiments": experiments or []}


def new_run(experiment: ExperimentResult, settings: dict | None, machine: dict, complete: bool) -> Run:
    """One experiment's result in its run's envelope (new_document), typed."""
    envelope = new_document(settings, machine, complete=complete)
    return Run(layertax_version=envelope["layertax_version"], created=envelope["created"],
               command=envelope["command"], complete=envelope["complete"], settings=envelope["settings"],
               machine=envelope["machine"], experiments=[experiment])


def dumps(doc: dict) -> str:
    """The document as saved: indented JSON, strictly (a NaN or infinity is an error, not a token)."""
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def save(doc: dict, path: Path) -> Path:
    """Writes doc to path atomically: readers see the old file or the new one, never half."""
    return files.write_text(dumps(doc), path)


def validate(doc, shown: str = "the result") -> dict:
    """doc if it is a valid layertax/1 result, else ResultError in one line (result/validate.py)."""
    return validation.check(doc, shown)


def defect(doc: dict) -> str | None:
    """Why a document layertax wrote would not read back (validate's one line), or None. A
    writer's defect, checked before a run is kept: its report, compare and the history's readers
    all read through the schema, so a run that fails it is one none of them could read. What is
    checked is the document as written (a tuple in memory is a list on disk), in compact JSON:
    the same values, without the indentation that takes most of a save's time. One that cannot
    be written at all is the writer's to report (save), and None here."""
    try:
        written = json.loads(json.dumps(doc, allow_nan=False))
    except (TypeError, ValueError):
        return None
    try:
        validate(written, "this run")
    except ResultError as e:
        return str(e)
    return None


def parse(text: str, shown: str) -> dict:
    """A result from its JSON text (a history row, a fetched file): parsed strictly, validated."""
    try:
        doc = files.parse_json(text, shown)
    except UsageError as e:
        raise ResultError(str(e)) from None
    return validate(doc, shown)


def load(path: str | Path) -> dict:
    """A result file (or `-`, standard input), read within the input limit, parsed strictly and
    validated: whatever is wrong with it is said in one line, before anything reads it."""
    shown = "standard input" if str(path) == "-" else str(path)
    try:
        doc = files.read_json(path, "layertax result")
    except UsageError as e:
        raise ResultError(str(e)) from None
    return validate(doc, shown)
