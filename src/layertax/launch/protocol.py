"""The launch timer's lines (native/launch.c), checked as engine/measure/protocol.py checks a
kernel's, into typed records. docs/method/protocol.md describes every line.

The timer writes one JSON object per line: first its descriptor ({"timer": ...}); then per
launch either a Launch (its times, rusage and what it left running) or a Failure (a variant
that could not start, exited non-zero, died or timed out: not launched again); a Warmed line
after the warm-up; a Placement line when it moved off a busy CPU; and last, Descendants.
Anything else, a missing field or a field of the wrong kind is a ProtocolError: a timer that
prints garbage is as wrong as one that measures garbage.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from layertax.engine.measure import protocol as measure_protocol
from layertax.launch import contention
from layertax.result.model import Sample


# One error for a kernel's lines and the timer's: both speak docs/method/protocol.md.
ProtocolError = measure_protocol.ProtocolError


@dataclass(frozen=True)
class Launch:
    """One launch, timed (round >= 0) or of the warm-up (round -1): times in ns from the spawn."""
    variant: str
    round: int
    pid: int
    status: str                       # "ok", or why its exit counts as a failure (ignored by the variant)
    main_ns: int | None               # the stamp at main (None: the program did not stamp)
    output_ns: int | None             # its first output (None: not asked for, or it wrote nothing)
    exit_ns: int
    first_init_ns: int | None         # the stages before main (the phases stamp; None otherwise)
    preload_init_ns: int | None
    libc_start_main_ns: int | None
    runq_wait_ns: int | None          # the timer's and the child's wait for a CPU (None: not kept by the kernel)
    clear_ns: int | None              # time from the spawn to the pinned CPU's next periodic interruption
    dodged: bool                      # started clear of the interruptions
    dodged_until: str | None          # "exit", "main" or None (started at once)
    descendants_ended: int            # processes it left running, ended after it was timed
    exit_status: int
    minflt: int
    majflt: int
    utime_ns: int
    stime_ns: int
    csw_vol: int
    csw_invol: int
    maxrss_kb: int

    def sample(self, min_wait_ns: int | None) -> Sample:
        """The launch as a result's sample: its fields but the variant, the pid and the status,
        and whether another task held its CPU ("preempted", by the timer's rule with its floor
        min_wait_ns; None where the kernel gave no run-queue wait). The child's involuntary
        switches cannot say that: nearly every launch has one, the timer woken when the child's
        execve releases the vfork (docs/method/launch-timer.md), so by them every launch of a
        run would count as preempted."""
        out = {key: value for key, value in asdict(self).items() if key not in ("variant", "pid", "status", "round")
               and (key != "output_ns" or value is not None)}    # kept only when it was timed
        known = min_wait_ns is not None and self.runq_wait_ns is not None
        out["preempted"] = contention.waited(out, min_wait_ns) if known else None
        return Sample(self.round, out)


@dataclass(frozen=True)
class Failure:
    variant: str
    round: int
    status: str                       # what went wrong, in the timer's words


@dataclass(frozen=True)
class Descriptor:
    fields: dict                      # the timer's own description: clock, spawn, pinning, the tick series


@dataclass(frozen=True)
class Warmed:
    rounds: int
    ns: int


@dataclass(frozen=True)
class Placement:
    fields: dict                      # {"round", "from", "to", "waited", "of", "ticks"}


@dataclass(frozen=True)
class Descendants:
    ended: int                        # processes the launches left running, ended
    launches: int                     # how many launches left any


Record = Launch | Failure | Descriptor | Warmed | Placement | Descendants

_INT = (int,)
_LAUNCH_FIELDS = {name: kind for name, kind in Launch.__annotations__.items()}


def _check(obj: dict, name: str, kinds: tuple, nullable: bool, lineno: int):
    if name not in obj:
        raise ProtocolError(f"line {lineno}: the launch line lacks {name!r}")
    value = obj[name]
    if value is None and nullable:
        return None
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise ProtocolError(f"line {lineno}: {name!r} is {value!r}")
    return value


def _launch(obj: dict, lineno: int) -> Launch:
    values = {}
    for name, kind in _LAUNCH_FIELDS.items():
        nullable = "None" in kind
        kinds = (str,) if kind.startswith("str") else (bool,) if kind == "bool" else _INT
        values[name] = _check(obj, name, kinds, nullable, lineno)
    for name in ("main_ns", "output_ns", "exit_ns", "first_init_ns", "preload_init_ns", "libc_start_main_ns", "runq_wait_ns",
                 "clear_ns", "utime_ns", "stime_ns", "minflt", "majflt", "csw_vol", "csw_invol", "maxrss_kb",
                 "descendants_ended"):
        if values[name] is not None and values[name] < 0:
            raise ProtocolError(f"line {lineno}: {name!r} is negative")
    if values["dodged_until"] not in (None, "exit", "main"):
        raise ProtocolError(f"line {lineno}: 'dodged_until' is {values['dodged_until']!r}")
    return Launch(**values)


def parse_line(line: str, lineno: int = 0) -> Record:
    """One line of the timer as its record; ProtocolError if it is not one."""
    obj = measure_protocol.json_object(line, lineno)
    if "timer" in obj:
        return Descriptor(obj)
    if "warmed" in obj:
        warmed = obj["warmed"]
        return Warmed(int(warmed["rounds"]), int(warmed["ns"]))
    if "placement" in obj:
        return Placement(obj["placement"])
    if "descendants" in obj:
        found = obj["descendants"]
        return Descendants(int(found["ended"]), int(found["launches"]))
    if "variant" not in obj or "round" not in obj or "status" not in obj:
        raise ProtocolError(f"line {lineno}: neither a launch, a failure nor a line the timer writes: {line[:80]!r}")
    if "exit_ns" not in obj:
        return Failure(str(obj["variant"]), int(obj["round"]), str(obj["status"]))
    return _launch(obj, lineno)
