"""What the launch timer saw of other tasks on its CPU, as notes for a result: the launches
that waited for a CPU (their run-queue wait, /proc/PID/schedstat) and the timer's moves off a
CPU it found shared with a busy task (native/placement.h says why it moves)."""
from __future__ import annotations

import statistics

from layertax.units import duration


def waited(sample: dict, min_wait_ns: int) -> bool:
    """As native/placement.c counts a launch as having waited: over the timer's floor (its
    descriptor names it) and over a tenth of the launch."""
    wait = sample.get("runq_wait_ns")
    return wait is not None and wait > max(min_wait_ns, sample["exit_ns"] / 10)


def notes(result: dict) -> list[str]:
    out = []
    record = result.get("launch") or {}
    for move in record.get("moves") or []:
        where = f"cpu {move['to']}" if move["to"] >= 0 else "no CPU in particular (each one was busy)"
        out.append(f"cpu {move['from']} was shared with a busy task ({move['waited']} of {move['of']} launches "
                   f"waited for it): the timer moved to {where} in round {move['round'] + 1}")
    rule = (record.get("descriptor") or {}).get("placement")
    if not rule:   # a timer older than the waits
        return out
    samples = [s for c in result.get("cases", []) + result.get("controls", []) for s in c["samples"]]
    slow = [s["runq_wait_ns"] for s in samples if waited(s, rule["min_wait_ns"])]
    if slow:
        out.append(f"{len(slow)} of {len(samples)} launches waited for a CPU (median {duration(statistics.median(slow))}"
                   f", run-queue wait from /proc/PID/schedstat): another task was running; their times include it")
    return out
