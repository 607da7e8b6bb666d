"""scan's input: a deterministic DNA-like file (or the user's own), its expected
count, and evicting it from the page cache for cold runs.

The expected count is taken here with numpy, by a table lookup over the bytes,
independently of every kernel; each kernel must match it exactly.
"""
from __future__ import annotations

import ctypes
import errno
import mmap
import os
import stat
from pathlib import Path

import numpy as np

from layertax import files

SEED = 20170914               # the classic's date: the same size gives the same bytes everywhere
CHUNK = 16 << 20              # generated and counted in pieces this big, so memory stays flat
LINE_MIN, LINE_MAX = 60, 80   # FASTA-like line lengths
BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
BASE_P = (0.295, 0.205, 0.205, 0.295)   # about 41% GC, as in the human genome
LOWER_LINES = 0.3             # soft-masked (lower-case) share of lines: mixed case, as in real FASTA
HEADER = b">layertax-scan synthetic DNA-like sequence\n"

# 200 entries hold BASE_P exactly (59 A, 41 C, 41 G, 59 T): one random byte below 200 picks a base.
_BASE_TABLE = np.repeat(BASES, [round(p * 200) for p in BASE_P])

_CG = np.zeros(256, dtype=np.uint8)
_CG[list(b"cCgG")] = 1


def count_cg(data: np.ndarray) -> int:
    """How many bytes of `data` (uint8) are C, G, c or g."""
    return int(_CG[data].sum(dtype=np.uint64))


def _lines(rng: np.random.Generator, approx: int) -> np.ndarray:
    """About `approx` bytes of sequence lines, each 60-80 bases and a newline."""
    lengths = rng.integers(LINE_MIN, LINE_MAX + 1, size=approx // LINE_MIN + 1)
    letters = _BASE_TABLE[rng.integers(0, _BASE_TABLE.size, size=int(lengths.sum()), dtype=np.uint8)]
    lower = np.repeat(rng.random(lengths.size) < LOWER_LINES, lengths)
    letters = letters | (lower.astype(np.uint8) << 5)   # 0x20 turns A into a
    ends = np.cumsum(lengths + 1) - 1                    # where each newline goes
    out = np.empty(int(ends[-1]) + 1, dtype=np.uint8)
    is_letter = np.ones(out.size, dtype=bool)
    is_letter[ends] = False
    out[is_letter] = letters
    out[ends] = ord("\n")
    return out


def generate(path: Path, size: int, progress=lambda done, total: None) -> int:
    """Writes `size` bytes of the deterministic sequence to `path`; returns its C/G/c/g count."""
    rng = np.random.Generator(np.random.PCG64(SEED))
    count, written = 0, 0
    with files.atomic_file(path) as f:
        pending = np.frombuffer(HEADER, dtype=np.uint8)
        while written < size:
            if pending.size == 0:
                pending = _lines(rng, CHUNK)
            piece = pending[: size - written]
            pending = pending[piece.size:]
            f.write(piece.tobytes())
            count += count_cg(piece)
            written += piece.size
            progress(written, size)
    return count


def count_file(path: Path, progress=lambda done, total: None) -> tuple[int, int]:
    """(C/G/c/g count, bytes) of an existing file, read in chunks (which also warms the page cache)."""
    count, size = 0, 0
    total = os.stat(path).st_size
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            count += count_cg(np.frombuffer(chunk, dtype=np.uint8))
            size += len(chunk)
            progress(size, total)
    return count, size


def check_readable(path: Path) -> Path:
    """The file to scan, or ValueError with one line saying why it cannot be."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path} is a directory; give a file")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path} is not a regular file (kernels map it and need its size)")
    try:
        fd = os.open(path, os.O_RDONLY)
    except PermissionError:
        raise ValueError(f"{path}: permission denied (it must be readable by you)") from None
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    os.close(fd)
    return Path(path).resolve()


# --- the page cache ---

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


def resident_share(path: Path) -> float:
    """The share of the file's pages in the page cache now (mincore(2) on a mapping that is
    never touched, so asking does not bring pages in)."""
    size = os.stat(path).st_size
    if size == 0:
        return 0.0
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        try:
            vec = (ctypes.c_ubyte * pages)()
            if _libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed")
            return float((np.frombuffer(vec, dtype=np.uint8) & 1).sum()) / pages
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def evict(path: Path) -> tuple[float, str]:
    """Drops the file from the page cache; (share still resident, how it was done).

    posix_fadvise(DONTNEED) needs no privilege and touches only this file; dirty
    pages are written back first (fsync), since DONTNEED leaves them. If pages stay
    (another process maps them), root may drop the whole clean page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    left = resident_share(path)
    if left < 0.01:
        return left, "posix_fadvise(POSIX_FADV_DONTNEED)"
    try:
        files.write_control("/proc/sys/vm/drop_caches", "1\n")
    except OSError as e:
        why = "not permitted (needs root)" if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else e.strerror
        return left, f"posix_fadvise(POSIX_FADV_DONTNEED); /proc/sys/vm/drop_caches: {why}"
    return resident_share(path), "posix_fadvise(POSIX_FADV_DONTNEED), then /proc/sys/vm/drop_caches"
