"""Running the bundle under Wine: a prefix of layertax's own (in the cache directory, made
once, ~5 s), and run.cmd run through Wine's cmd.exe exactly as a user would run it.

wineserver and winedevice.exe outlive the program and keep any pipe they inherit open, so
nothing here gives Wine a pipe: its output goes to a file, its input is /dev/null.

Two layertax can use the prefix at once (`windows run --allow-concurrent`, two test workers).
Each use holds a shared flock(2) on the prefix's lock file; the prefix is made, and its server
stopped, under an exclusive one, so neither happens while another use runs: `wineserver -k`
ends every Wine process of the prefix, another use's run among them."""
from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from layertax import files, paths
from layertax.engine.builder import toolchain
from layertax.errors import LayertaxError, UsageError

INIT_TIMEOUT_S = 300
RUN_TIMEOUT_S = 900


def environment(prefix: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}   # no windows, never a dialog
    env.update(WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=", WINEARCH="win64")
    return env


def wine() -> str:
    tool = toolchain.find("wine")
    if tool is None:
        raise UsageError(toolchain.hint("wine"))
    return tool.path


def _run(argv: list[str], env: dict, cwd: Path, timeout: float) -> tuple[int, str]:
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                  cwd=cwd, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LayertaxError(f"{' '.join(argv[:3])} under Wine took more than {timeout:g} s; stopped") from None
        out.seek(0)
        return proc.returncode, out.read().decode("utf-8", "replace")


def _made(where: Path) -> bool:
    return (where / "system.reg").is_file()


def _make(where: Path) -> None:
    """The prefix initialised, where it is not yet."""
    if _made(where):
        return
    where.mkdir(parents=True, exist_ok=True)
    # Its exit code is not the test: without 32-bit Wine, wineboot fails on syswow64's rundll32
    # after making a 64-bit prefix that works; the registry it leaves is the proof.
    _, log = _run([wine(), "wineboot", "-i"], environment(where), where, INIT_TIMEOUT_S)
    # The registry files are written when wineserver exits (a few seconds after its last client).
    server = toolchain.find_command("wineserver")
    if server:
        _run([server, "-w"], environment(where), where, INIT_TIMEOUT_S)
    if not _made(where):
        raise LayertaxError(f"could not make a Wine prefix in {where}: {log.strip()[-300:]}")


@contextlib.contextmanager
def prefix() -> Iterator[Path]:
    """layertax's Wine prefix, made on first use, for the length of one use. The use that ends
    last stops the prefix's wineserver (it would otherwise linger for a few seconds); one that
    ends while another still runs leaves it to that one."""
    where = paths.cache_dir() / "wine-prefix"
    fd = files.lock_file(where.with_name("wine-prefix.lock"))     # the cache directory is the user's own
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        if not _made(where):
            # Made under the exclusive lock (flock converts by letting go first, so two uses that
            # both found it missing take turns; the second finds it made).
            fcntl.flock(fd, fcntl.LOCK_EX)
            _make(where)
            fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            yield where
        finally:
            # flock converts by letting go of the shared lock first: of two uses that end at once,
            # the second to try finds the first holding nothing, and stops the server.
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass                     # another use still runs in the prefix: its end stops the server
            else:
                _stop_server(where)
    finally:
        os.close(fd)                     # the lock goes with it


def run_bundle(root: Path, where: Path, runs: int | None = None) -> tuple[Path, str]:
    """run.cmd in root, under Wine in the prefix where (one prefix() holds); returns results.json
    and what it printed."""
    argv = [wine(), "cmd", "/c", "run.cmd", *([str(runs)] if runs else [])]
    code, log = _run(argv, environment(where), root, RUN_TIMEOUT_S)
    result = root / "results.json"
    if code != 0 or not result.is_file():
        raise LayertaxError(f"run.cmd under Wine failed (exit {code}): {log.strip()[-400:]}")
    return result, log


def _stop_server(where: Path) -> None:
    """Ends the prefix's wineserver and every Wine process that uses it."""
    server = toolchain.find_command("wineserver")
    if server and where.is_dir():
        subprocess.run([server, "-k"], env=environment(where), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
