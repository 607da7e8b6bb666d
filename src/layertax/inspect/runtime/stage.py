"""What a runtime's own tracing says of its start-up: stages with their times, and the fixes
that can be tried without a rebuild."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Stage:
    name: str
    ns: float
    source: str                  # where the figure comes from ("-X importtime", "-Xlog:startuptime")


@dataclass(frozen=True)
class Fix:
    """A change to how the program is started, tried by timing it against the program as it is."""
    name: str                    # as printed: "python -S (no site module)"
    argv: tuple[str, ...]        # the command with the change
    env: tuple[tuple[str, str], ...] = ()
    prepare: tuple[str, ...] = ()   # a run that makes what the fix needs (an AppCDS archive), once, before timing
    caveat: str = ""             # what it changes besides the time


@dataclass
class Split:
    runtime: str                 # "CPython 3.11", "OpenJDK 17", "Node v20", "Go"
    stages: list[Stage] = field(default_factory=list)
    details: list[str] = field(default_factory=list)   # e.g. the top imported packages by self time
    problem: str | None = None   # why the trace gave nothing
    traced_ns: float | None = None   # the traced run's spawn->exit, as the parent saw it (not the timer)
    self_us: dict[str, int] = field(default_factory=dict)   # CPython: each module's own import time (µs)

    def to_dict(self) -> dict:
        return {"runtime": self.runtime, "problem": self.problem, "details": self.details, "traced_ns": self.traced_ns,
                "stages": [{"name": s.name, "ns": s.ns, "source": s.source} for s in self.stages]}
