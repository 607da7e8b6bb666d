"""encoding: Python's shims. A str path is encoded to the filesystem encoding on
every call and a str result decoded back; a bytes path goes to the system call as
it is. Cases: os.getcwd() vs os.getcwdb(), os.stat(str) vs os.stat(bytes),
os.readlink(str) vs (bytes), in an ASCII and a non-ASCII directory (the same
names as classic.c); and str.encode / bytes.decode on their own (throughput)."""
from __future__ import annotations

import os
import stat as stat_mod
import sys
from dataclasses import dataclass

from layertax.harnesses.python import KernelFailure, PyCase, kernel_main

if __package__:      # imported as part of layertax (the tests)
    from layertax.experiments.encoding.kernels.text import KINDS, text
else:                # run as a script, as the engine runs a Python kernel: its directory is on sys.path
    from text import KINDS, text  # type: ignore

NAMES = {False: ("workdir-ascii", "target-file.bin", "link-name"),
         True: ("工作目录-каталог-é", "目标文件-цель.bin", "链接-ссылка")}
SIZES = {"16": 16, "256": 256, "64k": 65536, "16m": 16 << 20}


@dataclass
class Place:
    home: str
    target: str
    link: str
    old_cwd: str
    target_arg: str | bytes = ""   # what the loop passes: str, or bytes prepared once
    link_arg: str | bytes = ""
    result: object = None


def place(directory: str | None, nonascii: bool) -> Place:
    if not directory:
        raise KernelFailure("--dir is required: the cases create a directory to stand in")
    home_name, target_name, link_name = NAMES[nonascii]
    home = os.path.join(directory, home_name)
    os.mkdir(home, 0o700)
    old = os.getcwd()
    os.chdir(home)
    target = os.path.join(os.path.realpath(home), target_name)
    with open(target, "xb"):
        pass
    os.symlink(target, link_name)
    return Place(os.path.realpath(home), target, link_name, old, target, link_name)


def leave(p: Place) -> None:
    os.chdir(p.old_cwd)
    for path in (os.path.join(p.home, p.link), p.target):
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(p.home)
    except OSError:
        pass


def runtime_case(op: str, kind: str, nonascii: bool) -> PyCase:
    """op: getcwd, stat or readlink; kind: str or bytes."""
    as_bytes = kind == "bytes"

    def setup(directory: str | None) -> Place:
        p = place(directory, nonascii)
        if as_bytes:  # the arguments are prepared once, outside the loop: the point is not converting
            p.target_arg, p.link_arg = os.fsencode(p.target), os.fsencode(p.link)
        return p

    if op == "getcwd":
        def run(p: Place, n: int) -> None:
            fn = os.getcwdb if as_bytes else os.getcwd
            for _ in range(n):
                p.result = fn()
    elif op == "stat":
        def run(p: Place, n: int) -> None:
            st = os.stat
            target = p.target_arg
            for _ in range(n):
                p.result = st(target)
    else:
        def run(p: Place, n: int) -> None:
            rl = os.readlink
            link = p.link_arg
            for _ in range(n):
                p.result = rl(link)

    def verify(p: Place) -> None:
        home = os.fsencode(p.home) if as_bytes else p.home
        target = os.fsencode(p.target) if as_bytes else p.target
        if op == "getcwd" and p.result != home:
            raise KernelFailure(f"getcwd gave {p.result!r}, not {home!r}")
        if op == "stat" and not stat_mod.S_ISREG(p.result.st_mode):
            raise KernelFailure(f"stat of {target!r} is not the regular file set up")
        if op == "readlink" and p.result != target:
            raise KernelFailure(f"readlink gave {p.result!r}, not {target!r}")
        if type(p.result) is not (bytes if as_bytes else str) and op != "stat":
            raise KernelFailure(f"{op} returned {type(p.result).__name__}, not {kind}")

    name = f"py-{op}-{kind}" + ("-nonascii" if nonascii else "")
    call = {"getcwd": "os.getcwdb()" if as_bytes else "os.getcwd()"}.get(op, f"os.{op}({kind})")
    return PyCase(name, f"Python {call}" + (", non-ASCII path" if nonascii else ""), 1, setup, run, verify, leave)


@dataclass
class Text:
    data: bytes
    string: str
    out: object = None


def throughput_case(direction: str, kind: str, size: str) -> PyCase:
    """direction: encode (str -> UTF-8 bytes) or decode (UTF-8 bytes -> str)."""
    def setup(directory: str | None) -> Text:
        data = text(kind, SIZES[size])
        return Text(data, data.decode("utf-8"))

    if direction == "encode":
        def run(t: Text, n: int) -> None:
            s = t.string
            for _ in range(n):
                t.out = s.encode("utf-8")
    else:
        def run(t: Text, n: int) -> None:
            d = t.data
            for _ in range(n):
                t.out = d.decode("utf-8")

    def verify(t: Text) -> None:  # the round trip
        back = t.out if direction == "encode" else t.out.encode("utf-8")
        if back != t.data:
            raise KernelFailure(f"{direction}: the round trip does not give the text back")

    return PyCase(f"tp-py-{direction}-{kind}-{size}", f"Python {'str.encode' if direction == 'encode' else 'bytes.decode'}",
                  1, setup, run, verify, bytes_per_op=SIZES[size])


CASES = [runtime_case(op, kind, nonascii) for nonascii in (False, True)
         for op in ("getcwd", "stat", "readlink") for kind in ("str", "bytes")]
CASES += [throughput_case(d, k, s) for d in ("encode", "decode") for k in KINDS for s in SIZES]

if __name__ == "__main__":
    sys.exit(kernel_main("encoding-python", CASES))
