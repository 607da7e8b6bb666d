"""Names what happened to the message, by comparing the bytes written with the bytes meant.

The classes, checked in this order (the first that holds wins):
  error           the program exited non-zero, wrote to stderr, or hung
  exact           every byte as meant
  truncated       the last line (ASCII) never arrived: output stopped after a failure
  transliterated  characters spelled in ASCII (é -> e, Æ -> AE; ? where there is no spelling)
  replaced        characters replaced by a marker (?, U+FFFD, \\uXXXX), the rest intact
  dropped         characters or whole lines missing, silently, with the output going on
  mojibake        any other bytes: text encoded one way and read another
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from layertax.experiments.unicode_io import message

CLASSES = ("exact", "transliterated", "replaced", "dropped", "mojibake", "truncated", "error")

# What converters write for a character they cannot encode.
# One per character, or one per byte of its UTF-8 form (a decoder replacing each bad byte).
_MARKERS = (rb"\?{1,4}", b"(?:" + re.escape("\ufffd".encode()) + b"){1,4}", rb"\\u[0-9a-fA-F]{4}", rb"\\U[0-9a-fA-F]{8}",
            rb"\\x[0-9a-fA-F]{2}", rb"&#\d+;", rb"\\N\{[^}]*\}")

_WIDE_ENCODINGS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


@dataclass
class Verdict:
    kind: str
    facts: dict = field(default_factory=dict)   # where the output first differs, and how


def _char_pattern(ch: str, i: int) -> bytes:
    if ord(ch) < 128:
        return re.escape(ch.encode())
    alts = [b"(?P<u%d>%s)" % (i, re.escape(ch.encode()))]
    spellings = [s for s in message.TRANSLIT.get(ch, ()) if s]
    if spellings:
        alts.append(b"(?P<t%d>%s)" % (i, b"|".join(re.escape(s.encode()) for s in spellings)))
    alts.append(b"(?P<s%d>%s)" % (i, b"|".join(_MARKERS)))
    return b"(?:" + b"|".join(alts) + b")"


def _aligned(text: str, got: bytes) -> tuple[str, dict[str, str]] | None:
    """("transliterated" or "replaced", {character: what arrived for it}) if got is the text
    with some characters spelled in ASCII or marked; None if it is not."""
    pattern = b"".join(_char_pattern(ch, i) for i, ch in enumerate(text))
    m = re.fullmatch(pattern, got, flags=re.DOTALL)
    if m is None:
        return None
    used, arrived = set(), {}
    for name, value in m.groupdict().items():
        if value is None:
            continue
        used.add(name[0])
        if name[0] != "u":
            arrived.setdefault(text[int(name[1:])], value.decode("ascii", "backslashreplace"))
    # A transliterating converter marks what has no ASCII spelling (中 -> ?): any spelling
    # at all makes the cell transliterated.
    kind = "transliterated" if "t" in used else ("replaced" if "s" in used else "exact")
    return kind, arrived


def _is_subsequence(part: str, whole: str) -> bool:
    it = iter(whole)
    return all(ch in it for ch in part)


def first_difference(expected: bytes, got: bytes, text: str) -> dict | None:
    """Where got first departs from expected: the byte offset, the character meant there
    (with its line), and the bytes that came instead."""
    n = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    if n == len(expected) == len(got):
        return None
    offset = 0
    for ch in text:
        size = len(ch.encode())
        if offset + size > n:
            break
        offset += size
    else:
        ch = ""
    line = expected[:n].count(b"\n") + 1
    return {"byte": n, "line": line, "expected_char": ch, "expected_code": f"U+{ord(ch):04X}" if ch else None,
            "got": got[n:n + 16].decode("utf-8", "backslashreplace"), "ended": n >= len(got)}


def classify(got: bytes, stderr: bytes = b"", exit_code: int | None = 0, timed_out: bool = False,
             expected: bytes = message.EXPECTED, text: str = message.TEXT) -> Verdict:
    facts = first_difference(expected, got, text) or {}
    if timed_out or exit_code != 0 or stderr.strip():
        return Verdict("error", facts)
    if got == expected:
        return Verdict("exact")
    last_line = text.splitlines(keepends=True)[-1]
    arrived_otherwise = any(last_line.encode(enc) in got for enc in _WIDE_ENCODINGS)   # wide bytes: mojibake
    if not got.endswith(last_line.encode()) and not arrived_otherwise:
        facts["lines_arrived"] = got.count(b"\n")
        return Verdict("truncated", facts)
    aligned = _aligned(text, got)
    if aligned is not None and aligned[0] != "exact":
        facts["arrived_as"] = aligned[1]
        return Verdict(aligned[0], facts)
    try:
        decoded = got.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is not None and _is_subsequence(decoded, text):
        facts["lost_chars"] = len(text) - len(decoded)
        facts["lines_cut"] = [i + 1 for i, line in enumerate(text.splitlines(keepends=True)) if line not in decoded]
        return Verdict("dropped", facts)
    return Verdict("mojibake", facts)
