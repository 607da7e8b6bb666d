"""Running the bundle under Wine: a prefix of layertax's own (in the cache directory, made
once, ~5 s), and run.cmd run through Wine's cmd.exe exactly as a user would run it.

wineserver and winedevice.exe outlive the program and keep any pipe they inherit open, so
nothing here gives Wine a pipe: its output goes to a file, its input is /dev/null."""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from layertax import paths
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


def prefix() -> Path:
    """layertax's Wine prefix, initialised on first use."""
    where = paths.cache_dir() / "wine-prefix"
    if not (where / "system.reg").is_file():
        where.mkdir(parents=True, exist_ok=True)
        # Its exit code is not the test: without 32-bit Wine, wineboot fails on syswow64's rundll32
        # after making a 64-bit prefix that works; the registry it leaves is the proof.
        _, log = _run([wine(), "wineboot", "-i"], environment(where), where, INIT_TIMEOUT_S)
        # The registry files are written when wineserver exits (a few seconds after its last client).
        server = toolchain.find_command("wineserver")
        if server:
            _run([server, "-w"], environment(where), where, INIT_TIMEOUT_S)
        if not (where / "system.reg").is_file():
            raise LayertaxError(f"could not make a Wine prefix in {where}: {log.strip()[-300:]}")
    return where


def run_bundle(root: Path, runs: int | None = None) -> tuple[Path, str]:
    """run.cmd in root, under Wine; returns results.json and what it printed."""
    where = prefix()
    argv = [wine(), "cmd", "/c", "run.cmd", *([str(runs)] if runs else [])]
    code, log = _run(argv, environment(where), root, RUN_TIMEOUT_S)
    result = root / "results.json"
    if code != 0 or not result.is_file():
        raise LayertaxError(f"run.cmd under Wine failed (exit {code}): {log.strip()[-400:]}")
    return result, log


def stop_server() -> None:
    """Ends the prefix's wineserver (it would otherwise linger for a few seconds)."""
    where = paths.cache_dir() / "wine-prefix"
    server = toolchain.find_command("wineserver")
    if server and where.is_dir():
        subprocess.run([server, "-k"], env=environment(where), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
