"""One run of a program with its runtime's own tracing turned on, outside the timed launches:
no shell, stdin from /dev/null, its output captured to private files (each capped by
RLIMIT_FSIZE, so a chatty program cannot fill the disk), ended with everything it started
when it exits or its time is up."""
from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

from layertax import files
from layertax.engine.processes import end_session

# What a trace may write: an -X importtime of a large application is a few hundred KiB.
MAX_TRACE_BYTES = 16 << 20


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_TRACE_BYTES, MAX_TRACE_BYTES))


def run(argv: list[str], env: dict[str, str], workdir: Path, timeout: float) -> tuple[int | None, str, str, float]:
    """(exit status or None if its time ran out, stdout, stderr, its wall time in ns) of one traced run."""
    out, err = workdir / "trace.out", workdir / "trace.err"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        started = time.monotonic_ns()
        proc = subprocess.Popen(argv, env={**os.environ, **env}, stdin=subprocess.DEVNULL, stdout=stdout,
                                stderr=stderr, start_new_session=True, preexec_fn=_capped, cwd=workdir)
        try:
            status = proc.wait(timeout=timeout)
            took = time.monotonic_ns() - started
        except subprocess.TimeoutExpired:
            status, took = None, float(timeout * 1e9)
        finally:
            end_session(proc)
    return (status, files.read_text(out, "the traced run's output", MAX_TRACE_BYTES),
            files.read_text(err, "the traced run's errors", MAX_TRACE_BYTES), took)
