"""What runs after main: the runtime a program starts (CPython, the JVM, Node, Go), recognised by
its binary, its start-up split by the runtime's own tracing, and the fixes that can be tried
without a rebuild."""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

from layertax.inspect.runtime import cpython, golang, jvm, node, traced
from layertax.inspect.runtime.stage import Fix, Split

RUNTIMES: tuple[ModuleType, ...] = (cpython, jvm, node, golang)
# A traced run may take much longer than a timed one (every import logged, every class).
TRACE_TIMEOUT_S = 60.0


def recognise(path: Path, argv: list[str]) -> ModuleType | None:
    """The runtime module for the program (the link resolved: /usr/bin/java is the JDK's), or None."""
    real = path.resolve()
    return next((r for r in RUNTIMES if r.recognise(real, argv)), None)


def split(runtime: ModuleType, argv: list[str], workdir: Path) -> Split:
    """One traced run, parsed; a run that fails or times out gives a split that says so."""
    command, env = runtime.traced(argv, workdir)
    status, out, err, took = traced.run(command, env, workdir, TRACE_TIMEOUT_S)
    if status is None:
        return Split(runtime.RUNTIME, problem=f"the traced run took over {TRACE_TIMEOUT_S:g} s")
    found = runtime.parse(out, err, workdir)
    found.traced_ns = float(took)
    if hasattr(runtime, "classify_traced") and not found.problem:   # a second run, for what the first cannot say
        command, env = runtime.classify_traced(argv, workdir)
        status, out, err, _ = traced.run(command, env, workdir, TRACE_TIMEOUT_S)
        if status is not None:
            runtime.classify(found, out, err)
    return found


def fixes(runtime: ModuleType, argv: list[str], workdir: Path) -> list[Fix]:
    return runtime.fixes(argv, workdir)


def hint(runtime: ModuleType, argv: list[str]) -> str | None:
    return runtime.hint(argv) if hasattr(runtime, "hint") else None


def prepare(fix: Fix, workdir: Path) -> str | None:
    """Runs what a fix needs made first (an archive, a cache); why it failed, or None."""
    if not fix.prepare:
        return None
    status, _, err, _ = traced.run(list(fix.prepare), dict(fix.env), workdir, TRACE_TIMEOUT_S)
    if status != 0:
        last = (err.strip().splitlines() or ["no output"])[-1][:160]
        return f"preparing it failed ({'timed out' if status is None else f'exit status {status}'}: {last})"
    return None
