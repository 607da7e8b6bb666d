"""Text from outside layertax made safe to show: control characters escaped.

A case name, a program's name, a DT_NEEDED entry or a machine field comes from a file or a
program layertax does not control. Written raw, an ESC sequence in it can clear the screen,
retitle the terminal or forge a hyperlink (OSC 8), and a newline can forge an output line.
So every such text is shown with its control characters as visible escapes (`\\x1b`, `\\n`),
the way `repr` shows them, and the text itself is kept unchanged in the saved result (JSON
escapes them on its own). Ground floor: anything that prints or exports uses it.
"""
from __future__ import annotations

import re

# C0 controls, DEL and the C1 controls (0x80-0x9f: 0x9b is a one-byte CSI on some terminals),
# and the Unicode line and paragraph separators and bidirectional overrides, which reorder or
# break what a reader sees without being controls in the narrow sense.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# The same, but a line break and a tab stay: for text layertax wrote itself, in several lines.
_CONTROL_BUT_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Nesting deeper than this is refused where data is read (files.py): the walk below, like
# every reader of a result, may then recurse without a limit of its own.
MAX_DEPTH = 64


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: object) -> str:
    """text as one line a terminal shows as it is: every control character as a visible escape."""
    return _CONTROL.sub(_escape, str(text))


def printable_lines(text: object) -> str:
    """text with its line breaks and tabs kept and every other control character escaped: for
    layertax's own messages, which may span lines, around parts from outside."""
    return _CONTROL_BUT_LAYOUT.sub(_escape, str(text))


def has_control(text: str) -> bool:
    return _CONTROL.search(text) is not None


def printable_data(value, depth: int = 0):
    """A copy of JSON-like data (dicts, lists, strings, numbers) with every string, keys too,
    made printable: what every report and export renders from."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        return printable(value) if has_control(value) else value
    if isinstance(value, dict):
        return {printable(k) if isinstance(k, str) and has_control(k) else k: printable_data(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [printable_data(v, depth + 1) for v in value]
    return value
