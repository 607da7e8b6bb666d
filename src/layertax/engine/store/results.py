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
import shutil
import stat
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from layertax.errors import UsageError
from layertax.version import full_version

SCHEMA = "layertax/1"

# A saved run or an export is a few hundred KiB (a long launch run with every raw sample, or
# the HTML report: a few MiB); less free space than this is refused before measuring rather
# than failing after it.
MIN_FREE_BYTES = 16 << 20


class ResultError(UsageError):
    """A file that is missing, unreadable, or not a layertax result."""


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_path(runs_dir: Path, doc: dict) -> Path:
    """A new file name under runs_dir, reserved: created empty and exclusively (O_EXCL), so two
    runs that start in the same second never get the same name (the save replaces it)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    names = "+".join(e["name"] for e in doc.get("experiments", [])) or "empty"
    runs_dir.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        path = runs_dir / (f"{stamp}-{names}.json" if n == 1 else f"{stamp}-{names}-{n}.json")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return path
        except FileExistsError:
            n += 1


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


def _stream_target(path: Path) -> bool:
    """Whether path names a stream to write into rather than a file to replace: `-` (stdout), or
    an existing character device or FIFO, directly or through a symlink (/dev/null, /dev/stdout).
    Anything else that exists and is not a regular file (a directory, a socket) is refused."""
    if str(path) == "-":
        return True
    try:
        st = path.stat()                     # follows symlinks: the thing that would be written
    except FileNotFoundError:
        return False
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
    if stat.S_ISREG(st.st_mode):
        return False
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"cannot write {path}: it is a directory")
    raise UsageError(f"cannot write {path}: it is not a regular file (only a file, a device or a FIFO, or - "
                     "for standard output)")


def write_text(text: str, path: Path) -> Path:
    """Writes text to path: a regular file atomically (temp file + rename in the same directory,
    through a symlink to the file it names, so the link stays); a device, a FIFO or `-` as a
    stream, never replaced."""
    path = Path(path)
    if _stream_target(path):
        if str(path) == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return path
    if path.is_symlink():
        path = path.resolve()
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
    if not str(path):
        raise UsageError(f"{what}: an empty path (give a file, or - for standard output)")
    if _stream_target(p):   # a device, a FIFO or stdout: written as a stream, never opened here
        return p            # (opening a FIFO with no reader would block)
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
        free = shutil.disk_usage(parent).free
    except OSError as e:
        raise UsageError(f"cannot write {what} {p}: {e.strerror or e}") from None
    if free < MIN_FREE_BYTES:
        raise UsageError(f"cannot write {what} {p}: only {free >> 20} MiB free in {parent}, and it may need "
                         f"{MIN_FREE_BYTES >> 20} MiB")
    return p
