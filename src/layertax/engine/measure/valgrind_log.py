"""What valgrind says in its log (--log-file): its own messages, and with VERBOSE where it
mapped each object. A counted run sends the log to a file so that the kernel's stderr stays its
own; plt_stubs.py names stubs from the map, fixed_run.py tells a failure from the messages."""
from __future__ import annotations

import re
from pathlib import Path

from layertax import files
from layertax.errors import UsageError

VERBOSE = ("-v", "-v")          # what makes valgrind say where it put each object
READ_AT_MOST = 4 << 20          # a verbose log is some kilobytes a loaded object
_READING = re.compile(r"Reading syms from (.+?)\s*$")
_MAPPED = re.compile(r"svma 0x([0-9a-fA-F]+), avma 0x([0-9a-fA-F]+)")
# The lines valgrind ends every run with, a failed one too: its counts, not what went wrong.
_SUMMARY = re.compile(r"(Events|Collected|I\s+refs|ERROR SUMMARY|For lists of detected|For counts of)\b")


def read(path: Path) -> str:
    """The log as text; empty where valgrind wrote none, or more than a log of a run can hold."""
    try:
        return files.read_bytes(path, "valgrind log", READ_AT_MOST).decode("utf-8", "replace")
    except UsageError:
        return ""


def biases(log: str) -> dict[str, int]:
    """Each object valgrind read, by its path: how much higher valgrind mapped it than its file's
    addresses ("Reading syms from PATH", then "svma S, avma A": A - S), from a VERBOSE log."""
    out: dict[str, int] = {}
    reading = None
    for line in log.splitlines():
        if (found := _READING.search(line)):
            reading = found.group(1)
        elif reading and (mapped := _MAPPED.search(line)):
            out.setdefault(reading, int(mapped.group(2), 16) - int(mapped.group(1), 16))
            reading = None
    return out


def messages(log: str) -> list[str]:
    """valgrind's own messages ("==PID== ..."), without the PID and kept indented; its verbose
    lines ("--PID-- ...") say where it put things, never what failed."""
    return [line.split("== ", 1)[1] for line in log.splitlines()
            if line.startswith("==") and "== " in line and line.split("== ", 1)[1].strip()]


def failure_line(stderr: str, log: str) -> str:
    """What a failed run under valgrind said last: valgrind's account of a fatal signal first (the
    kernel says nothing then: "Process terminating with default action of signal 11 (SIGSEGV):
    Access not within mapped region at address 0x0"), else the kernel's last line on stderr,
    else valgrind's last message that is not its closing counts."""
    told = messages(log)
    for i, line in enumerate(told):
        if line.startswith("Process terminating"):
            detail = told[i + 1].strip() if i + 1 < len(told) and told[i + 1].startswith(" ") else ""
            return f"{line}: {detail}" if detail else line
    own = stderr.strip().splitlines()
    if own:
        return own[-1]
    told = [line for line in told if not _SUMMARY.match(line.strip())]
    return told[-1].strip() if told else "?"
