"""callchain: the same rename through Python's layers: os.rename with str and
bytes paths, pathlib, and shutil.move. Each moves a file to a second name and back."""
from __future__ import annotations

import os
import pathlib
import shutil
import sys
from dataclasses import dataclass

from layertax.harnesses.python import KernelFailure, PyCase, kernel_main

MARKER = b"layertax callchain marker\n"


@dataclass
class Pair:
    a: str
    b: str
    inode: int


def setup(directory: str | None) -> Pair:
    if not directory:
        raise KernelFailure("--dir is required: rename cases work only in a private directory")
    a = os.path.join(directory, "layertax-file-a")
    b = os.path.join(directory, "layertax-file-b")
    with open(a, "xb") as f:
        f.write(MARKER)
    if os.path.exists(b):
        raise KernelFailure(f"{b} already exists")
    return Pair(a, b, os.stat(a).st_ino)


def verify(p: Pair) -> None:
    try:
        st = os.stat(p.a)
    except FileNotFoundError:
        raise KernelFailure(f"after the loop {p.a} is missing") from None
    if st.st_ino != p.inode:
        raise KernelFailure(f"{p.a} is a different file")
    if os.path.lexists(p.b):
        raise KernelFailure(f"after the loop {p.b} still exists")
    with open(p.a, "rb") as f:
        if f.read() != MARKER:
            raise KernelFailure(f"{p.a} lost its contents")


def teardown(p: Pair) -> None:
    for path in (p.a, p.b):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


# The loops bind everything they use to locals first, so the loop measures the
# call, not global lookups.

def run_os_str(p: Pair, n: int) -> None:
    rename, a, b = os.rename, p.a, p.b
    for _ in range(n):
        rename(a, b)
        rename(b, a)


def run_os_bytes(p: Pair, n: int) -> None:
    rename, a, b = os.rename, os.fsencode(p.a), os.fsencode(p.b)
    for _ in range(n):
        rename(a, b)
        rename(b, a)


def run_pathlib(p: Pair, n: int) -> None:
    a, b = pathlib.Path(p.a), pathlib.Path(p.b)
    for _ in range(n):
        a.rename(b)
        b.rename(a)


def run_shutil(p: Pair, n: int) -> None:
    move, a, b = shutil.move, p.a, p.b
    for _ in range(n):
        move(a, b)
        move(b, a)


def _case(name: str, description: str, run) -> PyCase:
    return PyCase(name, description, 2, setup, run, verify, teardown)


CASES = [
    _case("py-os-rename-str", "os.rename(str, str): paths encoded with the filesystem encoding", run_os_str),
    _case("py-os-rename-bytes", "os.rename(bytes, bytes): no encoding step", run_os_bytes),
    _case("py-pathlib-rename", "pathlib.Path.rename", run_pathlib),
    _case("py-shutil-move", "shutil.move (checks, then os.rename)", run_shutil),
]

if __name__ == "__main__":
    sys.exit(kernel_main("callchain-rename-python", CASES))
