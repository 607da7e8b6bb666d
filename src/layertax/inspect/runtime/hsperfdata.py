"""HotSpot's performance counters as a JVM saves them at exit (-XX:+PerfDataSaveToFile): the
file jstat reads from a live JVM, format 2.0 (a prologue, then one entry a counter). Only the
scalar counters are read (a long each: counts, bytes, ticks); the tick rate is the file's own
sun.os.hrt.frequency. A file that is not one, or is cut short, gives no counters: never an error,
the counters are a detail of the split."""
from __future__ import annotations

import struct

MAGIC = b"\xca\xfe\xc0\xc0"
# Prologue: magic, byte order (0 big-endian, 1 little), major, minor, accessible, then used,
# overflow, modification time stamp, entry offset, entry count.
_PROLOGUE = "IIqII"
# Entry: its length, the offsets of its name and data from its start, vector length, type
# ('J' a long), flags, units, variability.
_ENTRY = "IIIBBBBI"
MAX_BYTES = 1 << 20


def counters(data: bytes) -> dict[str, int]:
    """Every scalar long counter by name; {} when data is not a HotSpot performance data file."""
    if len(data) < 32 or data[:4] != MAGIC or data[4] not in (0, 1) or data[5] != 2:
        return {}
    order = "<" if data[4] == 1 else ">"
    try:
        _, _, _, offset, count = struct.unpack_from(order + _PROLOGUE, data, 8)
        out: dict[str, int] = {}
        for _ in range(min(count, 100_000)):
            length, name_at, vector, kind, _, _, _, data_at = struct.unpack_from(order + _ENTRY, data, offset)
            if length <= 0:
                break
            end = data.index(b"\0", offset + name_at, offset + length)
            name = data[offset + name_at:end].decode("ascii", "replace")
            if kind == ord("J") and vector == 0:
                out[name] = struct.unpack_from(order + "q", data, offset + data_at)[0]
            offset += length
        return out
    except (struct.error, ValueError):
        return {}


def class_loading(found: dict[str, int]) -> dict[str, float] | None:
    """The class loader's time in ns by HotSpot's counters: "total" (sun.cls.time) and its
    initialisation, linking and verification (each its own time, nested work left out); None
    without them."""
    hz = found.get("sun.os.hrt.frequency")
    if not hz or "sun.cls.time" not in found:
        return None
    ns = 1e9 / hz
    return {"total": found["sun.cls.time"] * ns,
            "initialisation": found.get("sun.cls.classInitTime.self", 0) * ns,
            "linking": found.get("sun.cls.classLinkedTime.self", 0) * ns,
            "verification": found.get("sun.cls.classVerifyTime.self", 0) * ns}
