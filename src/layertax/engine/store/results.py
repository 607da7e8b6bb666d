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
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from layertax.errors import UsageError
from layertax.version import full_version

SCHEMA = "layertax/1"


class ResultError(UsageError):
    """A file that is missing, unreadable, or not a layertax result."""


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_path(runs_dir: Path, doc: dict) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    names = "+".join(e["name"] for e in doc.get("experiments", [])) or "empty"
    path = runs_dir / f"{stamp}-{names}.json"
    n = 1
    while path.exists():
        n += 1
        path = runs_dir / f"{stamp}-{names}-{n}.json"
    return path


def new_document(settings: dict | None, machine: dict, experiments: list[dict] | None = None,
                 complete: bool = False) -> dict:
    """The envelope of one run: schema, version, when, the command line, how, and on what."""
    return {"schema": SCHEMA, "layertax_version": full_version(), "created": now_iso(),
            "command": ["layertax", *sys.argv[1:]], "complete": complete, "settings": settings,
            "machine": machine, "experiments": experiments or []}


def dumps(doc: dict) -> str:
    """The document as saved: indented JSON, strictly (a NaN or infinity is an error, not a token)."""
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def save(doc: dict, path: Path) -> Path:
    """Writes doc to path atomically: readers see the old file or the new one, never half."""
    return write_text(dumps(doc), path)


def write_text(text: str, path: Path) -> Path:
    """Writes text to path atomically (temp file + rename in the same directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def validate(doc) -> None:
    if not isinstance(doc, dict):
        raise ResultError("not a layertax result: the top level is not a JSON object")
    if doc.get("schema") != SCHEMA:
        raise ResultError(f"not a layertax result: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("machine", "experiments", "settings"):
        if key not in doc:
            raise ResultError(f"corrupt result: '{key}' is missing")
    if not isinstance(doc["experiments"], list):
        raise ResultError("corrupt result: 'experiments' is not a list")
    for exp in doc["experiments"]:
        if not isinstance(exp, dict) or "name" not in exp or not isinstance(exp.get("cases"), list):
            raise ResultError("corrupt result: an experiment lacks its name or cases")
        for case in exp["cases"]:
            if not isinstance(case, dict) or "name" not in case or not isinstance(case.get("samples"), list):
                raise ResultError(f"corrupt result: a case of {exp['name']} lacks its name or samples")


def load(path: str | Path) -> dict:
    path = Path(path)
    if not path.exists():
        raise ResultError(f"no such file: {path}")
    if path.is_dir():
        raise ResultError(f"{path} is a directory, not a result file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ResultError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    validate(doc)
    return doc


def check_writable(path: str | Path, what: str) -> Path:
    """Fails before any work starts if path cannot be written, leaving nothing behind.

    Probes for real (os.access says yes to root even on a read-only filesystem):
    an existing file is opened for appending without writing, otherwise a
    temporary file is created beside it and removed.
    """
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UsageError(f"cannot write {what} {p}: it is a directory")
    if not parent.is_dir():
        raise UsageError(f"cannot write {what} {p}: directory {parent} does not exist")
    try:
        if p.exists():
            with open(p, "a"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{p.name}.", suffix=".probe"):
                pass
    except OSError as e:
        raise UsageError(f"cannot write {what} {p}: {e.strerror or e}") from None
    return p
