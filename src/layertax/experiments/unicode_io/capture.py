"""Runs one program once and keeps exactly the bytes it wrote.

Two channels: a pipe (what a program writing to a file or another program
does) and a pseudo-terminal (what a user at a terminal sees: isatty() is true,
so stdio line-buffers and some runtimes pick another path). stderr always goes
to a pipe of its own, so an error message never mixes into the output compared.
The pty's line discipline turns "\\n" into "\\r\\n" (ONLCR) as any terminal does;
the raw bytes are kept and the comparison undoes only that.
"""
from __future__ import annotations

import errno
import os
import selectors
import subprocess
import time
from dataclasses import dataclass

from layertax.engine.processes import kill_group

CHANNELS = ("pipe", "pty")


@dataclass
class Capture:
    stdout: bytes
    stderr: bytes
    exit_code: int | None      # None: killed after the time limit
    timed_out: bool = False

    def output(self, channel: str) -> bytes:
        """stdout as the program wrote it: the pty's ONLCR translation undone."""
        return self.stdout.replace(b"\r\n", b"\n") if channel == "pty" else self.stdout


def _drain(fds: dict[int, bytearray], proc: subprocess.Popen, deadline: float) -> bool:
    """Reads every fd until EOF (a pty master reports EOF as EIO); False if the deadline passed."""
    sel = selectors.DefaultSelector()
    for fd in fds:
        sel.register(fd, selectors.EVENT_READ)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in sel.select(timeout=left):
                try:
                    chunk = os.read(key.fd, 65536)
                except OSError as e:
                    if e.errno != errno.EIO:
                        raise
                    chunk = b""
                if chunk:
                    fds[key.fd] += chunk
                else:
                    sel.unregister(key.fd)
        return True
    finally:
        sel.close()


def run(argv: list[str], env: dict[str, str], channel: str, timeout: float) -> Capture:
    """Runs argv with exactly env; never through a shell."""
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}")
    master = slave = None
    if channel == "pty":
        master, slave = os.openpty()
        stdin, stdout = slave, slave
    else:
        stdin, stdout = subprocess.DEVNULL, subprocess.PIPE
    try:
        proc = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    finally:
        if slave is not None:
            os.close(slave)   # only the child holds the terminal now, so its exit ends the reads
    out_fd = master if master is not None else proc.stdout.fileno()
    err_fd = proc.stderr.fileno()
    buffers = {out_fd: bytearray(), err_fd: bytearray()}
    try:
        finished = _drain(buffers, proc, time.monotonic() + timeout)
        if not finished:
            kill_group(proc)
        code = proc.wait()
    except BaseException:   # Ctrl-C: the child is in its own session, end it ourselves
        kill_group(proc)
        raise
    finally:
        if master is not None:
            os.close(master)
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    return Capture(bytes(buffers[out_fd]), bytes(buffers[err_fd]),
                   None if not finished else code, timed_out=not finished)
