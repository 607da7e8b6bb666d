"""Which of layertax's own code an experiment's figures rest on: a digest of the source files
that measure it, saved with the experiment's result.

Runs of one version are set side by side (engine/store/recent.py) only where this code is the
same too: two checkouts of one commit with different uncommitted edits share the version's
description ("-dirty") and would otherwise be compared as if they measured alike. A digest
also tells which of two versions measured alike (a commit that changes only the docs does not
change it), which a reader of saved runs can use.

The digest covers every file of the package except the parts that only present or move
results (PRESENTING) and the other experiments' packages: conservative, so that a change that
could move a figure (the engine, a harness, the launch timer, a kernel, a build flag) always
gives a new digest.
"""
from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import layertax

PACKAGE = Path(layertax.__file__).resolve().parent
# The package's top folders that read, print, import or ship results and never measure.
PRESENTING = frozenset({"cli", "commands", "fleet", "inspect", "report", "result", "windows"})
EXPERIMENTS = "experiments"
# A digest's length in hex digits: 64 bits, far past any chance of two versions colliding.
DIGITS = 16


def _source_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _feed(h, files: list[Path]) -> None:
    for path in files:
        h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())


@cache
def _common() -> bytes:
    """The digest of the code every experiment's figures rest on (computed once a process)."""
    h = hashlib.sha256()
    for entry in sorted(PACKAGE.iterdir()):
        if entry.name in PRESENTING or entry.name == EXPERIMENTS or entry.name == "__pycache__":
            continue
        _feed(h, _source_files(entry) if entry.is_dir() else [entry] if entry.is_file() else [])
    _feed(h, [p for p in (PACKAGE / EXPERIMENTS).iterdir() if p.is_file()])
    return h.digest()


def digest(experiment_dir: Path | None) -> str:
    """The digest of the code an experiment's figures rest on: the common code and its own
    package (experiment_dir; None for one that has none inside layertax)."""
    h = hashlib.sha256(_common())
    if experiment_dir is not None:
        folder = Path(experiment_dir).resolve()
        if folder.is_relative_to(PACKAGE):
            _feed(h, _source_files(folder))
    return h.hexdigest()[:DIGITS]
