"""Parses what a kernel prints (docs/method/protocol.md, "Kernels").

Line 1 describes the kernel (it has a "kernel" key); then one line per sample
({"case", "iters", "ns", ...}); a kernel that cannot run prints {"skip": why},
one that failed prints {"error": why}. Anything else is a protocol error: a
kernel that prints garbage is as wrong as one that computes garbage.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

SAMPLE_INT_FIELDS = ("iters", "ns")
SAMPLE_COUNTERS = ("csw_vol", "csw_invol", "minflt")   # kept as the kernel gave them, when it gives them
SAMPLE_OPTIONAL_INT_FIELDS = ("ops", *SAMPLE_COUNTERS)


class ProtocolError(ValueError):
    pass


@dataclass
class KernelOutput:
    descriptor: dict | None = None
    samples: list[dict] = field(default_factory=list)
    error: str | None = None
    skip: str | None = None


def _sample(obj: dict, lineno: int, expected_case: str | None) -> dict:
    for key in SAMPLE_INT_FIELDS + SAMPLE_OPTIONAL_INT_FIELDS:
        if key in obj and (not isinstance(obj[key], int) or isinstance(obj[key], bool) or obj[key] < 0):
            raise ProtocolError(f"line {lineno}: '{key}' must be a non-negative integer, got {obj[key]!r}")
    missing = [k for k in SAMPLE_INT_FIELDS if k not in obj]
    if missing:
        raise ProtocolError(f"line {lineno}: sample lacks {', '.join(missing)}")
    if obj["iters"] == 0 or obj["ns"] == 0:
        raise ProtocolError(f"line {lineno}: a sample with zero iterations or zero time measures nothing")
    if expected_case is not None and obj.get("case") != expected_case:
        raise ProtocolError(f"line {lineno}: sample for case {obj.get('case')!r}, expected {expected_case!r}")
    sample = {k: obj[k] for k in ("iters", "ns")}
    sample["ops"] = obj.get("ops", obj["iters"])
    if sample["ops"] == 0:
        raise ProtocolError(f"line {lineno}: 'ops' is zero")
    for key in SAMPLE_COUNTERS:
        if key in obj:
            sample[key] = obj[key]
    return sample


def json_object(line: str, lineno: int) -> dict:
    """One protocol line as its JSON object (a kernel's, or the launch timer's); ProtocolError
    naming the line if it is not one."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"line {lineno}: not JSON ({e.msg}): {line[:80]!r}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"line {lineno}: expected a JSON object, got {type(obj).__name__}")
    return obj


def parse(text: str, expected_case: str | None = None) -> KernelOutput:
    out = KernelOutput()
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj = json_object(line, lineno)
        if "error" in obj:
            out.error = str(obj["error"])
        elif "skip" in obj:
            out.skip = str(obj["skip"])
        elif "kernel" in obj:
            if out.descriptor is not None:
                raise ProtocolError(f"line {lineno}: a second descriptor line")
            out.descriptor = obj
        else:
            if out.descriptor is None:
                raise ProtocolError(f"line {lineno}: a sample before the descriptor line")
            out.samples.append(_sample(obj, lineno, expected_case))
    return out
