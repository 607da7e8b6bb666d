"""One run of a kernel with a fixed iteration count, under a tool (strace, callgrind).

The difference methods (system calls and instructions per operation) run a
case twice, with N1 and N2 iterations, under a tool that writes its findings to
files. This is that run: a private directory for the tool's files and the
kernel's work, `--samples 1 --iters N`, the kernel's own descriptor (its
ops per iteration) read from what it prints, and one line if it failed.
"""
from __future__ import annotations

import re
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
            last = _failure_line(proc.stderr, workdir / valgrind_log if valgrind_log else None)
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


# The lines valgrind ends every run with, a failed one too: its counts, not what went wrong.
_VALGRIND_SUMMARY = re.compile(r"(Events|Collected|I\s+refs|ERROR SUMMARY|For lists of detected|For counts of)\b")


def _failure_line(stderr: str, log: Path | None) -> str:
    """What a failed run said last: valgrind's account of a fatal signal first (the kernel says
    nothing then: "Process terminating with default action of signal 11 (SIGSEGV): Access not
    within mapped region at address 0x0"), else the kernel's last line on stderr, else
    valgrind's last message that is not its closing counts."""
    told = _valgrind_said(log) if log is not None else []
    for i, line in enumerate(told):
        if line.startswith("Process terminating"):
            detail = told[i + 1].strip() if i + 1 < len(told) and told[i + 1].startswith(" ") else ""
            return f"{line}: {detail}" if detail else line
    own = stderr.strip().splitlines()
    if own:
        return own[-1]
    told = [line for line in told if not _VALGRIND_SUMMARY.match(line.strip())]
    return told[-1].strip() if told else "?"


def _valgrind_said(log: Path) -> list[str]:
    """valgrind's own messages in its log ("==PID== ..."), without the PID and kept indented;
    its verbose lines ("--PID-- ...") say where it put things, never what failed."""
    return [line.split("== ", 1)[1] for line in valgrind_log(log).splitlines()
            if line.startswith("==") and "== " in line and line.split("== ", 1)[1].strip()]
