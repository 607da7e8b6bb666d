"""The sample texts of the throughput cases: the same generator as text.c, byte for byte."""
from __future__ import annotations

KINDS = ("ascii", "latin", "cjk", "emoji")
BLOCK = 65536
MASK = (1 << 64) - 1


def _pick(kind: int, r: int) -> int:
    roll, v = r % 100, r >> 16
    ascii = 0x20 + v % 95
    if kind == 1:
        return ascii if roll < 30 else (0xC0 + v % 64 if roll < 65 else 0x410 + v % 64)
    if kind == 2:
        return ascii if roll < 10 else 0x4E00 + v % 0x5200
    if kind == 3:
        return ascii if roll < 10 else 0x1F600 + v % 80
    return ascii


def _generate(kind: int, size: int) -> bytes:
    x = 0x9E3779B97F4A7C15 ^ (kind + 1)
    out, used = [], 0
    while True:
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        ch = chr(_pick(kind, x)).encode("utf-8")
        if used + len(ch) > size:
            break
        out.append(ch)
        used += len(ch)
    return b"".join(out) + b" " * (size - used)


def text(kind: str, size: int) -> bytes:
    """Exactly size bytes of valid UTF-8 (see text.c)."""
    k = KINDS.index(kind)
    if size <= BLOCK:
        return _generate(k, size)
    if size % BLOCK:
        raise ValueError(f"texts above {BLOCK} bytes must be a multiple of it, not {size}")
    return _generate(k, BLOCK) * (size // BLOCK)
