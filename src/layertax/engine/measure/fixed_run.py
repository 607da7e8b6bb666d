"""One run of a kernel with a fixed iteration count, under a tool (strace, callgrind).

The difference methods (system calls and instructions per operation) run a
case twice, with N1 and N2 iterations, under a tool that writes its findings to
files. This is that run: a private directory for the tool's files and the
kernel's work, `--samples 1 --iters N`, the kernel's own descriptor (its
ops per iteration) read from what it prints, and one line if it failed.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from layertax.engine.measure import protocol
from layertax.engine.measure.valgrind_log import failure_line, read


@contextmanager
def fixed_run(tool: Callable[[Path], list[str]], argv: list[str], env: dict, iters: int, workroot: Path,
              timeout: float, preexec=None, cwd: str | None = None,
              valgrind_log: str | None = None) -> Iterator[tuple[Path, dict]]:
    """Runs `tool(workdir) + argv` for `iters` iterations; yields (workdir, the kernel's descriptor).

    The tool writes its files into workdir, which is removed afterwards. Raises
    RuntimeError (one line) if the kernel failed, broke the protocol, or the tool did.
    valgrind_log: the file in workdir valgrind logs to (--log-file), where its own messages go
    instead of stderr: a failure the kernel did not explain is told from them.
    """
    workdir = Path(tempfile.mkdtemp(prefix="fixed-", dir=workroot))
    run_dir = workdir / "run"
    run_dir.mkdir()
    try:
        prefix = tool(workdir)
        proc = subprocess.run([*prefix, *argv, "--samples", "1", "--iters", str(iters), "--dir", str(run_dir)],
                              env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, encoding="utf-8",
                              errors="replace", timeout=timeout,
                              preexec_fn=preexec, cwd=cwd)
        try:
            parsed = protocol.parse(proc.stdout)
        except protocol.ProtocolError as e:
            raise RuntimeError(f"the kernel broke the protocol: {e}") from None
        if proc.returncode != 0 or parsed.error or parsed.descriptor is None:
            last = _failure_line(proc.stderr, workdir / valgrind_log if valgrind_log else None)
            raise RuntimeError(f"{Path((prefix or argv)[0]).name} run exited with {proc.returncode}: "
                               f"{(parsed.error or parsed.skip or last)[:200]}")
        yield workdir, parsed.descriptor
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _failure_line(stderr: str, log: Path | None) -> str:
    """What a failed run said last: valgrind's account where it logged to a file (valgrind_log.py),
    else the last line on stderr."""
    if log is not None:
        return failure_line(stderr, read(log))
    return (stderr.strip().splitlines() or ["?"])[-1]
