"""One run of a program with its runtime's own tracing turned on, outside the timed launches:
no shell, stdin from /dev/null, its output captured to unnamed temporary files (each capped
by RLIMIT_FSIZE, so a chatty program cannot fill the disk), ended with everything it started
when it exits or its time is up."""
from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from layertax.engine.processes import end_session

# What is read of a trace: an -X importtime of a large application is a few hundred KiB.
MAX_TRACE_BYTES = 16 << 20
# The largest file a traced or preparing run may write (an AppCDS archive of a large
# application is tens of MiB): a cap on a runaway, not on a real start-up.
MAX_FILE_BYTES = 512 << 20


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))


def run(argv: list[str], env: dict[str, str], workdir: Path, timeout: float) -> tuple[int | None, str, str, float]:
    """(exit status or None if its time ran out, stdout, stderr, its wall time in ns) of one traced run."""
    # Unnamed temporary files (no path to plant a link at), each capped by RLIMIT_FSIZE.
    with tempfile.TemporaryFile(dir=workdir) as stdout, tempfile.TemporaryFile(dir=workdir) as stderr:
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
        return status, _text(stdout), _text(stderr), took


def _text(f) -> str:
    f.seek(0)
    return f.read(MAX_TRACE_BYTES).decode("utf-8", "replace")
