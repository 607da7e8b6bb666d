"""scan, Python: bytes.count four times over 1 MiB slices of an mmap, and the
idiomatic line loop (for line in a binary file, line.count four times)."""
from __future__ import annotations

import mmap
import os

from layertax.harnesses.python import KernelFailure, PyCase, kernel_main

BLOCK = 1 << 20


class State:
    def __init__(self, mapped: bool):
        self.path = os.environ.get("LAYERTAX_SCAN_FILE")
        if not self.path:
            raise KernelFailure("LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`")
        self.size = int(os.environ["LAYERTAX_SCAN_BYTES"])
        self.expect = int(os.environ["LAYERTAX_SCAN_COUNT"])
        if os.stat(self.path).st_size != self.size:
            raise KernelFailure(f"{self.path} changed size")
        self.file = open(self.path, "rb")
        self.map = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ) if mapped and self.size else None
        self.got = -1

    def close(self) -> None:
        if self.map is not None:
            self.map.close()
        self.file.close()


def run_mmap(s: State, iters: int) -> None:
    for _ in range(iters):
        n = 0
        m = s.map
        if m is not None:
            for start in range(0, s.size, BLOCK):
                block = m[start:start + BLOCK]
                n += block.count(b"C") + block.count(b"G") + block.count(b"c") + block.count(b"g")
        s.got = n


def run_lines(s: State, iters: int) -> None:
    for _ in range(iters):
        n = 0
        s.file.seek(0)
        for line in s.file:
            n += line.count(b"C") + line.count(b"G") + line.count(b"c") + line.count(b"g")
        s.got = n


def verify(s: State) -> None:
    if s.got != s.expect:
        raise KernelFailure(f"counted {s.got} C/G/c/g bytes, expected {s.expect}")


def _case(name: str, description: str, mapped: bool, run) -> PyCase:
    size = int(os.environ.get("LAYERTAX_SCAN_BYTES", "0"))
    return PyCase(name, description, 1, lambda d: State(mapped), run, verify, State.close, bytes_per_op=size)


CASES = [
    _case("py-mmap-count", "bytes.count x4 over 1 MiB slices of an mmap (each slice a copy)", True, run_mmap),
    _case("py-lines", "for line in open(path, 'rb'): line.count x4", False, run_lines),
]

if __name__ == "__main__":
    raise SystemExit(kernel_main("scan-python", CASES))
