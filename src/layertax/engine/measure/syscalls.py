"""System calls per operation, counted under strace in runs apart from the timed ones.

A layer's hidden work often shows as extra system calls (Go's os.Rename and
Java's Files.move lstat before they rename). The count is taken by difference:
the kernel runs twice under `strace -f` with a fixed iteration count, N1 and
N2, so that start-up, setup, warm-up and verification (the same in both runs)
cancel, and per operation = (calls(N2) - calls(N1)) / ((N2 - N1) x ops per
iteration). Only the thread that ran the loop is counted (the one that made the
most calls), so a runtime's background threads (Go's sysmon, a JVM's compiler)
do not blur the figure. What noise remains (a call more in the shorter run) is
reported, not hidden. The timed runs are never traced.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

from layertax.engine.builder import toolchain
from layertax.engine.measure.fixed_run import fixed_run

ITERS = (40, 240)  # two fixed iteration counts; their difference is what is counted
_CALL = re.compile(r"^(\d+)\s+([a-z_][a-z0-9_]*)\(")
# Per-op figures below this are a runtime's occasional background work, not the operation's
# (a batched io_uring submit is 1/64 = 0.016 per op, so the floor stays under that).
FLOOR = 0.01


def available() -> bool:
    return toolchain.available("strace")


def parse_trace(text: str) -> dict[int, Counter]:
    """{thread id: Counter(system call name)} from `strace -f` output.

    A call interrupted by another thread's output is printed twice ("<unfinished ...>",
    then "<... NAME resumed>"); only the first line counts.
    """
    threads: dict[int, Counter] = defaultdict(Counter)
    for line in text.splitlines():
        m = _CALL.match(line)
        if m:
            threads[int(m.group(1))][m.group(2)] += 1
    return dict(threads)


def loop_calls(threads: dict[int, Counter]) -> Counter:
    """The calls of the thread that ran the loop: the one that made the most."""
    if not threads:
        return Counter()
    return max(threads.values(), key=lambda c: sum(c.values()))


def per_op(small: Counter, large: Counter, iters: tuple[int, int], ops_per_iter: int) -> tuple[dict[str, float], float]:
    """(calls per operation by name, noise): names under FLOOR are dropped; a negative
    difference cannot be the operation's, so it is dropped too and counted as noise."""
    span = (iters[1] - iters[0]) * ops_per_iter
    out, noise = {}, 0.0
    for name in sorted(set(small) | set(large)):
        value = (large[name] - small[name]) / span
        if value < 0:
            noise += -value
        elif value >= FLOOR:
            out[name] = round(value, 3)
    return out, round(noise, 3)


def _traced_run(argv: list[str], env: dict, iters: int, workroot: Path, timeout: float,
                preexec) -> tuple[dict[int, Counter], int]:
    """(calls by thread, the case's ops per iteration) of one traced run."""
    strace = toolchain.find("strace").path
    with fixed_run(lambda d: [strace, "-f", "-qq", "-o", str(d / "trace.txt")], argv, env, iters, workroot,
                   timeout, preexec) as (workdir, descriptor):
        return parse_trace((workdir / "trace.txt").read_text(errors="replace")), descriptor.get("ops_per_iter", 1)


def count(argv: list[str], env: dict, workroot: Path, timeout: float = 120, preexec=None,
          iters: tuple[int, int] | None = None) -> dict:
    """System calls per operation of one case (argv already names the case); iters: the two
    iteration counts (default ITERS; an experiment whose operation is long asks for fewer)."""
    iters = iters or ITERS
    (small, ops_per_iter), (large, _) = (_traced_run(argv, env, n, workroot, timeout, preexec) for n in iters)
    raw = [loop_calls(small), loop_calls(large)]
    calls, noise = per_op(raw[0], raw[1], iters, ops_per_iter)
    return {"per_op": calls, "total_per_op": round(sum(calls.values()), 3), "noise_per_op": noise,
            "iters": list(iters), "ops_per_iter": ops_per_iter, "raw_calls": [dict(r) for r in raw],
            "method": f"strace -f, difference of {iters[1]} and {iters[0]} iterations, the loop's thread only"}
