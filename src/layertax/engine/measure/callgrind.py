"""Reads callgrind's output format into functions, objects and call arcs.

callgrind_annotate prints per-function totals, but not what each call arc costs
inclusively, which is what a chain of layers needs; and no maintained Python
package parses the format (gprof2dot's parser is internal to a graph tool). The
format is documented with valgrind ("Callgrind Format Specification"); this
reads the subset callgrind itself writes: name compression "(id) name",
ob/fl/fi/fe/fn for the current function, cob/cfi/cfl/cfn + calls= for a call
(whose next line carries the call's inclusive cost), and cost lines whose
first number is a position (absolute, +N, -N or *) and the rest event counts.
Two events are kept: the first (Ir, instructions) and, when callgrind ran with
--collect-systime, sysCount (system calls), which ties a function to the
system calls made below it.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

Func = tuple[str, str]  # (object file name, function name)


@dataclass
class Profile:
    total: int = 0
    self_cost: dict[Func, int] = field(default_factory=lambda: defaultdict(int))
    calls: dict[tuple[Func, Func], int] = field(default_factory=lambda: defaultdict(int))    # inclusive cost
    call_counts: dict[tuple[Func, Func], int] = field(default_factory=lambda: defaultdict(int))
    self_syscalls: dict[Func, int] = field(default_factory=lambda: defaultdict(int))
    call_syscalls: dict[tuple[Func, Func], int] = field(default_factory=lambda: defaultdict(int))  # inclusive

    def by_object(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for (obj, _), n in self.self_cost.items():
            out[obj] += n
        return dict(out)

    def inclusive(self, fn: Func) -> int:
        """Exclusive cost plus every outgoing call's inclusive cost (a recursive call counts once)."""
        return self.self_cost.get(fn, 0) + sum(n for (a, b), n in self.calls.items() if a == fn and b != fn)


def _name(value: str, table: dict[str, str]) -> str:
    """Resolves "(id) name" (defines id) or "(id)" (refers to it) or a plain name."""
    value = value.strip()
    if value.startswith("("):
        end = value.find(")")
        ident, rest = value[1:end], value[end + 1:].strip()
        if rest:
            table[ident] = rest
            return rest
        return table.get(ident, f"({ident})")
    return value


def _cost(line: str, at: int) -> int:
    """Event number `at` of a cost line (0: the first event); omitted trailing events are 0."""
    parts = line.split()
    return int(parts[1 + at]) if len(parts) > 1 + at and parts[1 + at].isdigit() else 0


def parse(text: str) -> Profile:
    prof = Profile()
    names: dict[str, dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    ob = fn = ""
    cob = cfn = None
    pending_call: int | None = None
    sys_at: int | None = None                 # the position of sysCount among the events, if recorded
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if pending_call is not None:          # the line after calls=: the call's inclusive cost
            callee = (cob if cob is not None else ob, cfn or "?")
            prof.calls[((ob, fn), callee)] += _cost(line, 0)
            prof.call_counts[((ob, fn), callee)] += pending_call
            if sys_at is not None:
                prof.call_syscalls[((ob, fn), callee)] += _cost(line, sys_at)
            pending_call, cob, cfn = None, None, None
            continue
        key, sep, value = line.partition("=")
        if sep:
            if key == "ob":
                ob = Path(_name(value, names["ob"])).name
            elif key == "fn":
                fn = _name(value, names["fn"])
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                _name(value, names["fl"])     # file names: only their ids must be learnt
            elif key == "cob":
                cob = Path(_name(value, names["ob"])).name
            elif key == "cfn":
                cfn = _name(value, names["fn"])
            elif key == "calls":
                pending_call = int(value.split()[0])
            continue
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
            sys_at = events.index("sysCount") if "sysCount" in events else None
            continue
        if line.startswith(("totals:", "summary:")):
            prof.total = max(prof.total, int(line.split(":", 1)[1].split()[0]))
            continue
        first = line[0]
        if first.isdigit() or first in "+-*":
            prof.self_cost[(ob, fn)] += _cost(line, 0)
            if sys_at is not None:
                prof.self_syscalls[(ob, fn)] += _cost(line, sys_at)
    if not prof.total:
        prof.total = sum(prof.self_cost.values())
    return prof
