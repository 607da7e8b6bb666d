"""Sizes as people write them: 256M, 1.5GiB, 4096. K, M, G... and KiB, MiB, GiB...
are powers of 1024; KB, MB, GB... powers of 1000 (as `dd` and `numfmt` read them)."""
from __future__ import annotations

import re

_PREFIXES = "KMGTPEZY"
MIN_SCAN = 1 << 20   # a smaller file: the scans time opening and mapping it, not reading it
# The generated file: 64 MiB is still twice a large last-level cache, so the scans read
# memory, in a quarter of the time of the 256 MiB that --thorough keeps.
DEFAULT_SIZE = 64 << 20
THOROUGH_SIZE = 256 << 20

# The memory ceiling reads an in-RAM buffer of its own, as large as the file, so that
# both see the same caches (a file smaller than the last-level cache is partly read
# from it, and so is the buffer); within these bounds, since bandwidth settles long
# before 1 GiB and the buffer is real memory beside the file's page cache.
CEILING_MIN, CEILING_MAX = 1 << 20, 1 << 30


def ceiling_bytes(size: int) -> int:
    """The memory ceiling's buffer for a file of size bytes."""
    return min(max(size, CEILING_MIN), CEILING_MAX)
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


def _unit(suffix: str) -> int | None:
    s = suffix.upper()
    if s in ("", "B"):
        return 1
    prefix, rest = s[0], s[1:]
    if prefix not in _PREFIXES:
        return None
    power = _PREFIXES.index(prefix) + 1
    if rest in ("", "IB", "I"):
        return 1024 ** power
    if rest == "B":
        return 1000 ** power
    return None


def parse_size(text: str) -> int:
    """Bytes in `text`; ValueError with a one-line reason otherwise."""
    if text.strip().startswith("-"):
        raise ValueError(f"{text!r}: a size cannot be negative")
    m = _SIZE.match(text)
    unit = _unit(m.group(2)) if m else None
    if unit is None:
        raise ValueError(f"{text!r} is not a size (examples: 4096, 64M, 1.5GiB, 500MB)")
    return int(float(m.group(1)) * unit)


def human(n: int) -> str:
    """256 MiB, 1.5 GiB, 512 B."""
    for power in range(len(_PREFIXES), 0, -1):
        unit = 1024 ** power
        if n >= unit:
            value = n / unit
            return f"{value:.0f} {_PREFIXES[power - 1]}iB" if value == int(value) else f"{value:.1f} {_PREFIXES[power - 1]}iB"
    return f"{n} B"
