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

from layertax import files
from layertax.engine.measure import protocol
from layertax.errors import UsageError


@contextmanager
def fixed_run(tool: Callable[[Path], list[str]], argv: list[str], env: dict, iters: int, workroot: Path,
              timeout: float, preexec=None, cwd: str | None = None,
              valgrind_log: str | None = None) -> Iterator[tuple[Path, dict]]:
    """Runs `tool(workdir) + argv` for `iters` iterations; yields (workdir, the kernel's descriptor).

    The tool writes its files into workdir, which is removed afterwards. Raises
    RuntimeError (one line) if the kernel failed, broke the protocol, or the tool did.
    valgrind_log: the file in workdir valgrind logs to (--log-file), where its own messages
    go instead of stderr: a failure the kernel did not explain is told by valgrind's last one.
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
            said = proc.stderr.strip().splitlines() or _valgrind_said(workdir / valgrind_log if valgrind_log else None)
            last = (said or ["?"])[-1]
            raise RuntimeError(f"{Path((prefix or argv)[0]).name} run exited with {proc.returncode}: "
                               f"{(parsed.error or parsed.skip or last)[:200]}")
        yield workdir, parsed.descriptor
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


LOG_READ_AT_MOST = 4 << 20     # a verbose log is some kilobytes a loaded object


def valgrind_log(path: Path) -> str:
    """valgrind's log as text; empty where it wrote none, or more than a log of a run can hold."""
    try:
        return files.read_bytes(path, "valgrind log", LOG_READ_AT_MOST).decode("utf-8", "replace")
    except UsageError:
        return ""


def _valgrind_said(log: Path | None) -> list[str]:
    """valgrind's own messages in its log ("==PID== ..."), without the PID; its verbose lines
    ("--PID-- ...") say where it put things, never what failed."""
    text = valgrind_log(log) if log is not None else ""
    return [line.split("== ", 1)[1] for line in text.splitlines()
            if line.startswith("==") and "== " in line and line.split("== ", 1)[1].strip()]
